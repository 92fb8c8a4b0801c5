//go:build e2e && !js

package server_test

import (
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/duplexscope/duplexscope/internal/axe"
	"github.com/duplexscope/duplexscope/internal/browsertest"
	"github.com/duplexscope/duplexscope/report"
)

// TestBrowserAccessibleServerPages runs axe-core's WCAG 2.0/2.1 A and AA
// rules on the server-rendered pages of a rich report (warnings, a load
// curve, many responses): the share page at desktop and phone width,
// history and compare, and again at phone width (390 px), where no page
// may scroll sideways.
//
//	go test -tags e2e -count=1 -run TestBrowserAccessible ./server/
func TestBrowserAccessibleServerPages(t *testing.T) {
	e := newBrowserEnv(t)
	rich := fixture{model: "minicpm-o-4.5", n: 40, ttfp: 900, seed: 9, edit: func(r *report.Report) {
		withLoadCurve(r)
		r.Warnings = append(r.Warnings, report.Warning{Code: report.WarnTabHidden, Message: report.WarningCodes[report.WarnTabHidden], SessionID: "sess-1"})
	}}
	a := upload(t, e, rich.json(t))
	b := upload(t, e, fixture{model: "minicpm-o-4.5", n: 40, ttfp: 700, seed: 10}.json(t))

	ctx := openBrowser(t, 2*time.Minute, browsertest.WindowSize(1360, 900))
	for _, tc := range []struct {
		name, path string
		width      int64 // 0: desktop
	}{
		{"share", "/r/" + a, 0},
		{"history", "/history", 0},
		{"compare", "/compare?ids=" + a + "," + b, 0},
		{"share at 390 px", "/r/" + a, 390},
		{"history at 390 px", "/history", 390},
		{"compare at 390 px", "/compare?ids=" + a + "," + b, 390},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := tc.width
			if w == 0 {
				w = 1360
			}
			if err := chromedp.Do(ctx, chromedp.EmulateViewport(w, 900), chromedp.Navigate(e.http.URL+tc.path), chromedp.WaitReady("body")); err != nil {
				t.Fatal(err)
			}
			if err := chromedp.Do(ctx, chromedp.Poll[chromedp.Void](
				`[...document.querySelectorAll('.chart')].every(e => e.getAttribute('data-rendered') === '1')`, chromedp.WithPollingTimeout(10*time.Second))); err != nil {
				t.Errorf("charts not drawn: %v", err)
			}
			axe.Check(t, ctx, tc.path+" at "+strconv.FormatInt(w, 10)+" px")
			if tc.width == 0 {
				return
			}
			sw, err := chromedp.Run(ctx, chromedp.Evaluate[[]int](`[document.documentElement.scrollWidth, window.innerWidth]`))
			if err != nil {
				t.Fatal(err)
			}
			if sw[1] != int(w) || sw[0] > sw[1] {
				t.Errorf("scrollWidth %d, innerWidth %d: want innerWidth %d and no horizontal scroll", sw[0], sw[1], w)
			} else {
				t.Logf("%s at %d px: scrollWidth %d <= innerWidth %d", tc.path, w, sw[0], sw[1])
			}
		})
	}
}
