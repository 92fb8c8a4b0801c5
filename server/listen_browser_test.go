//go:build e2e && !js

package server_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/duplexscope/duplexscope/internal/browsertest"
)

// pollJS evaluates a boolean expression until it holds (or ctx ends).
func pollJS(ctx context.Context, t *testing.T, what, expr string) {
	t.Helper()
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](expr, chromedp.WithPollingInterval(50*time.Millisecond))); err != nil {
		t.Fatalf("%s (%s): %v", what, expr, err)
	}
}

// TestBrowserShareListen opens the share page of an archived run with a
// wire log in chromium: the player plays the session (currentTime
// advances after play()), a reply's transcript is shown, the session
// timeline's two lanes are drawn on one time axis; then the HTML export,
// opened from a file:// path, draws its chart without a network request.
//
//	go test -tags e2e -count=1 -run TestBrowserShareListen ./server/
func TestBrowserShareListen(t *testing.T) {
	e := newBrowserEnv(t)
	id := uploadWithWireLog(t, e, wireLog(t, "is the table free"), nil)

	// The page's autoplay needs no click (browsertest's flags); the export
	// opens later in a second tab of the same browser, outside this timeout.
	bctx, cancel := browsertest.Start(t)
	defer cancel()
	ctx, cancelT := context.WithTimeout(bctx, 90*time.Second)
	defer cancelT()

	if err := chromedp.Do(ctx, chromedp.Navigate(e.http.URL+"/r/"+id), chromedp.WaitReady("body")); err != nil {
		t.Fatal(err)
	}
	// The player plays the rebuilt session.
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(document.querySelector('audio[data-lane="mix"]').play().then(() => window.__played = true, e => window.__played = String(e)), true)`)); err != nil {
		t.Fatal(err)
	}
	pollJS(ctx, t, "the mixed lane plays", `window.__played === true && document.querySelector('audio[data-lane="mix"]').currentTime > 0.3`)
	dur, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`document.querySelector('audio[data-lane="mix"]').duration`))
	if err != nil {
		t.Fatal(err)
	}
	if dur < 2.99 || dur > 3.01 {
		t.Errorf("player duration = %.3f s, want the session's 3 s", dur)
	}
	// The transcripts are on the page.
	said, err := chromedp.Run(ctx, chromedp.Evaluate[string](`Array.from(document.querySelectorAll('#transcripts li')).map(li => li.dataset.speaker + ': ' + li.innerText).join('\n')`))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"model: model", "Hello <b>there</b>", "user: user", "is the table free"} {
		if !strings.Contains(said, w) {
			t.Errorf("transcripts lack %q:\n%s", w, said)
		}
	}
	// A transcript line's time seeks the paused player there and plays:
	// a seeked event at the line's time (no seek happens otherwise).
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(function(a){ a.pause(); a.currentTime = 0; return true })(document.querySelector('audio[data-lane="mix"]'))`)); err != nil {
		t.Fatal(err)
	}
	pollJS(ctx, t, "the reset seek ends", `!document.querySelector('audio[data-lane="mix"]').seeking`)
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(function(a){ a.addEventListener('seeked', function(){ window.__seekedTo = a.currentTime }, {once: true}); return true })(document.querySelector('audio[data-lane="mix"]'))`)); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#transcripts li[data-response="resp_0"] button.seek`))); err != nil {
		t.Fatal(err)
	}
	pollJS(ctx, t, "the seek button seeks to the reply's start and plays", `window.__seekedTo >= 1.24 && window.__seekedTo < 1.3 && !document.querySelector('audio[data-lane="mix"]').paused`)
	// The session timeline's lanes share one axis: the drawn extents match.
	pollJS(ctx, t, "the session timeline renders", `document.getElementById('chart-session') && document.getElementById('chart-session').dataset.rendered === "1"`)
	ext, err := chromedp.Run(ctx, chromedp.Evaluate[[][]float64](`(() => {
		const c = echarts.getInstanceByDom(document.getElementById('chart-session'));
		const m = c.getModel();
		return [0, 1].map(i => m.getComponent('xAxis', i).axis.scale.getExtent());
	})()`))
	if err != nil {
		t.Fatal(err)
	}
	if len(ext) != 2 || len(ext[0]) != 2 || len(ext[1]) != 2 || ext[0][0] != ext[1][0] || ext[0][1] != ext[1][1] || ext[0][1] < 3 {
		t.Errorf("lane axes drawn as %v, want one shared range covering the 3 s session", ext)
	}

	// The export, from a file, offline.
	code, hdr, body := e.do("GET", "/api/reports/"+id+"/export?format=html", nil)
	if code != 200 {
		t.Fatalf("export = %d", code)
	}
	t.Logf("export: %d bytes; Content-Disposition %q; Content-Security-Policy %q", len(body), hdr.Get("Content-Disposition"), hdr.Get("Content-Security-Policy"))
	file := filepath.Join(t.TempDir(), "export.html")
	if err := os.WriteFile(file, body, 0o644); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var outside []string
	fctx, fcancel := chromedp.NewContext(bctx, chromedp.WithListener(func(ev any) {
		if r, ok := ev.(*network.EventRequestWillBeSent); ok {
			u := r.Request.URL
			if !strings.HasPrefix(u, "file://") && !strings.HasPrefix(u, "data:") {
				mu.Lock()
				outside = append(outside, u)
				mu.Unlock()
			}
		}
	}))
	defer fcancel()
	fctx, fcancel = context.WithTimeout(fctx, 60*time.Second)
	defer fcancel()
	if err := chromedp.Do(fctx, chromedp.Navigate("file://"+file), chromedp.WaitReady("body")); err != nil {
		t.Fatal(err)
	}
	pollJS(fctx, t, "the export draws its charts", `document.querySelectorAll('[data-rendered="1"]').length === document.querySelectorAll('script[data-chart]').length && document.getElementById('chart-session').dataset.rendered === "1"`)
	pollJS(fctx, t, "the export's audio loads", `document.querySelector('audio[data-lane="mix"]').readyState >= 1 && Math.abs(document.querySelector('audio[data-lane="mix"]').duration - 3) < 0.01`)
	mu.Lock()
	defer mu.Unlock()
	if len(outside) > 0 {
		t.Errorf("the export opened from a file requested %v", outside)
	}
}

// TestBrowserShareListenShot writes a screenshot of the share page with
// the player (set DS_SHOT=path).
func TestBrowserShareListenShot(t *testing.T) {
	out := os.Getenv("DS_SHOT")
	if out == "" {
		t.Skip("DS_SHOT not set")
	}
	e := newBrowserEnv(t)
	id := uploadWithWireLog(t, e, wireLog(t, "is the table free"), nil)
	ctx, cancel := browsertest.Start(t, browsertest.WindowSize(1200, 900))
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.Navigate(e.http.URL+"/r/"+id), chromedp.WaitReady("body")); err != nil {
		t.Fatal(err)
	}
	pollJS(ctx, t, "rendered", `document.getElementById('chart-session').dataset.rendered === "1"`)
	b, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(out, b, 0o644)
}
