//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/google/go-cmp/cmp"

	"github.com/duplexscope/duplexscope/internal/bench"
	"github.com/duplexscope/duplexscope/metrics"
	"github.com/duplexscope/duplexscope/report"
	"github.com/duplexscope/duplexscope/trace"
)

// clientTruthBoundMs is the loose bound on |client interval − true interval|
// for response.created → first audio. Both events leave the simulator
// back to back over loopback; the browser stamps them with performance.now()
// in onmessage, so the error is delivery jitter on a shared 2-core machine
// (event-loop stalls from wasm GC, chart redraws, audio). The tight figures
// belong in `make bench`; this bound only catches a wrong clock or a
// stamping bug (e.g. stamping when Go's Read returns after a backlog).
// Seen on a loaded 2-core machine (load average 9): |error| ≤ 120 ms, most
// within 15 ms; the page's main thread stalls up to ~0.5 s at the first
// response (first chart draws), which delays onmessage for both events.
const clientTruthBoundMs = 250

// minResponses each browser session must produce.
const minResponses = 3

type browserRun struct {
	ReportID, SessionID string
	FirstPointMs        float64 // navigation → TTFP chart's first point (wall clock)
	Ctx                 context.Context
}

// runPage opens the page with query, waits for the share link and returns
// the archived report's id. It also measures navigation → first chart point.
func runPage(t testing.TB, s *stack, ctx context.Context, query url.Values, timeout time.Duration) browserRun {
	t.Helper()
	start := time.Now()
	open(t, ctx, s.URL+"/?"+query.Encode())
	return awaitReport(t, ctx, start, timeout)
}

// awaitReport waits until the page navigated at start has archived its run.
func awaitReport(t testing.TB, ctx context.Context, start time.Time, timeout time.Duration) browserRun {
	t.Helper()
	run := browserRun{Ctx: ctx}
	run.ReportID = awaitShare(t, ctx, "#status", timeout, func(string) {
		if run.FirstPointMs == 0 {
			if v, err := attr(ctx, "#chart-ttfp", "data-points"); err == nil && v != "" && v != "0" {
				run.FirstPointMs = float64(time.Since(start).Microseconds()) / 1000
			}
		}
	})
	t.Logf("navigation → first TTFP chart point: %.0f ms", run.FirstPointMs)
	return run
}

// awaitShare waits until the page whose status line is status (its
// data-phase) shows the archived report's id in #share, and returns it;
// each poll hands seen the phase first (progress the caller records). A
// failed phase or the timeout fails t, with a screenshot.
func awaitShare(t testing.TB, ctx context.Context, status string, timeout time.Duration, seen func(phase string)) string {
	t.Helper()
	var id string
	err := pollUntil(ctx, timeout, func() (bool, error) {
		phase, err := attr(ctx, status, "data-phase")
		if err != nil {
			return false, err
		}
		seen(phase)
		if phase == "failed" {
			text, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(status)))
			return false, fmt.Errorf("the page reports a failed run: %s", text)
		}
		id, err = attr(ctx, "#share", "data-report-id")
		return id != "", err
	})
	if err != nil {
		text, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(status)))
		screenshot(t, ctx, "failure-"+strings.ReplaceAll(t.Name(), "/", "_"))
		t.Fatalf("waiting for the archived report: %v (status %q)", err, text)
	}
	return id
}

// archived is the part of the report the test checks.
type archived struct {
	Metrics struct {
		Requests []json.RawMessage `json:"duplex_request_metrics"`
	} `json:"metrics"`
	Sessions []struct {
		SessionID string `json:"session_id"`
		WireLog   string `json:"wire_log"`
	} `json:"sessions"`
	Warnings []struct {
		Code string `json:"code"`
	} `json:"warnings"`
}

type row struct {
	ResponseID string   `json:"response_id"`
	Source     string   `json:"source"`
	TTFTMs     *float64 `json:"ttft_ms"`
	TTFPMs     *float64 `json:"ttfp_ms"`
}

