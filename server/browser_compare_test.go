//go:build e2e && !js

package server_test

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/duplexscope/duplexscope/report"
)

// TestBrowserHistoryCompare: in real chromium, history → tick two runs →
// click Compare opens /compare with both (a plain form GET under the strict
// CSP, no script of ours involved), and the compare headline agrees with
// the rows below it (the slower run's regression rows are said). Then the
// share page's "Compare with…" makes its run the baseline.
//
//	go test -tags e2e -count=1 -run '^TestBrowserHistoryCompare' ./server/
func TestBrowserHistoryCompare(t *testing.T) {
	e := newBrowserEnv(t)
	named := func(name string) func(*report.Report) { return func(r *report.Report) { r.Run.Name = name } }
	base := upload(t, e, fixture{model: "m", n: 40, ttfp: 400, seed: 1, edit: named("fp16 baseline")}.json(t))
	e.clock.Advance(time.Second)
	upload(t, e, fixture{model: "m", n: 40, ttfp: 410, seed: 9, edit: named("unticked run")}.json(t))
	e.clock.Advance(time.Second)
	slower := upload(t, e, fixture{model: "m", n: 40, ttfp: 700, seed: 2, edit: named("fp8 build")}.json(t))

	ctx := openBrowser(t, 60*time.Second)

	// headlineAgrees reads the compare page as a person would: its headline
	// text and the verdict column of every row.
	headlineAgrees := func(where string) (string, []string) {
		t.Helper()
		headline, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#verdict")))
		if err != nil {
			t.Fatalf("%s: %v", where, err)
		}
		rows, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('#deltas tbody tr')].map(r => r.cells[r.cells.length-1].textContent.trim())`))
		if err != nil {
			t.Fatalf("%s: %v", where, err)
		}
		if len(rows) == 0 {
			t.Fatalf("%s: the compare page has no rows", where)
		}
		n := map[string]int{}
		for _, v := range rows {
			n[v]++
		}
		switch {
		case n["regression"] > 0 && (!strings.Contains(headline, "Regression") || strings.Contains(headline, "No significant change")):
			t.Errorf("%s: %d regression rows under the headline %q", where, n["regression"], headline)
		case n["regression"] == 0 && n["improvement"] == 0 && n["not-enough-data"] == 0 && !strings.Contains(headline, "No significant change"):
			t.Errorf("%s: only unchanged rows under the headline %q", where, headline)
		}
		t.Logf("%s: headline %q over %d rows %v", where, headline, len(rows), n)
		return headline, rows
	}

	// A click that navigates goes through clickTo, which waits for the new
	// page: a query run while the old document is replaced can hold a node
	// of it ("No node with given id found").
	clickTo := func(where, sel string) {
		t.Helper()
		if _, err := chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS(sel))); err != nil {
			t.Fatalf("%s: clicking %s: %v", where, sel, err)
		}
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(e.http.URL+"/history"), chromedp.WaitVisible(chromedp.CSS("#compare-button")),
		chromedp.Click(chromedp.CSS("#pick-"+slower)), chromedp.Click(chromedp.CSS("#pick-"+base))); err != nil {
		t.Fatalf("history → compare: %v", err)
	}
	clickTo("history → compare", "#compare-button")
	if err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS("#deltas"))); err != nil {
		t.Fatalf("history → compare: %v", err)
	}
	loc, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil {
		t.Fatal(err)
	}
	// History lists newest first: the slower run was ticked at the top, so
	// it is the baseline (A) and the older run B.
	if !strings.Contains(loc, "/compare?ids="+slower+"&ids="+base) {
		t.Errorf("Compare opened %s, want /compare with both ticked runs in list order", loc)
	}
	heads, err := chromedp.Run(ctx, chromedp.Evaluate[string](`[...document.querySelectorAll('table.kv thead th')].map(th => th.textContent).join(' | ')`))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(heads, "A: fp8 build") || !strings.Contains(heads, "B: fp16 baseline") || strings.Contains(heads, "unticked") {
		t.Errorf("compare columns %q, want the two ticked runs by name", heads)
	}
	headline, _ := headlineAgrees("history → compare")
	if !strings.Contains(headline, "Improvement") {
		t.Errorf("baseline fp8 (slower) vs fp16: headline %q, want an improvement", headline)
	}

	// Share page → "Compare with…" → tick the slower run → the shared run is the baseline.
	if err := chromedp.Do(ctx, chromedp.Navigate(e.http.URL+"/r/"+base)); err != nil {
		t.Fatalf("share → compare with: %v", err)
	}
	clickTo("share → compare with", "#compare-with")
	if err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS("#compare-pick")), chromedp.Click(chromedp.CSS("#pick-"+slower))); err != nil {
		t.Fatalf("share → compare with: %v", err)
	}
	clickTo("share → compare with", "#compare-button")
	if err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS("#deltas"))); err != nil {
		t.Fatalf("share → compare with: %v", err)
	}
	if loc, _ := chromedp.Run(ctx, chromedp.Location()); !strings.Contains(loc, "ids="+base+"&ids="+slower) {
		t.Errorf("compare with… opened %s, want the shared run first", loc)
	}
	headline, rows := headlineAgrees("share → compare with")
	if !strings.Contains(headline, "Regression") || !strings.Contains(strings.Join(rows, " "), "regression") {
		t.Errorf("fp16 baseline vs fp8: headline %q rows %v, want regression rows and a headline saying so", headline, rows)
	}
}
