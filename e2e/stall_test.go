//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/duplexscope/duplexscope/internal/bench"
	"github.com/duplexscope/duplexscope/internal/browsertest"
	"github.com/duplexscope/duplexscope/internal/testkit"
	"github.com/duplexscope/duplexscope/report"
	"github.com/duplexscope/duplexscope/sim"
	"github.com/duplexscope/duplexscope/trace"
)

// The debug stall of TestSessionThreadUnderStall: the page's main thread
// busy-loops stallMs every stallEveryMs for the whole session.
const (
	stallMs      = 250
	stallEveryMs = 1000
	// stallFrameMs is the input frame: 100 ms divides the periodic
	// profile's 1000 ms tick (no frame_tick_mismatch) and puts 2–3 due
	// frames in every stall, the first within 100 ms of its start, so each
	// stall makes the main path send one frame ≥ 150 ms late whatever the
	// stall's phase against the frame clock (with 200 ms frames a stall
	// may catch a single frame only 50 ms before its end).
	stallFrameMs = 100
	// stallSessionS of builtin clips per thread: 120 input frames and 3–4
	// responses of the periodic profile (one per 3 s of input).
	stallSessionS = 12
	// stallSimSeed seeds the simulator identically for both threads.
	stallSimSeed = 17
	// stallPacketMs and stallResponseMs make each response a dense stream:
	// 3 s of audio in 40 ms packets at the profile's RTF 0.7, one packet
	// every 28 ms for 2.1 s. The profile's own 1000 ms packets (one every
	// 700 ms) leave only a handful of frames per session, and since the
	// main path's late input puts the server's chunk clock in phase with the
	// stall, those few could all land near a stall's end (CI saw a main-path
	// p99 of 53 ms once): whether a stall showed up in the stamps was luck.
	stallPacketMs   = 40
	stallResponseMs = 3000
)

// Bounds the worker must stay within under the stall, and the main path
// must exceed.
//
// Pacing jitter (|lag − median lag|, lag = send instant − (stream start +
// bytes ÷ 32 000 s), page clock). Around the median, not zero: when the
// first frame itself falls in a stall, the whole schedule starts late and
// every later frame reads ~100 ms early, which says nothing about the
// thread (it happened on the main path in about one run in four). On the
// main path each frame due inside a stall waits for its end: with 100 ms
// frames every 250 ms stall leaves at least one frame ≥ 150 ms behind the
// others (see stallFrameMs), 12 stalls in 120 frames, so the main path's
// p99 is ≥ 150 ms by construction; mainMinPacingP99Ms = 100 checks that
// the stall really runs. In the worker the send is clocked by the input
// AudioWorklet's frames arriving over a MessagePort the main thread never
// touches; what is left is the audio device's callback size (frames come
// in ~10 ms bursts: p99 11–18 ms measured) and the machine's scheduling:
// 46.7 ms with the 2 cores at load average ≈ 10 (four builds beside the
// test), 84.5 ms once with a -race benchmark pass on top (load 12). 100 ms
// (mainMinPacingP99Ms) covers those, and the main path's construction
// bound (150 ms) is still 1.5× above it: the threads stay apart.
//
// Receive stamps (|delay − median delay| per server frame, delay = client
// receive stamp − the simulator's true emit instant from GET
// /sim/sessions/{id}/truth, bench.FrameDelays): on the main path a frame
// arriving in a stall is stamped when the stall ends, so its delay grows
// by the rest of the stall. Each response streams a frame every 28 ms for
// 2.1 s (stallPacketMs), and any 2.1 s holds at least one whole stall, in
// which the frames emitted in its first 84 ms (≥ 3) read ≥ 166 ms late.
// With ≥ 3 responses that is ≥ 9 frames of ≈ 350, above the top 1 %, so
// the main path's p99 is ≥ 166 ms by construction, whatever the phase. In
// the worker the stamp is taken in the worker's onmessage, which no
// main-thread work delays; what is left is the machine's scheduling of
// the simulator's writes and the worker: p99 2.1–2.4 ms measured on this
// 2-core machine, 5.4 ms with two CPU hogs beside it (with the profile's
// sparse frames the interval errors reached 27 ms in CI runs). 60 ms
// leaves twice the worst of those and is still ≥ 2.5× below the main
// path's construction bound (measured there: 237–240 ms).
const (
	workerMaxPacingP99Ms   = 100
	workerMaxFidelityP99Ms = 60
	mainMinPacingP99Ms     = 100
)