type truth struct {
	Responses []struct {
		ResponseID   string   `json:"response_id"`
		CreatedMs    *float64 `json:"created_ms"`
		FirstAudioMs *float64 `json:"first_audio_ms"`
		TTFTMs       *float64 `json:"ttft_ms"`
		TTFPMs       *float64 `json:"ttfp_ms"`
	} `json:"responses"`
}

// checkReport asserts the archived report against truth and replay
// (checkReplay) and bounds the page's client-clock receive stamps against
// the simulator's truth; it returns the archived wire log. The bound is
// for tests that run alone (e2e/doc.go).
func checkReport(t testing.TB, s *stack, run browserRun) trace.Session {
	t.Helper()
	tr, rows, tru := checkReplay(t, s, run)
	checkClientTruth(t, tr, rows, tru)
	logPacing(t, tr)
	return tr
}

// checkReplay asserts what holds however loaded the machine is: the
// archived rows equal `duplexscope replay` of the archived wire log, and
// every row carries the simulator's own server-clock TTFT/TTFP. It returns
// the wire log, the rows and the simulator's truth.
func checkReplay(t testing.TB, s *stack, run browserRun) (trace.Session, []row, truth) {
	t.Helper()
	var rep archived
	s.getJSON(t, "/api/reports/"+run.ReportID, &rep)
	if len(rep.Sessions) != 1 || rep.Sessions[0].WireLog == "" {
		t.Fatalf("report has %d sessions / no wire log attachment", len(rep.Sessions))
	}
	rows := make([]row, len(rep.Metrics.Requests))
	for i, r := range rep.Metrics.Requests {
		if err := json.Unmarshal(r, &rows[i]); err != nil {
			t.Fatal(err)
		}
	}
	if len(rows) < minResponses {
		t.Fatalf("archived report has %d responses, want ≥ %d", len(rows), minResponses)
	}
	sid := rep.Sessions[0].SessionID
	wl := s.getJSON(t, "/api/reports/"+run.ReportID+"/attachments/"+rep.Sessions[0].WireLog, nil)
	tr, err := trace.DecodeSession(wl)
	if err != nil {
		t.Fatalf("wire log: %v", err)
	}

	// 1. The archived numbers equal `duplexscope replay` of the wire log
	// (the same code path: metrics.ScoreSession, then the run layout).
	replayed, err := json.Marshal(metrics.BuildReport([]metrics.SessionResult{metrics.ScoreSession(tr)}))
	if err != nil {
		t.Fatal(err)
	}
	var want struct {
		Requests []json.RawMessage `json:"duplex_request_metrics"`
	}
	if err := json.Unmarshal(replayed, &want); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(canon(t, want.Requests), canon(t, rep.Metrics.Requests)); diff != "" {
		t.Errorf("archived rows differ from replay of the wire log (-replay +archived):\n%s", diff)
	}

	// 2. Server-reported TTFT/TTFP are the simulator's own numbers: exact.
	var tru truth
	s.getJSON(t, "/sim/sessions/"+url.PathEscape(sid)+"/truth", &tru)
	byID := tru.byID()
	for _, r := range rows {
		i, ok := byID[r.ResponseID]
		if !ok {
			t.Errorf("response %s: not in the simulator's truth", r.ResponseID)
			continue
		}
		want := tru.Responses[i]
		if r.Source != "server_request_start_and_client_receive" {
			t.Errorf("response %s: source %q, want server metrics from the simulator", r.ResponseID, r.Source)
		} else if !eqPtr(r.TTFPMs, want.TTFPMs) || (r.TTFTMs != nil && !eqPtr(r.TTFTMs, want.TTFTMs)) {
			t.Errorf("response %s: server ttft/ttfp %v/%v, truth %v/%v", r.ResponseID, deref(r.TTFTMs), deref(r.TTFPMs), deref(want.TTFTMs), deref(want.TTFPMs))
		}
	}
	return tr, rows, tru
}

func (tru truth) byID() map[string]int {
	out := map[string]int{}
	for i, r := range tru.Responses {
		out[r.ResponseID] = i
	}
	return out
}

