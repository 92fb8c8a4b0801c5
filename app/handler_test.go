package app

import (
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"
)

func get(t *testing.T, h http.Handler, path string, hdr map[string]string) *http.Response {
	t.Helper()
	r := httptest.NewRequest(http.MethodGet, path, nil)
	for k, v := range hdr {
		r.Header.Set(k, v)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w.Result()
}

func body(t *testing.T, res *http.Response) string {
	t.Helper()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestHandlerWithoutWasm(t *testing.T) {
	t.Parallel()
	h := Handler(&HandlerOptions{Assets: fstest.MapFS{"app.css": {Data: []byte("body{}")}}})
	res := get(t, h, "/", nil)
	if res.StatusCode != http.StatusOK || !strings.Contains(body(t, res), "wasm build is missing") {
		t.Errorf("/ without wasm: %d, want the missing-build page", res.StatusCode)
	}
	if res := get(t, h, "/web/app.css", nil); res.StatusCode != http.StatusOK {
		t.Errorf("/web/app.css: %d", res.StatusCode)
	}
}

// The page must reference nothing outside the server: go-app's default
// icons point at the internet unless Handler.Icon is set.
func TestHandlerPageIsSelfContained(t *testing.T) {
	t.Parallel()
	assets := fstest.MapFS{
		"app.wasm":       {Data: []byte("\x00asm-fake")},
		"app.wasm.br":    {Data: []byte("BR")},
		"app.css":        {Data: []byte("body{}")},
		"echarts.min.js": {Data: []byte("var echarts={}")},
	}
	h := Handler(&HandlerOptions{Assets: assets, UploadCapability: func(*http.Request) string { return `cap"<x>` }})
	page := body(t, get(t, h, "/", nil))
	for _, want := range []string{`src="/web/echarts.min.js"`, `href="/web/app.css"`, `href="/web/icons/icon.svg"`,
		`<meta name="duplexscope-upload-capability" content="cap&#34;&lt;x&gt;">`} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	ext := regexp.MustCompile(`(src|href)="(https?:)?//`)
	if m := ext.FindAllString(page, -1); len(m) > 0 {
		t.Errorf("page references outside resources: %v", m)
	}
	for _, p := range []string{"/manifest.webmanifest", "/app.js", "/app-worker.js"} {
		b := body(t, get(t, h, p, nil))
		if strings.Contains(b, "githubusercontent") || strings.Contains(b, "https://") {
			t.Errorf("%s references the internet", p)
		}
	}
	if w := body(t, get(t, h, "/app-worker.js", nil)); strings.Contains(w, "fetch") || strings.Contains(w, "addAll") {
		t.Errorf("app worker caches or intercepts requests:\n%s", w)
	}
	res := get(t, h, "/web/app.wasm", map[string]string{"Accept-Encoding": "gzip, br"})
	if res.Header.Get("Content-Encoding") != "br" || res.Header.Get("Content-Type") != "application/wasm" || body(t, res) != "BR" {
		t.Errorf("/web/app.wasm: encoding %q type %q", res.Header.Get("Content-Encoding"), res.Header.Get("Content-Type"))
	}
}
