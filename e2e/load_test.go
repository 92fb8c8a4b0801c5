//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"net/url"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/duplexscope/duplexscope/audio"
	"github.com/duplexscope/duplexscope/metrics"
	"github.com/duplexscope/duplexscope/metrics/loadcurve"
	"github.com/duplexscope/duplexscope/report"
	"github.com/duplexscope/duplexscope/server/loadrun"
	"github.com/duplexscope/duplexscope/trace"
)

// loadPage opens /load?query in ctx and waits for the saved report's id,
// recording the most chart points seen while the run was still going.
func loadPage(t *testing.T, s *stack, ctx context.Context, query url.Values, timeout time.Duration) (id string, livePoints int) {
	t.Helper()
	open(t, ctx, s.URL+"/load?"+query.Encode())
	id = awaitShare(t, ctx, "#load-status", timeout, func(phase string) {
		if phase == "streaming" {
			if v, _ := attr(ctx, "#chart-load", "data-points"); v != "" {
				n, _ := strconv.Atoi(v)
				livePoints = max(livePoints, n)
			}
		}
	})
	return id, livePoints
}

// TestPageLoadCurve: /load runs N = 1, 2 (plus a joiner each) against the
// simulator from the page's audio clock, draws the curve while it runs,
// and archives it; every session's TTFP is the simulator's truth (server
// clock), and each level's p50/p99 is the nearest rank of those truths.
func TestPageLoadCurve(t *testing.T) {
	t.Parallel() // no timing bound: may run beside another test (doc.go)
	s, ctx := pageTest(t, nil, 3*time.Minute)
	start := time.Now()
	// contended: every other open session adds 40 ms to a turn's TTFP (a
	// shared GPU), so the curve has a slope to see.
	q := url.Values{"autostart": {"1"}, "levels": {"1,2"}, "profile": {"test"}, "join_s": {"0.6"}, "url": {wsURL(s) + "?sim_behavior=contended"}}
	id, live := loadPage(t, s, ctx, q, 2*time.Minute)
	t.Logf("load curve 1,2 in the page: %.1f s; most chart points while running: %d", time.Since(start).Seconds(), live)
	if live < 1 {
		t.Errorf("no chart point appeared while the run was going (live view)")
	}
	screenshot(t, ctx, "load")
	if pts, _ := attr(ctx, "#chart-load", "data-points"); pts != "2" {
		t.Errorf("final chart has %q points, want 2", pts)
	}
	b := s.getJSON(t, "/api/reports/"+id, nil)
	rep, err := report.Decode(b, report.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	lc := rep.LoadCurve
	if lc == nil || len(lc.Levels) != 2 || len(lc.Sessions) != 5 || rep.Run.Client != report.ClientBrowser || !rep.Complete {
		t.Fatalf("report: load curve %+v, client %q, complete %v", lc, rep.Run.Client, rep.Complete)
	}
	ttfps := checkLoadTruths(t, s, lc)
	for _, l := range lc.Levels {
		v := ttfps[l.Sessions]
		sort.Float64s(v)
		if len(v) == 0 || l.TTFPP50Ms == nil || *l.TTFPP50Ms != metrics.Round(metrics.Percentile(v, 0.5), 3) || *l.TTFPP99Ms != metrics.Round(metrics.Percentile(v, 0.99), 3) ||
			l.Reported != l.Sessions+1 || l.Failed != 0 || l.JoinTTFPMs == nil || l.TTFPOrigin != loadcurve.OriginServer {
			t.Errorf("level %d: %+v; truth TTFPs %v", l.Sessions, l, v)
		}
		t.Logf("level %d: TTFP p50 %.1f p99 %.1f ms (server clock), join %.1f ms, RTF p50 %v, pacing lag p99 %.2f ms, underruns %d",
			l.Sessions, *l.TTFPP50Ms, *l.TTFPP99Ms, deref(l.JoinTTFPMs), deref(l.RTFP50), l.PacingLagP99Ms, l.Underruns)
	}
	// Level 2's sessions start together, so each one's first turn meets
	// the other open: at least 30 + 40 ms.
	if l := lc.Levels[1]; l.TTFPP99Ms == nil || *l.TTFPP99Ms < 70 {
		t.Errorf("level 2 TTFP p99 %v ms, want ≥ 70 ms (contended: another session was open)", deref(l.TTFPP99Ms))
	}
	page := string(s.getJSON(t, "/r/"+id, nil))
	if !strings.Contains(page, `id="chart-load"`) || !strings.Contains(page, `<section id="load-curve">`) {
		t.Errorf("share page lacks the load chart or table")
	}
}

// checkLoadTruths checks every session of an archived load curve against
// the simulator's truth (each response's TTFP is the truth's, server
// clock; pacing lags recorded) and returns the truth TTFPs of each level's
// sessions that did not join late.
func checkLoadTruths(t *testing.T, s *stack, lc *report.LoadCurve) map[int][]float64 {
	t.Helper()
	ttfps := map[int][]float64{}
	for _, ls := range lc.Sessions {
		if ls.Error != "" || ls.SessionID == "" || len(ls.Responses) == 0 {
			t.Errorf("session %+v: want a session id and responses, no error", ls)
			continue
		}
		var tru truth
		s.getJSON(t, "/sim/sessions/"+url.PathEscape(ls.SessionID)+"/truth", &tru)
		var spoke []float64 // truth TTFPs of the responses that sent audio ("listen" ones send none)
		for _, r := range tru.Responses {
			if r.TTFPMs != nil {
				spoke = append(spoke, *r.TTFPMs)
			}
		}
		if len(spoke) != len(ls.Responses) {
			t.Errorf("session %s: %d responses, truth has %d that spoke", ls.SessionID, len(ls.Responses), len(spoke))
			continue
		}
		for i, r := range ls.Responses {
			if r.TTFPClock != string(metrics.ClockServer) || r.TTFPMs != spoke[i] {
				t.Errorf("session %s response %d: TTFP %v (%s), truth %v", ls.SessionID, i, r.TTFPMs, r.TTFPClock, spoke[i])
			}
		}
		if !ls.Joiner {
			ttfps[ls.Level] = append(ttfps[ls.Level], spoke...)
		}
		if len(ls.PacingLagMs) == 0 {
			t.Errorf("session %s: no pacing lags recorded", ls.SessionID)
		}
	}
	return ttfps
}

// wsURL is the stack's simulator endpoint.
func wsURL(s *stack) string { return "ws" + strings.TrimPrefix(s.URL, "http") + "/v1/realtime" }

// TestPageLoadCurveShared: two pages are runners 1/2 and 2/2 of one run
// and a third watches it: each level starts on both at once, the watcher
// draws the pooled curve, and the archive merges the two shard reports.
//
// Each page has a browser of its own (started and ready before it
// navigates), as runners on separate machines would. A second tab made with
// chromedp.NewContext and navigated as its first action answered no
// Runtime.evaluate under `make test`'s load although its page ran (the
// first runner passed both level barriers and saved), so the test waited
// out its deadline: 2 of 2 runs under load; a tab given a command before
// its first navigation passed 4 of 4.
func TestPageLoadCurveShared(t *testing.T) {
	t.Parallel() // no timing bound: may run beside another test (doc.go)
	s, ctx := pageTest(t, nil, 3*time.Minute)
	q := func(shard string) url.Values {
		return url.Values{"autostart": {"1"}, "levels": {"1,2"}, "profile": {"test"}, "join_s": {"0.6"}, "run_id": {"e2e-shared"}, "shard": {shard},
			"cap": {"e2e-shared-run-capability"}} // both runners bring the run's capability: whoever comes first creates it
	}
	tab2 := browser(t, fakeMic, 3*time.Minute)
	watch := browser(t, fakeMic, 3*time.Minute)
	// Runner 2 first: it must wait at the barrier for runner 1.
	open(t, tab2, s.URL+"/load?"+q("2/2").Encode())
	id1, _ := loadPage(t, s, ctx, q("1/2"), 2*time.Minute)
	var id2 string
	if err := pollUntil(tab2, time.Minute, func() (bool, error) {
		var err error
		id2, err = attr(tab2, "#share", "data-report-id")
		return id2 != "", err
	}); err != nil {
		t.Fatalf("runner 2 never saved: %v", err)
	}
	open(t, watch, s.URL+"/load?run_id=e2e-shared&watch=1")
	if err := pollUntil(watch, 30*time.Second, func() (bool, error) {
		v, err := attr(watch, "#chart-load", "data-points")
		return v == "2", err
	}); err != nil {
		t.Errorf("the watching page never drew the 2 pooled levels: %v", err)
	}
	var st loadrun.Status
	s.getJSON(t, "/api/loadruns/e2e-shared", &st)
	var run struct {
		Report report.Report `json:"report"`
		Final  bool          `json:"final"`
	}
	s.getJSON(t, "/api/runs/e2e-shared", &run)
	lc := run.Report.LoadCurve
	if !run.Final || lc == nil || len(lc.Sessions) != 5 || len(lc.Levels) != 2 {
		t.Fatalf("merged run (shards %s, %s): final %v, load curve %+v", id1, id2, run.Final, lc)
	}
	for i, l := range lc.Levels {
		if l.Reported != l.Sessions+1 || l.Failed != 0 || l.Responses != st.Levels[i].Responses || *l.TTFPP50Ms != *st.Levels[i].TTFPP50Ms {
			t.Errorf("merged level %+v vs live %+v", l, st.Levels[i])
		}
	}
	// The barrier: runner 2's level-2 session streamed after runner 1's
	// level-1 sessions were done (both pages share the server's clock only
	// through the simulator: compare the simulator's truth times).
	var lastL1, r2L2 float64
	for _, ls := range lc.Sessions {
		var tru struct {
			Responses []struct {
				CreatedMs *float64 `json:"created_ms"`
			} `json:"responses"`
		}
		s.getJSON(t, "/sim/sessions/"+url.PathEscape(ls.SessionID)+"/truth", &tru)
		for _, r := range tru.Responses {
			switch {
			case ls.Level == 1 && r.CreatedMs != nil:
				lastL1 = max(lastL1, *r.CreatedMs)
			case ls.Level == 2 && strings.Contains(ls.Runner, "2/2") && r.CreatedMs != nil && r2L2 == 0:
				r2L2 = *r.CreatedMs
			}
		}
	}
	if r2L2 <= lastL1 {
		t.Errorf("runner 2's level-2 response at %v ms (server clock) not after level 1's last at %v ms", r2L2, lastL1)
	}
	b, _ := json.Marshal(lc.Levels)
	t.Logf("pooled levels: %s", b)
}

// loadWorkerWatch records, before any page script runs, every Worker the
// page starts and what the session worker's load mode posts: each session
// it opened and, at its end, its wire log (window.__dsl).
const loadWorkerWatch = `window.__dsl={workers:[],ready:[],closed:[]};(function(){var W=window.Worker;if(!W)return;` +
	`window.Worker=function(u,o){var w=new W(u,o);window.__dsl.workers.push(String(u));w.addEventListener("message",function(e){var d=e.data||{};` +
	`if(d.type==="load-ready")window.__dsl.ready.push(d.session_id);if(d.type==="load-closed")window.__dsl.closed.push(d.trace)});return w};` +
	`window.Worker.prototype=W.prototype})();`

// TestPageLoadCurveThreads: /load with session_thread=worker (the
// default) runs every session in the session worker — the worker opened
// each archived session and its wire log says session_thread worker with
// the worker's time origin after the page's — and archives exactly what
// those wire logs give; with session_thread=main no session worker starts,
// and when the worker cannot load the run goes on on the main thread and
// its report says so; every way the curve archives the simulator's truth.
func TestPageLoadCurveThreads(t *testing.T) {
	t.Parallel() // no timing bound: may run beside another test (doc.go)
	cases := []struct {
		name, thread string
		failWorker   bool // /web/session-worker.wasm answers 404
		workers      int  // session workers the page starts
		inWorker     bool // the sessions run in it
	}{
		{"worker", "worker", false, 1, true},
		{"main", "main", false, 0, false},
		{"worker unavailable", "worker", true, 1, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, ctx := pageTest(t, nil, 3*time.Minute)
			s.FailWorker.Store(tc.failWorker)
			onNewDocument(t, ctx, loadWorkerWatch)
			q := url.Values{"autostart": {"1"}, "levels": {"2"}, "profile": {"test"}, "join_s": {"0.4"}, "session_thread": {tc.thread}, "url": {wsURL(s)}}
			id, _ := loadPage(t, s, ctx, q, 2*time.Minute)
			rep, err := report.Decode(s.getJSON(t, "/api/reports/"+id, nil), report.DefaultLimits)
			if err != nil {
				t.Fatal(err)
			}
			lc := rep.LoadCurve
			if lc == nil || len(lc.Levels) != 1 || len(lc.Sessions) != 3 || !rep.Complete {
				t.Fatalf("report: load curve %+v, complete %v", lc, rep.Complete)
			}
			checkLoadTruths(t, s, lc)
			for _, l := range lc.Levels {
				t.Logf("%s, level %d: TTFP p50 %.1f ms (server clock), pacing lag p99 %.2f max %.2f ms (client send clock)",
					tc.name, l.Sessions, deref(l.TTFPP50Ms), l.PacingLagP99Ms, l.PacingLagMaxMs)
			}
			warned := false
			for _, w := range rep.Warnings {
				warned = warned || w.Code == report.WarnWorkerUnavailable && strings.Contains(w.Message, "session-worker.wasm")
			}
			if warned != tc.failWorker {
				t.Errorf("warnings %+v: %s naming session-worker.wasm present %v, want %v", rep.Warnings, report.WarnWorkerUnavailable, warned, tc.failWorker)
			}
			raw, err := evalString(ctx, `JSON.stringify(window.__dsl)`)
			if err != nil {
				t.Fatal(err)
			}
			var got struct {
				Workers []string `json:"workers"`
				Ready   []string `json:"ready"`
				Closed  []string `json:"closed"`
			}
			if err := json.Unmarshal([]byte(raw), &got); err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: workers started %q; sessions the session worker opened %q", tc.name, got.Workers, got.Ready)
			if len(got.Workers) != tc.workers || tc.workers > 0 && !strings.HasSuffix(got.Workers[0], "/web/session-worker.js") {
				t.Errorf("workers started %q, want %d session worker(s) for the whole run", got.Workers, tc.workers)
			}
			if !tc.inWorker {
				if len(got.Ready) != 0 || len(got.Closed) != 0 {
					t.Errorf("the session worker opened %q; want every session on the main thread", got.Ready)
				}
				return
			}
			logs := map[string]trace.Session{}
			for _, raw := range got.Closed {
				var tr trace.Session
				if err := json.Unmarshal([]byte(raw), &tr); err != nil || tr.Session.SessionID == nil {
					t.Fatalf("a wire log the worker posted does not decode (%v)", err)
				}
				logs[*tr.Session.SessionID] = tr
			}
			for _, ls := range lc.Sessions {
				tr, ok := logs[ls.SessionID]
				if !ok || !slices.Contains(got.Ready, ls.SessionID) {
					t.Errorf("archived session %s (level %d #%d) was not run by the session worker (opened %q)", ls.SessionID, ls.Level, ls.Index, got.Ready)
					continue
				}
				wantThread(t, tr, "worker")
				// The archive holds what the worker's wire log gives.
				want := loadcurve.FromTrace(tr, ls.PacingLagMs)
				if !reflect.DeepEqual(want.Responses, ls.Responses) || want.Underruns != ls.Underruns {
					t.Errorf("session %s: archived %+v, its wire log gives %+v", ls.SessionID, ls, want)
				}
			}
		})
	}
}

