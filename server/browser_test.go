//go:build e2e && !js

package server_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/duplexscope/duplexscope/report"
	"github.com/duplexscope/duplexscope/server/archive"
)

// TestBrowserHostilePages opens the share, compare and history pages of a
// report whose every string field carries script in real chromium and
// proves no injected script ran, while our own charts did render (so the
// CSP allows what it must and nothing else).
//
//	go test -tags e2e -run TestBrowser ./server/
func TestBrowserHostilePages(t *testing.T) {
	e := newBrowserEnv(t)
	const x = `</script><script>window.__pwned=1</script><img src=x onerror="window.__pwned=2"><svg onload="window.__pwned=3">"'`
	hostile := fixture{model: "m" + x, n: 5, ttfp: 300, session: "s" + x, edit: func(r *report.Report) {
		r.Run.Profile, r.Run.TargetURL = x, "javascript:window.__pwned=4//"+x
		r.Run.Name, r.Run.Notes, r.Run.Tags = x, x+"\n"+x, []string{`<img src=x onerror="window.__pwned=5">`} // a tag is at most 64 characters
		r.Run.Machine = report.Machine{OS: x, UserAgent: x}
		r.Run.Source = report.Source{Kind: report.SourceDataset, Dataset: x, Split: x}
		r.Warnings = []report.Warning{{Code: report.WarnPacingLag, Message: x, SessionID: x}}
		r.Sessions[0].Error = x
	}}.json(t)
	// Uploads now refuse a javascript: target_url (report validation), but
	// an archive written before that rule may hold one: store it directly,
	// as such an archive would, and show the pages still render it inert.
	var rep report.Report
	if err := json.Unmarshal(hostile, &rep); err != nil {
		t.Fatal(err)
	}
	rec, err := archive.NewRecord(&rep, archive.NewID(), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.store.Put(context.Background(), rec, ""); err != nil {
		t.Fatal(err)
	}
	id := rec.ID
	other := upload(t, e, fixture{model: "plain", n: 5, ttfp: 350}.json(t))

	ctx := openBrowser(t, 60*time.Second)
	for _, path := range []string{"/r/" + id, "/compare?ids=" + id + "," + other, "/history"} {
		if err := chromedp.Do(ctx, chromedp.Navigate(e.http.URL+path), chromedp.WaitReady("body"),
			chromedp.Sleep(500*time.Millisecond)); err != nil { // let injected onload/onerror handlers fire, if any
			t.Fatalf("%s: %v", path, err)
		}
		pwned, err := chromedp.Run(ctx, chromedp.Evaluate[*float64](`window.__pwned === undefined ? null : window.__pwned`))
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		rendered, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('[data-rendered="1"]').length`))
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if pwned != nil {
			t.Errorf("%s: injected script ran (window.__pwned = %v)", path, *pwned)
		}
		if !strings.HasPrefix(path, "/history") && rendered == 0 {
			t.Errorf("%s: no chart rendered: our own scripts were blocked", path)
		}
	}
}
