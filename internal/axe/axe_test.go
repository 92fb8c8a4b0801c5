//go:build e2e && !js

package axe_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/duplexscope/duplexscope/internal/axe"
	"github.com/duplexscope/duplexscope/internal/browsertest"
)

// TestRunFindsViolations proves the helper can fail: a page with known WCAG
// A/AA faults reports exactly those rules, a clean page reports none, and
// a strict CSP on the page does not stop the injection.
//
//	go test -tags e2e -count=1 ./internal/axe/
func TestRunFindsViolations(t *testing.T) {
	pages := map[string]string{
		"/bad": `<!doctype html><html><head><title>bad</title></head><body><main>
<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=">
<button></button>
<label>Name</label><input type="text">
</main></body></html>`,
		"/good": `<!doctype html><html lang="en"><head><title>good</title></head><body><main>
<h1>Good</h1><img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" alt="a dot">
<button type="button">Go</button>
<label for="n">Name</label><input id="n" type="text">
</main></body></html>`,
	}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Security-Policy", "default-src 'none'; img-src data:; script-src 'none'")
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(pages[r.URL.Path]))
	}))
	defer ts.Close()
	ctx, cancel := browsertest.Start(t)
	defer cancel()
	ctx, cancel = context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	for _, tc := range []struct {
		path string
		want []string // violated rule ids, sorted
	}{
		{"/bad", []string{"button-name", "html-has-lang", "image-alt", "label"}},
		{"/good", nil},
	} {
		if err := chromedp.Do(ctx, chromedp.Navigate(ts.URL+tc.path), chromedp.WaitReady("body")); err != nil {
			t.Fatal(err)
		}
		vs, err := axe.Run(ctx)
		if err != nil {
			t.Fatalf("%s: %v", tc.path, err)
		}
		var got []string
		for _, v := range vs {
			got = append(got, v.ID)
			if len(v.Nodes) == 0 || len(v.Nodes[0].Target) == 0 || v.Impact == "" {
				t.Errorf("%s: violation %s lacks its nodes/targets/impact: %+v", tc.path, v.ID, v)
			}
		}
		slices.Sort(got)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: violations %v, want %v\n%s", tc.path, got, tc.want, axe.Format(vs))
		}
	}
}
