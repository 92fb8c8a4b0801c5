//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// cspWatch records every CSP violation of the page (and of its workers'
// reports to it) in window.__csp; injected before any page script runs,
// so it is not itself subject to the page's CSP.
const cspWatch = `window.__csp=[];document.addEventListener("securitypolicyviolation",function(e){window.__csp.push(e.violatedDirective+" "+e.blockedURI)});`

func watchCSP(t *testing.T, ctx context.Context) {
	t.Helper()
	onNewDocument(t, ctx, cspWatch)
}

func cspViolations(t *testing.T, ctx context.Context) []string {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`window.__csp||["watch not installed"]`))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// pagePayloads would each set window.__pwned or the title if a URL value
// ever reached the page as markup or script.
var pagePayloads = []string{
	`"><script>window.__pwned=1</script>`,
	`'><img src=x onerror="window.__pwned=2">`,
	`</title><script>document.title="pwned"</script>`,
	`" autofocus onfocus="window.__pwned=4`,
	`javascript:window.__pwned=5`,
}

// TestPageURLParamsRunNoScript loads / and /load with every page parameter
// set to each payload in real chromium: no injected script runs, the page
// still reads the values (client side, as text), and the CSP blocks
// nothing the page itself needs.
func TestPageURLParamsRunNoScript(t *testing.T) {
	t.Parallel() // no timing bound: may run beside another test (doc.go)
	s, ctx := pageTest(t, nil, 3*time.Minute)
	watchCSP(t, ctx)
	params := []string{"url", "model", "source", "frame_ms", "profile", "behavior", "proxy", "autostart", "duration_s", "audible", "view", "probe_s", "transport", "demo", "levels", "join_s", "run_id", "shard", "watch"}
	for _, route := range []string{"/", "/load"} {
		for _, p := range pagePayloads {
			q := url.Values{}
			for _, name := range params {
				q.Set(name, p)
			}
			open(t, ctx, s.URL+route+"?"+q.Encode())
			// The wasm has rendered the page from the URL when the model
			// field holds the payload as its value.
			err := pollUntil(ctx, 60*time.Second, func() (bool, error) {
				v, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(function(){var e=document.getElementById("in-model");return e&&!document.getElementById("app-wasm-loader")?e.value:""})()`))
				return v == p, err
			})
			if err != nil {
				t.Fatalf("%s with payload %q: the page never showed the model from the URL: %v", route, p, err)
			}
			// Focus and blur what autofocus would have focused, then read.
			state, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(function(){document.querySelectorAll("input").forEach(function(i){i.focus();i.blur()});return String(window.__pwned)+"|"+document.title+"|"+document.querySelectorAll("script:not([src])").length})()`))
			if err != nil {
				t.Fatal(err)
			}
			want := "undefined|duplexscope — full-duplex speech benchmark|0"
			if state != want {
				t.Errorf("%s with payload %q: __pwned|title|inline scripts = %q, want %q", route, p, state, want)
			}
			if v := cspViolations(t, ctx); len(v) > 0 {
				t.Errorf("%s with payload %q: CSP violations %v (the payload should never reach markup)", route, p, v)
			}
		}
	}

	// A real session through the page's proxy (the embedded simulator):
	// worklets, the websocket, the service worker, the upload — no CSP
	// violation on the way.
	q := url.Values{"autostart": {"1"}, "duration_s": {"4"}, "source": {"dataset:builtin"}, "proxy": {"1"}, "model": {"sim"}}
	run := runPage(t, s, ctx, q, 2*time.Minute)
	if run.ReportID == "" {
		t.Fatalf("the proxied session archived no report")
	}
	if v := cspViolations(t, ctx); len(v) > 0 {
		t.Errorf("a proxied page session hit CSP violations: %s", strings.Join(v, "; "))
	}
	t.Logf("proxied page session archived %s", fmt.Sprint(run.ReportID))
}