// checkClientTruth bounds each row's client-measured created → first audio
// (client receive clock) against the simulator's truth.
func checkClientTruth(t testing.TB, tr trace.Session, rows []row, tru truth) {
	t.Helper()
	// Receive instants per response (client receive clock), by the one
	// identity rule.
	client := bench.ReceiveStamps(tr.Events)
	if ss := tr.Session.StreamStartMs; ss != nil {
		first := math.Inf(1)
		for _, c := range client {
			first = math.Min(first, c.Created)
		}
		// performance.now() counts from navigation start.
		t.Logf("navigation → stream start (wasm load, audio set-up, dial): %.0f ms; → first response.created received: %.0f ms", *ss, first)
	}
	stalls := pacingStalls(tr)
	flagged := 0
	var errs []float64
	byID := tru.byID()
	for _, r := range rows {
		i, ok := byID[r.ResponseID]
		if !ok {
			continue // checkReplay said so
		}
		tr := tru.Responses[i]
		c, ok := client[r.ResponseID]
		if ok = ok && c.FirstAudio >= 0; !ok || tr.CreatedMs == nil || tr.FirstAudioMs == nil {
			t.Errorf("response %s: no created/first-audio pair (client %v, truth %v/%v)", r.ResponseID, ok, tr.CreatedMs, tr.FirstAudioMs)
			continue
		}
		ms := c.FirstAudio - c.Created // created → first audio, client receive clock
		d := ms - (*tr.FirstAudioMs - *tr.CreatedMs)
		errs = append(errs, d)
		if math.Abs(d) > clientTruthBoundMs {
			// Only acceptable when the page's own wire log shows its main
			// thread stalled when either event arrived (its input frames
			// went out late then), long enough to explain the error: each
			// stamp is late by at most the stall, and a stall of S ms
			// delays the first frame due in it by at least S − 200 ms, so
			// S ≤ lag + one frame. (The run-level pacing_lag warning is no
			// evidence either way: it needs a lag over one frame, a stall
			// over 400 ms, while a 250–400 ms stall already moves a stamp
			// past the bound — that gap failed TestMicSession under load.)
			stall, ok := stalledAt(stalls, c.Created)
			if s2, ok2 := stalledAt(stalls, c.FirstAudio); ok2 && (!ok || s2 > stall) {
				stall, ok = s2, true
			}
			if ok && math.Abs(d) <= stall+frameSlackMs+clientTruthBoundMs {
				flagged++
				t.Logf("response %s: error %.1f ms during a main-thread stall the wire log shows (input frame %.0f ms late)", r.ResponseID, d, stall)
				continue
			}
			t.Errorf("response %s: client created→first audio %.3f ms, truth %.3f ms: error %.3f ms > %d ms",
				r.ResponseID, ms, *tr.FirstAudioMs-*tr.CreatedMs, d, clientTruthBoundMs)
		}
	}
	t.Logf("client − truth (created → first audio), ms: %s", fmtErrs(errs))
	if flagged > len(rows)/2 {
		t.Errorf("%d of %d responses were measured during flagged main-thread stalls: the page is too busy to measure", flagged, len(rows))
	}
}

// logPacing reports the page's input pacing lag from the wire log's
// duplexscope.pacing annotations (client send clock).
func logPacing(t testing.TB, tr trace.Session) {
	t.Helper()
	lags := bench.PacingLags(tr.Events) // one note a frame, in order
	var late []string
	for k, lag := range lags {
		if lag > 100 {
			late = append(late, fmt.Sprintf("frame %d: %.0f ms", k, lag))
		}
	}
	s := metrics.Summarize(lags, 3)
	if s == nil {
		t.Logf("pacing: no annotations")
		return
	}
	t.Logf("pacing lag (client send clock): %d frames, p50 %.1f ms, p99 %.1f ms; late frames: %v", s.Count, s.P50, s.P99, late)
}

// stall is a main-thread stall seen in the pacing annotations: frame sent
// at EndMs, LagMs late.
type stall struct{ EndMs, LagMs float64 }

