//go:build security && linux

package security

import (
	"fmt"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strings"
	"testing"
)

// pageParams are every URL parameter the page reads: app.ParseSettings
// (both routes) and app.ParseLoadSettings (/load only), plus demo (the
// dashboard's OnNav) and a name the page does not know.
var pageParams = map[string][]string{
	"/":     {"url", "model", "source", "frame_ms", "profile", "behavior", "proxy", "autostart", "duration_s", "audible", "view", "probe_s", "transport", "session_thread", "stall_ms", "stall_every_ms", "demo", "unknown_param"},
	"/load": {"url", "model", "source", "frame_ms", "profile", "behavior", "proxy", "autostart", "duration_s", "audible", "view", "probe_s", "transport", "session_thread", "stall_ms", "stall_every_ms", "levels", "join_s", "run_id", "shard", "watch", "unknown_param"},
}

// breakouts are payloads that run script if a value reaches the HTML
// unescaped: out of a double- or single-quoted attribute, out of the
// title, an event handler without a tag, and a javascript: URL. ASCII
// without backslashes, so a verbatim match is exactly "reached the HTML".
var breakouts = []string{
	`"><script>window.__pwned=1</script>`,
	`'><img src=x onerror=window.__pwned=2>`,
	`</title><script>window.__pwned=3</script>`,
	`" autofocus onfocus="window.__pwned=4`,
	`</textarea></script><svg onload=window.__pwned=5>`,
	`javascript:window.__pwned=6`,
}

// scriptURL finds a javascript: URL in a URL-carrying attribute.
var scriptURL = regexp.MustCompile(`(?i)(href|src|action|formaction|xlink:href)\s*=\s*["']?\s*javascript:`)

// eventAttr finds an event-handler attribute in a tag: the prerendered
// page has none (go-app binds handlers from wasm), so one is injected.
var eventAttr = regexp.MustCompile(`(?i)<[^>]*\son[a-z]+\s*=`)

// requireGoAppPage fails when the binary carries no wasm: the page is
// then a static "build missing" page and the prerender is not tested.
func requireGoAppPage(t *testing.T, s *Server) {
	t.Helper()
	resp, body := s.Do(t, Request{Path: "/"})
	if eventAttr.Match(body) || scriptURL.Match(body) {
		t.Fatalf("the plain page already has an event attribute or javascript: URL; the injection checks would be blind")
	}
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `src="/app.js"`) {
		t.Fatalf("GET / is not the go-app page (status %d): build web/app.wasm first (`make wasm`; make test does it before make security)", resp.StatusCode)
	}
}

// TestInjectPageParams feeds every page parameter of / and /load each
// breakout payload and checks the prerendered HTML never carries it.
// Before the fix go-app prerendered url/model/profile into <input value=…>
// with strconv.Quote, so `"><script>` ran.
func TestInjectPageParams(t *testing.T) {
	s := Start(t)
	requireGoAppPage(t, s)
	for _, route := range []string{"/", "/load"} {
		for i, p := range breakouts {
			var leaked []string
			for _, name := range pageParams[route] {
				q := url.Values{name: {p}}
				// The dashboard's source must parse for url/model to be used;
				// send a valid one alongside unless source is the target.
				if name != "source" && route == "/load" {
					q.Set("source", "dataset:builtin")
				}
				resp, body := s.Do(t, Request{Path: route + "?" + q.Encode()})
				if resp.StatusCode != http.StatusOK {
					t.Errorf("%s?%s=…: status %d", route, name, resp.StatusCode)
					continue
				}
				html := string(body)
				if strings.Contains(html, p) || scriptURL.MatchString(html) || eventAttr.MatchString(html) {
					leaked = append(leaked, name)
				}
			}
			result := "no parameter reaches the HTML"
			if len(leaked) > 0 {
				result = fmt.Sprintf("UNESCAPED in prerendered HTML via %s", strings.Join(leaked, ","))
				t.Errorf("%s payload %d %q reached the prerendered HTML unescaped via %v", route, i+1, p, leaked)
			}
			Attack(t, "1", fmt.Sprintf("GET %s?PARAM=%s (%d params)", route, p, len(pageParams[route])), result)
		}
	}
}

// htmlRoutes are the HTML pages of a server with one imported report.
func htmlRoutes(id string) []string {
	return []string{"/", "/load", "/r/" + id, "/r/not-an-id", "/r/" + strings.Repeat("a", 32), "/compare?ids=" + id + "," + id + "x", "/history", "/runs/no-such-run", "/runs/bad%20id"}
}

// importReport archives the example duplex_metrics.json and returns its id.
func importReport(t *testing.T, s *Server) string {
	t.Helper()
	b, err := os.ReadFile("testdata/web-duplex_metrics.json")
	if err != nil {
		t.Fatal(err)
	}
	resp, body := s.Do(t, Request{Method: "POST", Path: "/api/import", Header: map[string]string{"Content-Type": "application/json"}, Body: b})
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("import: %d %s", resp.StatusCode, body)
	}
	m := regexp.MustCompile(`"id":"([a-z2-7]{32})"`).FindSubmatch(body)
	if m == nil {
		t.Fatalf("import answer has no id: %s", body)
	}
	return string(m[1])
}

// TestCSPOnEveryHTMLRoute checks every HTML response carries a strict
// CSP with frame-ancestors 'none' (before: / and /load sent none).
func TestCSPOnEveryHTMLRoute(t *testing.T) {
	s := Start(t)
	requireGoAppPage(t, s)
	id := importReport(t, s)
	want := []string{"default-src 'none'", "frame-ancestors 'none'", "object-src 'none'", "base-uri 'none'"}
	var missing []string
	for _, path := range htmlRoutes(id) {
		resp, _ := s.Do(t, Request{Path: path})
		if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
			t.Errorf("%s: Content-Type %q, want an HTML page (status %d)", path, resp.Header.Get("Content-Type"), resp.StatusCode)
			continue
		}
		csp := resp.Header.Get("Content-Security-Policy")
		for _, w := range want {
			if !strings.Contains(csp, w) {
				missing = append(missing, path)
				t.Errorf("%s (%d): CSP %q lacks %s", path, resp.StatusCode, csp, w)
				break
			}
		}
		if strings.Contains(csp, "'unsafe-inline'") && regexp.MustCompile(`script-src[^;]*'unsafe-inline'`).MatchString(csp) {
			t.Errorf("%s: CSP allows inline script: %q", path, csp)
		}
		if resp.Header.Get("X-Frame-Options") != "DENY" {
			t.Errorf("%s: X-Frame-Options %q", path, resp.Header.Get("X-Frame-Options"))
		}
	}
	result := "strict CSP with frame-ancestors 'none' on all"
	if len(missing) > 0 {
		result = "NO strict CSP on " + strings.Join(missing, " ")
	}
	Attack(t, "1", fmt.Sprintf("CSP/frame-ancestors on %d HTML routes", len(htmlRoutes(id))), result)
}
