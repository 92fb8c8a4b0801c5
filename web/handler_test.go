package web

import (
	"io/fs"
	"net/http"
	"net/http/httptest"
	"testing"
	"testing/fstest"
)

func TestHandlerNegotiatesPrecompressedWasm(t *testing.T) {
	t.Parallel()
	fsys := fstest.MapFS{
		"app.wasm":    {Data: []byte("RAW")},
		"app.wasm.gz": {Data: []byte("GZ")},
		"app.wasm.br": {Data: []byte("BR")},
		"app.css":     {Data: []byte("body{}")},
		"only-gz.js":  {Data: []byte("js")},
	}
	tests := []struct {
		name, path, accept       string
		wantCode                 int
		wantBody, wantEnc, wantT string
	}{
		{"brotli preferred", "/app.wasm", "gzip, deflate, br", 200, "BR", "br", "application/wasm"},
		{"gzip when no br", "/app.wasm", "gzip", 200, "GZ", "gzip", "application/wasm"},
		{"br refused with q=0", "/app.wasm", "br;q=0, gzip", 200, "GZ", "gzip", "application/wasm"},
		{"identity", "/app.wasm", "", 200, "RAW", "", "application/wasm"},
		{"plain file", "/app.css", "br", 200, "body{}", "", "text/css; charset=utf-8"},
		{"missing", "/nope.js", "", 404, "", "", ""},
		{"traversal", "/../app.css", "", 200, "body{}", "", "text/css; charset=utf-8"},
	}
	h := Handler(fsys)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := httptest.NewRequest(http.MethodGet, tc.path, nil)
			if tc.accept != "" {
				r.Header.Set("Accept-Encoding", tc.accept)
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code != tc.wantCode {
				t.Fatalf("code %d, want %d", w.Code, tc.wantCode)
			}
			if tc.wantCode != 200 {
				return
			}
			if got := w.Body.String(); got != tc.wantBody {
				t.Errorf("body %q, want %q", got, tc.wantBody)
			}
			if got := w.Header().Get("Content-Encoding"); got != tc.wantEnc {
				t.Errorf("Content-Encoding %q, want %q", got, tc.wantEnc)
			}
			if got := w.Header().Get("Content-Type"); got != tc.wantT {
				t.Errorf("Content-Type %q, want %q", got, tc.wantT)
			}
		})
	}
}

func TestEmbeddedFSHasAssets(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"app.css", "boot.js", "mic-worklet.js", "playback-worklet.js", "echarts.min.js", "LICENSE", "VERSIONS", "icons/icon.svg", "icons/icon-192.png", "icons/icon-512.png"} {
		if _, err := fs.Stat(FS, name); err != nil {
			t.Errorf("web.FS lacks %s: %v", name, err)
		}
	}
}

func TestWasmSize(t *testing.T) {
	t.Parallel()
	if got := WasmSize(fstest.MapFS{}); got != 0 {
		t.Errorf("missing wasm: size %d, want 0", got)
	}
	if got := WasmSize(fstest.MapFS{"app.wasm": {Data: make([]byte, 1234)}}); got != 1234 {
		t.Errorf("size %d, want 1234", got)
	}
}

// TestResourcesResolve: go-app's resource paths stay on this origin; only
// absolute http(s) URLs pass unchanged.
func TestResourcesResolve(t *testing.T) {
	t.Parallel()
	r := Resources(nil)
	for in, want := range map[string]string{
		"":                         "/",
		"/":                        "/",
		"web/app.css":              "/web/app.css",
		"//web/app.wasm":           "/web/app.wasm",
		"https://example.com/x.js": "https://example.com/x.js",
	} {
		if got := r.Resolve(in); got != want {
			t.Errorf("Resolve(%q) = %q, want %q", in, got, want)
		}
	}
	res := httptest.NewRecorder()
	r.ServeHTTP(res, httptest.NewRequest("GET", "/web/app.css", nil))
	if res.Code != http.StatusOK {
		t.Errorf("GET /web/app.css through Resources: %d", res.Code)
	}
}