// stopWhenStreaming clicks #btn-load-stop as soon as two sessions of
// #load-sessions are streaming (now, or on the DOM change that shows it)
// and sets window.dsStopClicked.
const stopWhenStreaming = `(() => {
  const tryStop = () => {
    if (window.dsStopClicked || document.querySelectorAll('#load-sessions [data-state="streaming"]').length < 2) return false;
    const b = document.getElementById("btn-load-stop");
    if (!b) return false;
    b.click();
    window.dsStopClicked = true;
    return true;
  };
  if (!tryStop()) {
    const o = new MutationObserver(() => { if (tryStop()) o.disconnect(); });
    o.observe(document.documentElement, {subtree: true, childList: true, attributes: true, attributeFilter: ["data-state"]});
  }
  return true;
})()`

// TestPageLoadCurveStop: Stop during the first level, on either thread,
// ends every session's input at once (each sent fewer frames than its
// clip has), runs no further level and archives what ran.
func TestPageLoadCurveStop(t *testing.T) {
	t.Parallel() // no timing bound: may run beside another test (doc.go)
	for _, thread := range []string{"worker", "main"} {
		t.Run(thread, func(t *testing.T) {
			s, ctx := pageTest(t, nil, 3*time.Minute)
			var clips struct {
				Clips []struct {
					URL string `json:"url"`
				} `json:"clips"`
			}
			s.getJSON(t, "/api/datasets/builtin", &clips)
			var frames []int // each clip's input frames (200 ms)
			for _, c := range clips.Clips {
				clip, err := audio.DecodeWAV(s.getJSON(t, c.URL, nil))
				if err != nil {
					t.Fatal(err)
				}
				frames = append(frames, (len(audio.ToInputPCM16(clip))+6399)/6400)
			}
			q := url.Values{"autostart": {"1"}, "levels": {"1,2"}, "profile": {"test"}, "join_s": {"0"}, "session_thread": {thread}, "url": {wsURL(s)}}
			open(t, ctx, s.URL+"/load?"+q.Encode())
			// The page clicks Stop itself the moment both sessions show
			// "streaming" (a MutationObserver): a poll from here, then a
			// click, could land after the 4.6 s clips ended on a busy
			// machine (it did, beside three other browsers).
			if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](stopWhenStreaming)); err != nil {
				t.Fatal(err)
			}
			if err := pollUntil(ctx, time.Minute, func() (bool, error) {
				return chromedp.Run(ctx, chromedp.Evaluate[bool](`window.dsStopClicked === true`))
			}); err != nil {
				t.Fatalf("level 1's two sessions never streamed (Stop not clicked): %v", err)
			}
			id := awaitShare(t, ctx, "#load-status", time.Minute, func(string) {})
			rep, err := report.Decode(s.getJSON(t, "/api/reports/"+id, nil), report.DefaultLimits)
			if err != nil {
				t.Fatal(err)
			}
			lc := rep.LoadCurve
			if lc == nil || len(lc.Levels) != 1 || len(lc.Sessions) != 2 {
				t.Fatalf("report after Stop in level 1: load curve %+v; want level 1 only", lc)
			}
			for _, ls := range lc.Sessions {
				all := frames[ls.Index%len(frames)]
				t.Logf("%s: session %d sent %d of its clip's %d frames", thread, ls.Index, len(ls.PacingLagMs), all)
				if ls.Error != "" || ls.SessionID == "" || len(ls.PacingLagMs) == 0 || len(ls.PacingLagMs) >= all {
					t.Errorf("session %+v: want a session that sent some but not all of its clip's %d frames, no error", ls, all)
				}
			}
		})
	}
}
