//go:build e2e

package e2e

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/duplexscope/duplexscope/report"
)

// TestShareBoxLabels: after a saved run the share box names, notes and
// tags it. On an archive with a write token the sign-in cookie is then
// dropped, so the PATCH can only pass on the report capability the page
// uploaded with; the archive holds the labels and the share page shows
// them.
func TestShareBoxLabels(t *testing.T) {
	t.Parallel() // no timing bound: may run beside another test (doc.go)
	s, ctx, run := signedInRun(t)
	if err := chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, network.ClearBrowserCookies, cdp.Empty{})
		return err
	})); err != nil {
		t.Fatal(err)
	}
	// Signed out now: only the page's capability can authorise the PATCH.
	if code, err := chromedp.Run(ctx, chromedp.Evaluate[int](`fetch("/api/reports").then(r => r.status)`, chromedp.EvalAwaitPromise)); err != nil || code != 401 {
		t.Fatalf("after clearing cookies GET /api/reports = %d (%v), want 401 (still signed in?)", code, err)
	}
	if err := chromedp.Do(ctx,
		chromedp.WaitVisible(chromedp.CSS("#labels-name")),
		chromedp.SendKeys(chromedp.CSS("#labels-name"), "fake mic, builtin"),
		chromedp.SendKeys(chromedp.CSS("#labels-notes"), "first line"),
		chromedp.SendKeys(chromedp.CSS("#labels-tags"), "e2e, gpu-a"),
		chromedp.Click(chromedp.CSS("#labels-save")),
	); err != nil {
		t.Fatalf("labels form: %v", err)
	}
	var status string
	if err := pollUntil(ctx, 30*time.Second, func() (bool, error) {
		var err error
		status, err = chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#labels-status")))
		return strings.HasPrefix(status, "Saved") || strings.HasPrefix(status, "Not saved"), err
	}); err != nil || !strings.HasPrefix(status, "Saved") {
		t.Fatalf("labels status %q (%v), want Saved", status, err)
	}
	rec, err := s.Store.Get(ctx, run.ReportID)
	if err != nil {
		t.Fatal(err)
	}
	r, err := report.Decode(rec.Body, report.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	if r.Run.Name != "fake mic, builtin" || r.Run.Notes != "first line" || strings.Join(r.Run.Tags, ",") != "e2e,gpu-a" {
		t.Errorf("archived labels %q %q %q", r.Run.Name, r.Run.Notes, r.Run.Tags)
	}
	// A bad value is refused on the page with the field named, nothing sent.
	if err := chromedp.Do(ctx, chromedp.SetValue(chromedp.CSS("#labels-tags"), "a, a"), chromedp.Click(chromedp.CSS("#labels-save"))); err != nil {
		t.Fatal(err)
	}
	if err := pollUntil(ctx, 10*time.Second, func() (bool, error) {
		var err error
		status, err = chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#labels-status")))
		return strings.Contains(status, "duplicate tag"), err
	}); err != nil {
		t.Errorf("duplicate tags: status %q, want it refused on the page", status)
	}
	open(t, ctx, s.URL+"/r/"+run.ReportID, chromedp.WaitVisible(chromedp.CSS("#run-labels")))
	h1, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("h1")))
	tags, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#run-labels .tags")))
	if h1 != "fake mic, builtin" || !strings.Contains(tags, "gpu-a") {
		t.Errorf("share page heading %q tags %q, want the run's name and tags", h1, tags)
	}
	badges, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`[...document.querySelectorAll('#run-labels [data-badge]')].map(b => b.dataset.badge + "=" + b.dataset.value).join(" ")`))
	if !strings.Contains(badges, "client=browser") || !strings.Contains(badges, "target=sim") {
		t.Errorf("share page badges %q, want client=browser target=sim (the page ran against this server's simulator)", badges)
	}
}

// TestFailedStartListed: a page run whose server refuses the connection is
// archived as a failed run (no responses, complete false, the reason kept)
// and history lists it with the "incomplete" badge, next to a run that
// worked.
func TestFailedStartListed(t *testing.T) {
	t.Parallel() // no timing bound: may run beside another test (doc.go)
	s, ctx := pageTest(t, nil, 2*time.Minute)
	q := url.Values{"autostart": {"1"}, "duration_s": {"4"}, "source": {"dataset:builtin"}, "url": {"ws://127.0.0.1:9/v1/realtime"}}
	open(t, ctx, s.URL+"/?"+q.Encode())
	var id string
	if err := pollUntil(ctx, time.Minute, func() (bool, error) {
		phase, err := attr(ctx, "#status", "data-phase")
		if err != nil || phase != "failed" {
			return false, err
		}
		id, err = attr(ctx, "#share", "data-report-id")
		return id != "", err
	}); err != nil {
		status, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#status")))
		t.Fatalf("the failed run was not saved: %v (status %q)", err, status)
	}
	rec, err := s.Store.Get(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	r, err := report.Decode(rec.Body, report.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	if r.Complete || len(r.Sessions) != 1 || r.Sessions[0].Error == "" || len(r.Metrics.Requests) != 0 {
		t.Errorf("failed run archived as complete=%v sessions %+v rows %d", r.Complete, r.Sessions, len(r.Metrics.Requests))
	}
	open(t, ctx, s.URL+"/history", chromedp.WaitVisible(chromedp.CSS("#runs")))
	row, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(document.querySelector('tr[data-id="`+id+`"]')||{}).outerHTML||""`))
	if err != nil || !strings.Contains(row, `data-value="incomplete"`) || !strings.Contains(row, `data-complete="false"`) || !strings.Contains(row, `data-value="server"`) {
		t.Errorf("history row of the failed run: %q (%v), want it listed with the incomplete and real-server badges", row, err)
	}
}