// threadFigures are one thread's archived figures.
type threadFigures struct {
	Frames, Received, Responses int
	PacingP50, PacingP99        float64 // |lag − median lag| ms, client send clock
	Drift                       float64 // ms
	StampP50, StampP99          float64 // |delay − median delay| ms per server frame (bench.FrameDelays)
	FrameP99                    float64 // |client − true| ms per consecutive server-frame interval
	RespP99                     float64 // |client − true| ms, per-response intervals (bench.CompareTruth), pooled
	BufferingP50                float64 // first audio received → first sample played, responses the player was free for, ms (bench.PlayerBuffering)
	WorkerOrigin                bool    // the wire log names a worker time origin
}

// TestSessionThreadUnderStall runs the same short session (builtin clips,
// periodic profile, 100 ms frames, simulator seed 17) under stall_ms=250&stall_every_ms=
// 1000 with session_thread=worker and with session_thread=main, and checks
// the archived pacing lags and receive-stamp errors against the
// simulator's truth: the worker stays within the bounds above, the main
// path exceeds them (a test that cannot tell the two apart proves
// nothing). It also checks that the stall is announced on the page and
// recorded in the wire log and the report.
func TestSessionThreadUnderStall(t *testing.T) {
	requireBuild(t)
	s := startStack(t)
	got := map[string]threadFigures{}
	for _, thread := range []string{"worker", "main"} {
		got[thread] = runStalled(t, s, thread)
	}
	t.Logf("under stall_ms=%d&stall_every_ms=%d, %d s sessions:", stallMs, stallEveryMs, stallSessionS)
	t.Logf("%-7s %7s %14s %14s %9s %10s %16s %16s %16s %15s %14s", "thread", "frames", "jitter p50 ms", "jitter p99 ms", "drift ms", "received", "stamp err p50 ms", "stamp err p99 ms", "interval err p99", "resp err p99 ms", "buffering p50")
	for _, th := range []string{"worker", "main"} {
		f := got[th]
		t.Logf("%-7s %7d %14.1f %14.1f %9.1f %10d %16.1f %16.1f %16.1f %15.1f %14.1f", th, f.Frames, f.PacingP50, f.PacingP99, f.Drift, f.Received, f.StampP50, f.StampP99, f.FrameP99, f.RespP99, f.BufferingP50)
	}

	w, m := got["worker"], got["main"]
	if !w.WorkerOrigin {
		t.Errorf("session_thread=worker: the wire log has no session.duplexscope.time_origins.worker: the session did not run in a Web Worker")
	}
	if w.PacingP99 > workerMaxPacingP99Ms {
		t.Errorf("session_thread=worker: pacing jitter |lag − median| p99 %.1f ms > %d ms under the stall (main path: %.1f ms): the send schedule still waits for the main thread", w.PacingP99, workerMaxPacingP99Ms, m.PacingP99)
	}
	if w.StampP99 > workerMaxFidelityP99Ms {
		t.Errorf("session_thread=worker: receive-stamp error p99 %.1f ms > %d ms under the stall (main path: %.1f ms): stamps still wait for the main thread", w.StampP99, workerMaxFidelityP99Ms, m.StampP99)
	}
	if m.PacingP99 < mainMinPacingP99Ms {
		t.Errorf("session_thread=main: pacing jitter |lag − median| p99 %.1f ms < %d ms: a %d ms stall every %d ms must delay the frames due in it — is the stall running?", m.PacingP99, mainMinPacingP99Ms, stallMs, stallEveryMs)
	}
	if m.PacingP99 <= workerMaxPacingP99Ms {
		t.Errorf("session_thread=main: pacing jitter |lag − median| p99 %.1f ms within the worker's bound %d ms: the test cannot tell the threads apart", m.PacingP99, workerMaxPacingP99Ms)
	}
	if m.StampP99 <= workerMaxFidelityP99Ms {
		t.Errorf("session_thread=main: receive-stamp error p99 %.1f ms within the worker's bound %d ms: the test cannot tell the threads apart", m.StampP99, workerMaxFidelityP99Ms)
	}
}

