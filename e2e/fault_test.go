//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/duplexscope/duplexscope/internal/testkit"
	"github.com/duplexscope/duplexscope/report"
	"github.com/duplexscope/duplexscope/server/archive"
)

// faultQuery is the page query that runs one session of the bundled clips
// against the simulator (fast test profile) with fault injected through
// the websocket URL's sim_fault parameter.
func faultQuery(wsBase, fault string) url.Values {
	ws := wsBase + "/v1/realtime?" + url.Values{"sim_profile": {"test"}, "sim_fault": {fault}}.Encode()
	return url.Values{"autostart": {"1"}, "duration_s": {"6"}, "source": {"dataset:builtin"}, "url": {ws}}
}

func wsOf(httpURL string) string { return "ws" + strings.TrimPrefix(httpURL, "http") }

// statusText is the page's #status line and its data-phase.
func statusText(ctx context.Context) (text, phase string, err error) {
	phase, err = attr(ctx, "#status", "data-phase")
	if err != nil {
		return "", "", err
	}
	text, err = chromedp.Run(ctx, chromedp.Evaluate[string](`(document.querySelector('#status')||{}).innerText||""`))
	return text, phase, err
}

// awaitPhase polls the #status line until want(its data-phase) holds; it
// returns the line and the phase last seen.
func awaitPhase(ctx context.Context, timeout time.Duration, want func(phase string) bool) (text, phase string, err error) {
	err = pollUntil(ctx, timeout, func() (bool, error) {
		var err error
		text, phase, err = statusText(ctx)
		return want(phase), err
	})
	return text, phase, err
}

func failed(phase string) bool { return phase == "failed" }

