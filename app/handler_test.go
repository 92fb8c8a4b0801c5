package app

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/duplexscope/duplexscope/session/probe"
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
	h := Handler(&HandlerOptions{Assets: assets})
	page := body(t, get(t, h, "/", nil))
	for _, want := range []string{`src="/web/echarts.min.js"`, `href="/web/app.css"`, `href="/web/icons/icon.svg"`} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	// Start-up: echarts never blocks parsing or the wasm's compile
	// (deferred), and the wasm download starts with the HTML (preload
	// matching app.js's fetch, or the browser fetches it twice).
	if !regexp.MustCompile(`<script[^>]*\bdefer\b[^>]*src="/web/echarts.min.js"|<script[^>]*src="/web/echarts.min.js"[^>]*\bdefer\b`).MatchString(page) {
		t.Errorf("echarts is not deferred: it would block the first paint and the wasm compile")
	}
	if !strings.Contains(page, `<link rel="preload" href="/web/app.wasm" as="fetch" crossorigin="anonymous">`) {
		t.Errorf("page does not preload /web/app.wasm as app.js fetches it")
	}
	// The compile starts from the head (boot.js, parser-blocking, so it
	// runs before the body is parsed and before the deferred app.js), and
	// app.js instantiates that module rather than fetching the wasm again
	// (serveAppJS) or through go-app's main-thread byte counter.
	head, _, _ := strings.Cut(page, "</head>")
	if !strings.Contains(head, `<script src="/web/boot.js"></script>`) {
		t.Errorf("page head does not run /web/boot.js as a plain script")
	}
	js := body(t, get(t, h, "/app.js", nil))
	if strings.Contains(js, "fetchWithProgress(\"/web/app.wasm\"") || !strings.HasPrefix(js, "// duplexscope: app.wasm is compiled") || strings.Count(js, "dsInstantiate(") != 2 {
		t.Errorf("app.js does not instantiate the module boot.js compiles (go-app's app.js changed?)")
	}
	if strings.Count(js, `fetch("/web/app.wasm")`) != 1 {
		t.Errorf("app.js fetches the wasm %d times, want once (only when boot.js has not)", strings.Count(js, `fetch("/web/app.wasm")`))
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

// pageParams are every URL parameter the page reads (ParseSettings,
// ParseLoadSettings, the dashboard's demo).
var pageParams = []string{"url", "model", "source", "frame_ms", "profile", "behavior", "proxy", "autostart", "duration_s", "audible", "view", "probe_s", "transport", "session_thread", "stall_ms", "stall_every_ms", "demo", "levels", "join_s", "run_id", "shard", "watch"}

// TestPageParamsListed keeps pageParams complete: every parameter the
// page's own links carry is in it.
func TestPageParamsListed(t *testing.T) {
	s := LoadSettings{Settings: Settings{URL: "ws://h/v1/realtime", Model: "m", Source: "dataset:builtin", FrameMs: 80, Profile: "p", Behavior: "yields",
		Proxy: true, DurationS: 1, Audible: true, Transport: "coder", Probes: []probe.At{{Kind: "interruption", OffsetS: 4}},
		SessionThread: SessionThreadMain, StallMs: 250, StallEveryMs: 1000},
		Levels: []int{1}, JoinS: 2, RunID: "r", Shard: 1, Shards: 2, Watch: true}
	for k := range s.Query() {
		if !slices.Contains(pageParams, k) {
			t.Errorf("the page's links carry %q, which the injection tests do not feed", k)
		}
	}
}

// TestHandlerPrerenderIgnoresQuery: go-app v10.1.11 quotes attribute values
// with strconv.Quote, so nothing from the query (nor a Host in an absolute
// request URI) may reach the prerendered HTML; the browser reads the URL.
func TestHandlerPrerenderIgnoresQuery(t *testing.T) {
	t.Parallel()
	assets := fstest.MapFS{"app.wasm": {Data: []byte("\x00asm-fake")}, "app.css": {Data: []byte("body{}")}}
	h := Handler(&HandlerOptions{Assets: assets})
	payloads := []string{`"><script>zq1</script>`, `'><img src=x onerror=zq2>`, `</title><script>zq3</script>`, `" autofocus onfocus="zq4`, `javascript:zq5`}
	for _, route := range []string{"/", "/load"} {
		for _, p := range payloads {
			q := url.Values{}
			for _, name := range pageParams {
				q.Set(name, p)
			}
			page := body(t, get(t, h, route+"?"+q.Encode(), nil))
			if !strings.Contains(page, `src="/app.js"`) {
				t.Fatalf("%s: not the go-app page", route)
			}
			if strings.Contains(page, "zq") {
				t.Errorf("%s?…=%s: the value reached the prerendered HTML", route, p)
			}
		}
		// Each parameter alone, with a value the page would accept.
		for _, name := range pageParams {
			v := map[string]string{"source": "dataset:zqset", "behavior": "yields"}[name]
			if v == "" {
				v = "zqvalue"
			}
			if page := body(t, get(t, h, route+"?"+name+"="+url.QueryEscape(v), nil)); strings.Contains(page, "zq") {
				t.Errorf("%s?%s=%s: the value reached the prerendered HTML", route, name, v)
			}
		}
	}
	r := httptest.NewRequest(http.MethodGet, `http://zqhost"><script>/?model=x`, nil)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if strings.Contains(w.Body.String(), "zqhost") {
		t.Errorf("the Host of an absolute request URI reached the prerendered HTML")
	}
}

// Before the wasm runs, the prerendered page must show each control as the
// wasm will: go-app writes Selected(false) as selected="false", which HTML
// reads as selected.
func TestHandlerPrerenderFalseBooleans(t *testing.T) {
	t.Parallel()
	assets := fstest.MapFS{"app.wasm": {Data: []byte("\x00asm-fake")}, "app.css": {Data: []byte("body{}")}}
	h := Handler(&HandlerOptions{Assets: assets})
	for _, route := range []string{"/", "/load"} {
		page := body(t, get(t, h, route, nil))
		if m := regexp.MustCompile(` (selected|disabled|checked|hidden|multiple|required|readonly)="false"`).FindString(page); m != "" {
			t.Errorf("%s: a boolean attribute prerendered as false: %s", route, m)
		}
		if route != "/" {
			continue
		}
		// The preset select: only "— choose —" (no value) is selected.
		sel := regexp.MustCompile(`(?s)<select[^>]*id="in-preset".*?</select>`).FindString(page)
		if sel == "" {
			t.Fatalf("%s: no preset select in the prerendered page", route)
		}
		if got := regexp.MustCompile(`<option[^>]*\sselected[\s>=]`).FindAllString(sel, -1); len(got) != 1 || regexp.MustCompile(`value="[^"]`).MatchString(got[0]) {
			t.Errorf("%s: preset options prerendered as selected: %q, want only the empty choice", route, got)
		}
	}
}