// stallMinMs is the lag from which a frame's delay counts as a stall: an
// error over clientTruthBoundMs needs a stall over 250 ms, which makes the
// frame due in its first 200 ms at least 50 ms late.
const stallMinMs = clientTruthBoundMs - frameSlackMs

func pacingStalls(tr trace.Session) []stall {
	var out []stall
	for _, ev := range tr.Events {
		if ev.Dir != trace.DirLocal {
			continue
		}
		var p struct {
			Type  string  `json:"type"`
			LagMs float64 `json:"lag_ms"`
		}
		if json.Unmarshal(ev.Event, &p) == nil && p.Type == "duplexscope.pacing" && p.LagMs > stallMinMs {
			out = append(out, stall{EndMs: ev.TMs, LagMs: p.LagMs})
		}
	}
	return out
}

// stalledAt reports whether a stall was under way around instant ms (an
// event stamped late by a stall is stamped when the stall ends).
// It returns the largest such stall's lag.
func stalledAt(ss []stall, ms float64) (float64, bool) {
	lag, ok := 0.0, false
	for _, s := range ss {
		if ms >= s.EndMs-s.LagMs-frameSlackMs && ms <= s.EndMs+frameSlackMs && (!ok || s.LagMs > lag) {
			lag, ok = s.LagMs, true
		}
	}
	return lag, ok
}

// frameSlackMs: one 200 ms frame either side.
const frameSlackMs = 200

func canon(t testing.TB, rows []json.RawMessage) []any {
	t.Helper()
	out := make([]any, len(rows))
	for i, r := range rows {
		var v any
		d := json.NewDecoder(bytes.NewReader(r))
		d.UseNumber()
		if err := d.Decode(&v); err != nil {
			t.Fatal(err)
		}
		out[i] = v
	}
	return out
}

func eqPtr(a, b *float64) bool { return a != nil && b != nil && *a == *b }

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

func fmtErrs(e []float64) string {
	if len(e) == 0 {
		return "none"
	}
	var b strings.Builder
	worst := 0.0
	for i, v := range e {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.FormatFloat(v, 'f', 2, 64))
		worst = math.Max(worst, math.Abs(v))
	}
	fmt.Fprintf(&b, " (max |error| %.2f)", worst)
	return b.String()
}

// liveSession runs one page session of query (4 min in all, 3 to the
// archived report), checks the live TTFP chart's points and the archived
// report (checkReport), and returns the tab, the run and its wire log.
func liveSession(t *testing.T, query url.Values) (context.Context, browserRun, trace.Session) {
	t.Helper()
	s, ctx := pageTest(t, nil, 4*time.Minute)
	run := runPage(t, s, ctx, query, 3*time.Minute)
	pts, _ := attr(ctx, "#chart-ttfp", "data-points")
	if n, _ := strconv.Atoi(pts); n < minResponses {
		t.Errorf("TTFP chart has %s points, want ≥ %d", pts, minResponses)
	}
	return ctx, run, checkReport(t, s, run)
}