// runStalled runs one stalled session on thread and returns its figures.
func runStalled(t *testing.T, s *stack, thread string) threadFigures {
	t.Helper()
	ctx, cancel := browsertest.Start(t, browsertest.FakeAudio(fakeMic))
	defer cancel()
	target := "ws" + strings.TrimPrefix(s.URL, "http") + fmt.Sprintf("/v1/realtime?sim_seed=%d&sim_packet_ms=%d&sim_response_ms=%d", stallSimSeed, stallPacketMs, stallResponseMs)
	q := url.Values{
		"url": {target}, "source": {"dataset:builtin"}, "profile": {"periodic"},
		"frame_ms": {fmt.Sprint(stallFrameMs)}, "duration_s": {fmt.Sprint(stallSessionS)}, "autostart": {"1"},
		"session_thread": {thread}, "stall_ms": {fmt.Sprint(stallMs)}, "stall_every_ms": {fmt.Sprint(stallEveryMs)},
	}
	run := runPage(t, s, ctx, q, 2*time.Minute)

	// The page says the stall is on.
	banner, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(function(){var e=document.getElementById("stall-warning");return e?e.innerText:""})()`))
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("debug: main-thread stall %d ms every %d ms is on", stallMs, stallEveryMs); !strings.Contains(banner, want) {
		t.Errorf("%s: stall banner %q, want it to say %q", thread, banner, want)
	}

	var rep struct {
		archived
		Responses []bench.HeardResponse `json:"responses"`
	}
	s.getJSON(t, "/api/reports/"+run.ReportID, &rep)
	if len(rep.Sessions) != 1 || rep.Sessions[0].WireLog == "" {
		t.Fatalf("%s: report has %d sessions / no wire log", thread, len(rep.Sessions))
	}
	warned := false
	for _, w := range rep.Warnings {
		warned = warned || w.Code == report.WarnMainThreadStall
	}
	if !warned {
		t.Errorf("%s: the report has no %s warning", thread, report.WarnMainThreadStall)
	}
	tr, err := trace.DecodeSession(s.getJSON(t, "/api/reports/"+run.ReportID+"/attachments/"+url.PathEscape(rep.Sessions[0].WireLog), nil))
	if err != nil {
		t.Fatalf("%s: wire log: %v", thread, err)
	}
	var meta struct {
		StallMs      int `json:"stall_ms"`
		StallEveryMs int `json:"stall_every_ms"`
		TimeOrigins  struct {
			Worker *float64 `json:"worker"`
		} `json:"time_origins"`
	}
	if err := json.Unmarshal(tr.Session.Extra, &meta); err != nil {
		t.Fatalf("%s: wire log session.duplexscope: %v", thread, err)
	}
	if meta.StallMs != stallMs || meta.StallEveryMs != stallEveryMs {
		t.Errorf("%s: wire log records stall_ms=%d stall_every_ms=%d, want %d, %d", thread, meta.StallMs, meta.StallEveryMs, stallMs, stallEveryMs)
	}
	var tru sim.Truth
	s.getJSON(t, "/sim/sessions/"+url.PathEscape(rep.Sessions[0].SessionID)+"/truth", &tru)

	lags := bench.PacingLags(tr.Events)
	delays, err := bench.FrameDelays(tr.Events, tru.Events)
	if err != nil {
		t.Fatalf("%s: %v", thread, err)
	}
	frameErrs, _ := bench.FrameErrors(tr.Events, tru.Events)
	resp := bench.CompareTruth(bench.ReceiveStamps(tr.Events), tru)
	// Enough samples that p99 is a tail, not one frame, and the responses
	// the main-path bound above counts on.
	if len(lags) < 100 || len(delays) < 200 || resp.Responses < 3 {
		t.Fatalf("%s: %d pacing lags, %d received frames, %d responses: the session is too short to judge", thread, len(lags), len(delays), resp.Responses)
	}
	pd, sd := bench.Summarize(bench.Abs(aroundMedian(lags))), bench.Summarize(bench.Abs(aroundMedian(delays)))
	return threadFigures{
		Frames: pd.N, Received: sd.N, Responses: resp.Responses,
		PacingP50: pd.P50, PacingP99: pd.P99, Drift: bench.Drift(lags),
		StampP50: sd.P50, StampP99: sd.P99, FrameP99: bench.Summarize(bench.Abs(frameErrs)).P99,
		RespP99:      bench.Summarize(bench.Abs(resp.All())).P99,
		BufferingP50: bench.Summarize(bench.PlayerBuffering(tr.Events).Delays).P50,
		WorkerOrigin: meta.TimeOrigins.Worker != nil && !math.IsNaN(*meta.TimeOrigins.Worker),
	}
}

// aroundMedian returns xs minus their median (the pacing jitter: a
// schedule that started late shifts every lag alike).
func aroundMedian(xs []float64) []float64 {
	med := bench.Summarize(xs).P50
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = x - med
	}
	return out
}

// TestStallParam: stall_ms/stall_every_ms really block the main thread of
// / and /load (the longest event-loop gap over 2.5 s covers a stall), the
// page says so, the form and links carry session_thread and the stall,
// /load keeps session_thread out of its links, and a half-given stall is
// an error on the page, not a silent run.
func TestStallParam(t *testing.T) {
	t.Parallel() // no timing bound: may run beside another test (doc.go)
	s, ctx := pageTest(t, nil, 3*time.Minute)
	// gapJS: the longest wait between two setTimeout(0) callbacks over
	// 2.5 s, i.e. the longest time the page's main thread was not free.
	const gapJS = `new Promise(function(done){var t0=performance.now(),last=t0,gap=0;function f(){var t=performance.now();gap=Math.max(gap,t-last);last=t;if(t-t0<2500){setTimeout(f,0)}else{done(gap)}}setTimeout(f,0)})`
	cases := []struct {
		name, path  string
		banner      bool
		thread      string // #in-session-thread value ("" = no such select)
		link        string // id of the page's own link
		linkHas     []string
		linkHasNot  []string
		errContains string
	}{
		{"dashboard stalled", "/?stall_ms=250&stall_every_ms=1000", true, "worker", "link-test", []string{"stall_ms=250", "stall_every_ms=1000", "session_thread=worker"}, nil, ""},
		{"dashboard main thread, no stall", "/?session_thread=main", false, "main", "link-test", []string{"session_thread=main"}, []string{"stall_ms"}, ""},
		{"load page stalled", "/load?stall_ms=250&stall_every_ms=1000", true, "", "link-load", []string{"stall_ms=250", "stall_every_ms=1000"}, []string{"session_thread"}, ""},
		{"half a stall is an error", "/?stall_ms=250", false, "worker", "link-test", nil, []string{"stall_ms"}, "needs stall_every_ms"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if err := chromedp.Do(ctx, chromedp.Navigate(s.URL+tc.path)); err != nil {
				t.Fatal(err)
			}
			pageReady(t, ctx)
			var st struct {
				Banner, Thread, Link, Errors string
			}
			js := fmt.Sprintf(`(function(){function g(id,f){var e=document.getElementById(id);return e?f(e):""}
				return {Banner:g("stall-warning",function(e){return e.innerText}),Thread:g("in-session-thread",function(e){return e.value}),
				Link:g(%q,function(e){return e.getAttribute("href")}),Errors:document.body.innerText}})()`, tc.link)
			// The banner, the form and the link are drawn after the first
			// render (a stalled page draws late): wait until what the case
			// expects is on the page; the checks below report what was.
			_ = pollUntil(ctx, 20*time.Second, func() (bool, error) {
				raw, err := chromedp.Run(ctx, chromedp.Evaluate[[]byte](js))
				if err != nil {
					return false, err
				}
				if err := json.Unmarshal(raw, &st); err != nil {
					return false, err
				}
				ok := (st.Banner != "") == tc.banner && st.Thread == tc.thread && strings.Contains(st.Errors, tc.errContains)
				for _, w := range tc.linkHas {
					ok = ok && strings.Contains(st.Link, w)
				}
				return ok, nil
			})
			if got := st.Banner != ""; got != tc.banner {
				t.Errorf("stall banner %q, want shown = %v", st.Banner, tc.banner)
			}
			if tc.banner && !strings.Contains(st.Banner, "debug: main-thread stall 250 ms every 1000 ms is on") {
				t.Errorf("stall banner %q does not name the stall", st.Banner)
			}
			if st.Thread != tc.thread {
				t.Errorf("session thread select %q, want %q", st.Thread, tc.thread)
			}
			testkit.Mentions(t, fmt.Sprintf("link %q", st.Link), st.Link, tc.linkHas, tc.linkHasNot)
			if tc.errContains != "" && !strings.Contains(st.Errors, tc.errContains) {
				t.Errorf("the page does not say %q; it shows: %q", tc.errContains, st.Errors)
			}
			if !tc.banner {
				return
			}
			gap, err := chromedp.Run(ctx, chromedp.Evaluate[float64](gapJS, chromedp.EvalAwaitPromise))
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: longest main-thread gap over 2.5 s: %.0f ms", tc.path, gap)
			if gap < 200 {
				t.Errorf("longest main-thread gap %.0f ms over 2.5 s, want ≥ 200 ms: the 250 ms stall is not running", gap)
			}
		})
	}
}