// TestBrowserFaults runs a page session per fault: for a fatal fault the
// page must end the session with a message naming what went wrong and
// archive the partial report flagged incomplete (incomplete_session warning,
// the failed session's error, the metrics of what arrived); a recoverable
// one completes with its fallback and warning.
func TestBrowserFaults(t *testing.T) {
	t.Parallel() // no timing bound: may run beside another test (doc.go)
	s, ctx := pageTest(t, nil, 4*time.Minute)
	cases := []struct {
		fault string
		fails bool     // the session must end with an error, the report flagged incomplete
		msg   []string // substrings of the page's status line
		rows  int      // at least this many metrics rows (what arrived)
		warn  string   // a warning code the page must show
		check func(t *testing.T, rep *report.Report)
	}{
		{fault: "disconnect_mid_response", fails: true, rows: 1, warn: report.WarnIncompleteSession,
			msg: []string{"Session ended with an error", "transport dropped without session.closed", "partial report saved"}},
		{fault: "error_event", fails: true, rows: 1, warn: report.WarnIncompleteSession,
			msg: []string{"Session ended with an error", "the server reported an error", "engine_error", "partial report saved"}},
		{fault: "unexpected_close", fails: true, rows: 1, warn: report.WarnIncompleteSession,
			msg: []string{"Session ended with an error", "unexpected session.closed: server_shutdown", "partial report saved"}},
		// Recoverable: the page completes on its receive clock.
		{fault: "no_request_metrics", rows: 1, warn: report.WarnServerMetricsMissing,
			msg: []string{"Done — report saved."}, check: func(t *testing.T, rep *report.Report) {
				for _, r := range rep.Metrics.Requests {
					if r.Source != report.SourceClient || r.TTFPMs == nil {
						t.Errorf("row %v: source %q ttfp %v, want the client receive clock fallback", r.ResponseID, r.Source, r.TTFPMs)
					}
				}
			}},
		// Legacy audio names: no vLLM timing by definition, but the page plays the audio.
		{fault: "legacy_audio", warn: report.WarnLegacyEventNames,
			msg: []string{"Done — report saved."}, check: func(t *testing.T, rep *report.Report) {
				for _, r := range rep.Metrics.Requests {
					if r.TTFPMs != nil || r.Source != "" {
						t.Errorf("row %v has timing (source %q) from legacy-named audio", r.ResponseID, r.Source)
					}
				}
				heard := 0
				for _, x := range rep.Responses {
					if x.HeardTTFPMs != nil {
						heard++
					}
				}
				if heard == 0 {
					t.Errorf("responses %+v: none played (heard_ttfp_ms), want the legacy audio played", rep.Responses)
				}
			}},
		// The server stops reading for 1 s: the page keeps receiving and completes.
		{fault: "stalled_reader", rows: 1, warn: "",
			msg: []string{"Done — report saved."}},
	}
	for _, tc := range cases {
		t.Run(tc.fault, func(t *testing.T) {
			q := faultQuery(wsOf(s.URL), tc.fault)
			open(t, ctx, s.URL+"/?"+q.Encode())
			var text, phase string
			err := pollUntil(ctx, 2*time.Minute, func() (bool, error) {
				var err error
				text, phase, err = statusText(ctx)
				if err != nil {
					return false, err
				}
				id, err := attr(ctx, "#share", "data-report-id")
				return phase == "done" && id != "", err
			})
			if err != nil {
				screenshot(t, ctx, "failure-fault-"+tc.fault)
				t.Fatalf("waiting for the archived report: %v (phase %q, status %q)", err, phase, text)
			}
			t.Logf("%s: page status (phase %s): %q", tc.fault, phase, text)
			testkit.Mentions(t, fmt.Sprintf("status %q", text), text, tc.msg, nil)
			id, _ := attr(ctx, "#share", "data-report-id")
			rep := checkArchived(t, s, id, !tc.fails, tc.rows)
			if tc.check != nil {
				tc.check(t, rep)
			}
			// The simulator's side of the session is over too (nothing left open).
			if len(rep.Sessions) == 1 {
				tr, ok := s.Sim.Truth(rep.Sessions[0].SessionID)
				if !ok || tr.EndedMs == nil {
					t.Errorf("simulator session %s: truth found %v, ended %v: want it ended", rep.Sessions[0].SessionID, ok, tr.EndedMs)
				} else {
					t.Logf("simulator session %s ended: %s", tr.SessionID, tr.EndReason)
				}
			}
			codes, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll('#warnings li[data-code]')).map(e=>e.dataset.code)`))
			if err != nil || (tc.warn != "" && !slices.Contains(codes, tc.warn)) || slices.Contains(codes, report.WarnIncompleteSession) != tc.fails {
				t.Errorf("page warnings %v (%v), want %s shown and %s shown = %v", codes, err, tc.warn, report.WarnIncompleteSession, tc.fails)
			}
		})
	}
}

// checkArchived fetches report id from the archive and asserts its
// complete flag (an incomplete one carries the incomplete_session warning
// and its session's error) and that at least minRows metrics rows arrived;
// it returns the report.
func checkArchived(t *testing.T, s *stack, id string, complete bool, minRows int) *report.Report {
	t.Helper()
	rep, err := report.Decode(s.getJSON(t, "/api/reports/"+id, nil), report.DefaultLimits)
	if err != nil {
		t.Fatalf("GET /api/reports/%s: %v", id, err)
	}
	if rep.Complete != complete {
		t.Errorf("archived report %s: complete = %v, want %v", id, rep.Complete, complete)
	}
	if slices.ContainsFunc(rep.Warnings, func(w report.Warning) bool { return w.Code == report.WarnIncompleteSession }) == complete {
		t.Errorf("archived report %s: warnings %+v: want %s present = %v", id, rep.Warnings, report.WarnIncompleteSession, !complete)
	}
	if len(rep.Sessions) != 1 || rep.Sessions[0].Complete != complete || (rep.Sessions[0].Error == "") != complete {
		t.Errorf("archived sessions %+v: want one session, complete=%v, with its error when incomplete", rep.Sessions, complete)
	}
	if len(rep.Metrics.Requests) < minRows {
		t.Errorf("archived report %s: %d metrics rows, want ≥ %d (what arrived)", id, len(rep.Metrics.Requests), minRows)
	}
	t.Logf("archived report %s: complete=%v, %d metrics rows, warnings %d, session error %q", id, rep.Complete, len(rep.Metrics.Requests), len(rep.Warnings), sessionErr(rep))
	// The listing says the same.
	var page struct {
		Reports []archive.Meta `json:"reports"`
	}
	s.getJSON(t, "/api/reports?limit=500", &page)
	i := slices.IndexFunc(page.Reports, func(m archive.Meta) bool { return m.ID == id })
	if i < 0 || page.Reports[i].Complete != complete {
		t.Errorf("GET /api/reports: entry for %s %+v, want listed with complete=%v", id, page.Reports, complete)
	}
	return rep
}

// TestPendingUploadLostAck: the archive stores the page's upload but the
// answer is lost (the page sees a 503), so the page queues the report in
// localStorage. On the next visit it re-sends it with the same
// Idempotency-Key: the archive answers with the stored report (replayed),
// the queue empties, the wire log attachment arrives, and the archive holds
// exactly one copy. The queued run is a
// faulty (error_event) session, so what is delivered is a partial report.
func TestPendingUploadLostAck(t *testing.T) {
	t.Parallel() // no timing bound: may run beside another test (doc.go)
	requireBuild(t)
	s := startStack(t)
	front := testkit.NewLossyGateway(t, s.Server) // closes after the browser

	ctx := browser(t, fakeMic, 4*time.Minute)
	stored := func() []archive.Meta {
		page, err := s.Store.List(ctx, archive.Filter{})
		if err != nil {
			t.Fatal(err)
		}
		return page.Items
	}

	// 1. The session (error_event) ends; its upload is stored, the answer lost.
	front.Lose.Store(true)
	q := faultQuery(wsOf(front.URL), "error_event")
	open(t, ctx, front.URL+"/?"+q.Encode())
	if err := awaitKept(ctx, 2*time.Minute); err != nil {
		text, phase, _ := statusText(ctx)
		t.Fatalf("the page never said the run was kept: %v (phase %q, status %q)", err, phase, text)
	}
	if n, err := pendingUploads(ctx); err != nil || n != 1 {
		t.Fatalf("pending uploads in localStorage: %d (%v), want 1", n, err)
	}
	items := stored()
	if len(items) != 1 {
		t.Fatalf("archive holds %d reports after the lost answer, want 1 (it stored the upload)", len(items))
	}
	id := items[0].ID
	posts := front.Posts()
	if len(posts) != 1 || posts[0].Code != http.StatusCreated || !posts[0].Lost || !strings.HasPrefix(posts[0].Key, "ds-") {
		t.Fatalf("POSTs so far %+v, want one stored (201) whose answer was lost, with an Idempotency-Key", posts)
	}
	key := posts[0].Key
	if code := statusOf(t, s.URL+"/api/reports/"+id+"/attachments/wire-log.json"); code != http.StatusNotFound {
		t.Fatalf("wire log before the retry: %d, want 404 (the page never got the id)", code)
	}

	// 2. Next visit, answers get through: the queue is delivered once.
	front.Lose.Store(false)
	open(t, ctx, front.URL+"/")
	if err := pollUntil(ctx, time.Minute, func() (bool, error) {
		n, err := pendingUploads(ctx)
		return n == 0, err
	}); err != nil {
		t.Fatalf("the queued report was never acknowledged: %v", err)
	}
	got := front.Posts()
	if len(got) != 2 || got[1].Key != key || got[1].Code != http.StatusCreated || !got[1].Replayed || got[1].Lost {
		t.Errorf("POSTs %+v, want exactly 2 with key %s, the retry answered 201 Idempotent-Replayed", got, key)
	}
	if items := stored(); len(items) != 1 || items[0].ID != id {
		t.Errorf("archive holds %+v, want exactly the one report %s", items, id)
	}
	if code := statusOf(t, s.URL+"/api/reports/"+id+"/attachments/wire-log.json"); code != http.StatusOK {
		t.Errorf("wire log after the retry: %d, want 200", code)
	}
	checkArchived(t, s, id, false, 1)
}

func statusOf(t *testing.T, u string) int {
	t.Helper()
	res, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode
}

func sessionErr(r *report.Report) string {
	if len(r.Sessions) == 0 {
		return ""
	}
	return r.Sessions[0].Error
}

// TestFailedUploadIsRetried: when the archive refuses the upload, the page
// keeps the report in browser storage and delivers it on the next visit
// (same Idempotency-Key, so a retry can never store it twice).
func TestFailedUploadIsRetried(t *testing.T) {
	t.Parallel() // no timing bound: may run beside another test (doc.go)
	s, ctx := pageTest(t, nil, 3*time.Minute)
	s.FailUploads.Store(true)
	q := url.Values{"autostart": {"1"}, "duration_s": {"6"}, "source": {"dataset:builtin"}}
	open(t, ctx, s.URL+"/?"+q.Encode())
	if err := awaitKept(ctx, 2*time.Minute); err != nil {
		t.Fatalf("the page never said the run was kept: %v", err)
	}
	n, err := pendingUploads(ctx)
	if err != nil || n != 1 {
		t.Fatalf("pending uploads in localStorage: %d (%v), want 1", n, err)
	}
	if page, _ := s.Store.List(ctx, archive.Filter{}); len(page.Items) != 0 {
		t.Fatalf("archive holds %d reports while uploads fail", len(page.Items))
	}
	s.FailUploads.Store(false)
	open(t, ctx, s.URL+"/")
	if err := pollUntil(ctx, time.Minute, func() (bool, error) {
		page, err := s.Store.List(ctx, archive.Filter{})
		return len(page.Items) == 1, err
	}); err != nil {
		t.Fatalf("the kept report never reached the archive: %v", err)
	}
	if err := pollUntil(ctx, 30*time.Second, func() (bool, error) {
		n, err := pendingUploads(ctx)
		return n == 0, err
	}); err != nil {
		t.Errorf("the delivered report is still queued: %v", err)
	}
}