// TestMicSession is issue 3's walking skeleton end to end: fake mic →
// simulator → live chart → archived report, checked against truth and replay.
func TestMicSession(t *testing.T) {
	ctx, run, _ := liveSession(t, url.Values{"autostart": {"1"}, "duration_s": {"22"}, "source": {"mic"}})
	// Every chart draws into its own box: one canvas in each (a first draw
	// on the wrong element left all but #chart-ttfp empty).
	var canvases string
	if err := pollUntil(ctx, 10*time.Second, func() (bool, error) {
		v, err := chromedp.Run(ctx, chromedp.Evaluate[string](`[...document.querySelectorAll('#live .ds-chart')].map(e => e.querySelectorAll('canvas').length).join(',')`))
		canvases = v
		return v != "" && strings.Trim(v, "1,") == "", err
	}); err != nil {
		t.Errorf("canvases per live chart: %q, want 1 each (%v)", canvases, err)
	}
	// data-drawn-points (what the bench's start-up mark waits for) follows
	// echarts' own "finished" drawing of the last option: once the session
	// has ended it equals data-points on every live chart.
	var drawn string
	if err := pollUntil(ctx, 10*time.Second, func() (bool, error) {
		v, err := chromedp.Run(ctx, chromedp.Evaluate[string](`[...document.querySelectorAll('#live .ds-chart')].map(e => e.getAttribute('data-points') + '=' + e.getAttribute('data-drawn-points')).join(',')`))
		drawn = v
		ok := v != ""
		for _, p := range strings.Split(v, ",") {
			a, b, _ := strings.Cut(p, "=")
			ok = ok && a == b
		}
		return ok, err
	}); err != nil {
		t.Errorf("live charts' points = drawn points: %q (%v)", drawn, err)
	}
	screenshot(t, ctx, "live")
	for _, tab := range []string{"timeline", "log", "plain"} {
		target := map[string]string{"timeline": "#chart-timeline", "plain": "#verdict", "log": "#event-log"}[tab]
		if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#tab-"+tab)), chromedp.WaitVisible(chromedp.CSS(target))); err != nil {
			t.Fatalf("tab %s: %v", tab, err)
		}
		if tab == "log" {
			continue
		}
		if tab == "timeline" {
			// let echarts draw into the freshly mounted element
			_ = pollUntil(ctx, 5*time.Second, func() (bool, error) {
				v, err := attr(ctx, "#chart-timeline canvas", "width")
				return v != "", err
			})
		}
		screenshot(t, ctx, tab)
	}
	verdict, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#verdict")))
	if err != nil {
		t.Fatal(err)
	}
	if verdict == "" || strings.Contains(verdict, "No replies yet") {
		t.Errorf("plain view verdict %q, want a verdict on the finished run", verdict)
	}
	cards, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('#plain .ds-card').length`))
	if err != nil {
		t.Fatal(err)
	}
	if cards < 4 {
		t.Errorf("plain view has %d cards, want ≥ 4", cards)
	}
	writeFigure(t, "mic_first_point_ms", run.FirstPointMs)
}

// TestDatasetSession streams the bundled clips instead of the mic.
func TestDatasetSession(t *testing.T) {
	_, run, tr := liveSession(t, url.Values{"autostart": {"1"}, "duration_s": {"20"}, "source": {"dataset:builtin"}})
	wantThread(t, tr, "worker")
	writeFigure(t, "dataset_first_point_ms", run.FirstPointMs)
}

// TestSessionWorkerFallback: when the session worker's wasm does not load,
// the run goes on on the page's main thread instead of failing, and its
// report says why (session_worker_unavailable).
//
// It bounds no time (the main thread's stamps are TestSessionThreadUnderStall's
// subject), so it runs in parallel: the report, its replay and the server's
// numbers must hold however loaded the machine is.
func TestSessionWorkerFallback(t *testing.T) {
	t.Parallel()
	s, ctx := pageTest(t, nil, 3*time.Minute)
	s.FailWorker.Store(true)
	q := url.Values{"autostart": {"1"}, "duration_s": {"20"}, "source": {"dataset:builtin"}}
	run := runPage(t, s, ctx, q, 2*time.Minute)
	tr, _, _ := checkReplay(t, s, run)
	wantThread(t, tr, "main")
	var rep struct {
		Warnings []struct{ Code, Message string } `json:"warnings"`
	}
	s.getJSON(t, "/api/reports/"+run.ReportID, &rep)
	var msg string
	for _, w := range rep.Warnings {
		if w.Code == report.WarnWorkerUnavailable {
			msg = w.Message
		}
	}
	t.Logf("warning: %q", msg)
	if !strings.Contains(msg, "session-worker.wasm") {
		t.Errorf("warnings %+v: want %s naming the wasm that did not load", rep.Warnings, report.WarnWorkerUnavailable)
	}
}

// wantThread checks where the page's session ran, by the wire log's
// session.duplexscope.session_thread and time_origins: a worker's stamps
// are mapped onto the page's timeline, so stream start (after the worker
// existed) lies after the worker's origin on that timeline.
func wantThread(t testing.TB, tr trace.Session, want string) {
	t.Helper()
	var ex struct {
		Thread    string `json:"session_thread"`
		Transport string `json:"transport"`
		Origins   *struct {
			Page   float64 `json:"page"`
			Worker float64 `json:"worker"`
			Socket float64 `json:"socket"`
		} `json:"time_origins"`
	}
	if err := json.Unmarshal(tr.Session.Extra, &ex); err != nil {
		t.Fatal(err)
	}
	if ex.Thread != want || ex.Origins == nil || ex.Origins.Page <= 0 {
		t.Fatalf("wire log session_thread %q, time_origins %+v; want %q with the page's origin", ex.Thread, ex.Origins, want)
	}
	if want != "worker" {
		return
	}
	if ex.Origins.Worker <= ex.Origins.Page {
		t.Fatalf("time_origins %+v: the worker starts after the page", *ex.Origins)
	}
	if ss := tr.Session.StreamStartMs; ss == nil || *ss < ex.Origins.Worker-ex.Origins.Page {
		t.Errorf("stream start %v ms is before the worker existed (%.1f ms on the page's timeline): stamps not mapped", ss, ex.Origins.Worker-ex.Origins.Page)
	}
	// With the browser transport the WebSocket ran in the socket worker,
	// which the session worker started; its stamps are mapped onto the
	// page's timeline too, so the first message received lies after it
	// existed. (The coder transport runs in the session worker itself.)
	if ex.Transport == "coder" {
		if ex.Origins.Socket != 0 {
			t.Errorf("transport coder, but time_origins %+v names a socket worker", *ex.Origins)
		}
		return
	}
	if ex.Origins.Socket <= ex.Origins.Worker {
		t.Fatalf("time_origins %+v: no socket worker started after the session worker (the socket did not run in web/socket-worker.js)", *ex.Origins)
	}
	for _, ev := range tr.Events {
		if ev.Dir == trace.DirRecv {
			if ev.TMs < ex.Origins.Socket-ex.Origins.Page {
				t.Errorf("first message received at %.1f ms, before the socket worker existed (%.1f ms on the page's timeline): its stamps are not mapped", ev.TMs, ex.Origins.Socket-ex.Origins.Page)
			}
			break
		}
	}
}

// TestSocketWorkerFallback: when web/socket-worker.js does not load, the
// session worker opens the WebSocket itself, the run completes, and the
// wire log says why. Like TestSessionWorkerFallback it bounds no time and
// runs in parallel.
func TestSocketWorkerFallback(t *testing.T) {
	t.Parallel()
	s, ctx := pageTest(t, nil, 3*time.Minute)
	s.FailSocketWorker.Store(true)
	q := url.Values{"autostart": {"1"}, "duration_s": {"20"}, "source": {"dataset:builtin"}} // ≥ 3 responses (checkReplay)
	run := runPage(t, s, ctx, q, 2*time.Minute)
	tr, _, _ := checkReplay(t, s, run)
	var ex struct {
		Thread   string   `json:"session_thread"`
		Warnings []string `json:"warnings"`
		Origins  struct {
			Socket float64 `json:"socket"`
		} `json:"time_origins"`
	}
	if err := json.Unmarshal(tr.Session.Extra, &ex); err != nil {
		t.Fatal(err)
	}
	warned := false
	for _, w := range ex.Warnings {
		warned = warned || strings.Contains(w, "socket worker could not start") && strings.Contains(w, "socket-worker.js")
	}
	if ex.Thread != "worker" || ex.Origins.Socket != 0 || !warned {
		t.Errorf("session_thread %q, socket origin %v, warnings %q; want the session worker, no socket worker, and a warning naming socket-worker.js", ex.Thread, ex.Origins.Socket, ex.Warnings)
	}
}

// writeFigure appends a measured figure to e2e/artifacts/figures.txt (read
// by the bench scripts and the closing notes).
func writeFigure(t testing.TB, name string, v float64) {
	t.Helper()
	if err := os.MkdirAll("artifacts", 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(filepath.Join("artifacts", "figures.txt"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fmt.Fprintf(f, "%s %s %.1f\n", time.Now().UTC().Format(time.RFC3339), name, v)
}
