//go:build !js

package session_test

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/duplexscope/duplexscope/dataset"
	"github.com/duplexscope/duplexscope/internal/testkit"
	"github.com/duplexscope/duplexscope/metrics"
	"github.com/duplexscope/duplexscope/session"
	"github.com/duplexscope/duplexscope/sim"
	"github.com/duplexscope/duplexscope/trace"
)

var simSessions = flag.Int("sim.sessions", 16, "concurrent sessions in TestSimConcurrent")

// startSim serves the simulator on 127.0.0.1 (its handler serves exactly
// sim.Routes(), the paths `duplexscope serve` mounts it on).
func startSim(t testing.TB) *httptest.Server {
	t.Helper()
	s, err := sim.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return testkit.Serve(t, s, s)
}

func wsURL(ts *httptest.Server) string {
	return "ws" + strings.TrimPrefix(ts.URL, "http") + "/v1/realtime"
}

// getTruth is GET /sim/sessions/{id}/truth (server-monotonic ms).
func getTruth(t testing.TB, ts *httptest.Server, id string) sim.Truth {
	t.Helper()
	resp, err := http.Get(ts.URL + "/sim/sessions/" + id + "/truth")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("truth of %s: %s", id, resp.Status)
	}
	var tr sim.Truth
	if err := json.NewDecoder(resp.Body).Decode(&tr); err != nil {
		t.Fatal(err)
	}
	return tr
}

// clientTimes are a response's client receive instants (ms) in a wire log.
type clientTimes struct{ created, firstAudio, lastAudio, firstText float64 }

func receiveTimes(tr *trace.Session) map[string]*clientTimes {
	out := map[string]*clientTimes{}
	for _, e := range tr.Events {
		if e.Dir != trace.DirRecv {
			continue
		}
		rx, ok := session.DecodeReceived(e.Event)
		if !ok {
			continue
		}
		id := rx.ID // the session's identity rule
		ct := out[id]
		switch {
		case rx.Type == "response.created" && ct == nil:
			out[id] = &clientTimes{created: e.TMs, firstAudio: -1, lastAudio: -1, firstText: -1}
		case ct == nil:
		case rx.Type == "response.output_audio.delta" && len(rx.PCM()) > 0:
			if ct.firstAudio < 0 {
				ct.firstAudio = e.TMs
			}
			ct.lastAudio = e.TMs
		case strings.HasSuffix(rx.Type, "transcript.delta") && rx.Text != "" && ct.firstText < 0:
			ct.firstText = e.TMs
		}
	}
	return out
}

// clientTruthMedianBound bounds the median |client interval − true
// interval| (client receive clock vs simulator emit clock; the difference is
// clock-independent) over a round's responses, beyond the worst stall the
// stall monitor saw.
//
// Only the median is asserted. The test machine has 2 cores shared with
// other test processes and the simulator runs in this process, so single
// receive stamps are late by whatever the machine does: the OS can preempt
// the one thread that runs a session's reader while the monitor runs on the
// other, so no monitor bounds a single stamp (CI, 2026-12-05: one interval
// off by 240.8 ms while the monitor's worst was 91.3 ms; 207ba32: 289 ms
// against a 279 ms bound). The median is another matter: the monitor samples
// every 2 ms through the session's, so a majority of stamps later than
// its worst sample by 20 ms is the client's own systematic error (a stamp
// taken after pacing or processing, or at the wrong event: a whole frame).
// That a stamp is taken on arrival, before any lock or observer, is proven
// on a fake clock (TestReceiveStampNotDelayed); the per-response figures
// (goal p99 ≤ 1 ms native, ≤ 1.5× the bare client at 16) are make bench's
// (BenchmarkTimingFidelity and the bench's fidelity group).
const clientTruthMedianBound = 20 * time.Millisecond

// stallMonitor records how long the process was kept from running: the
// worst lateness of a 2 ms sleep loop, and the worst delivery time of a
// stamp written every 2 ms to a loopback socket and stamped again when the
// reader gets it. The second is the receive path the sessions use (the
// netpoller readies the reader, which then waits for a P behind whatever
// else is runnable): under -race on a loaded machine it can exceed the
// timer's lateness, and a session's receive stamp was once late by more
// than the timer alone allowed (issue 17: 289 ms against a 279 ms bound).
type stallMonitor struct {
	stop chan struct{}
	done chan time.Duration
}

func startStallMonitor() *stallMonitor {
	m := &stallMonitor{stop: make(chan struct{}), done: make(chan time.Duration, 1)}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	var w, r net.Conn
	if err == nil {
		w, err = net.Dial("tcp", ln.Addr().String())
		if err == nil {
			r, err = ln.Accept()
		}
		ln.Close()
	}
	origin := time.Now()
	delivery := make(chan time.Duration, 1)
	if err != nil { // no loopback socket: the timer alone
		delivery <- 0
	} else {
		go func() {
			var worst time.Duration
			var b [8]byte
			for {
				if _, err := io.ReadFull(r, b[:]); err != nil {
					delivery <- worst
					return
				}
				sent := time.Duration(binary.LittleEndian.Uint64(b[:]))
				worst = max(worst, time.Since(origin)-sent)
			}
		}()
	}
	go func() {
		var worst time.Duration
		for {
			t0 := time.Now()
			select {
			case <-m.stop:
				if w != nil {
					w.Close()
					r.Close()
				}
				m.done <- max(worst, <-delivery)
				return
			case <-time.After(2 * time.Millisecond):
			}
			worst = max(worst, time.Since(t0)-2*time.Millisecond)
			if w != nil {
				var b [8]byte
				binary.LittleEndian.PutUint64(b[:], uint64(time.Since(origin)))
				_, _ = w.Write(b[:])
			}
		}
	}()
	return m
}

func (m *stallMonitor) Stop() time.Duration { close(m.stop); return <-m.done }

// TestSimConcurrent runs 16 concurrent paced sessions of the builtin clips
// against the simulator on real clocks and checks every response against
// the simulator's truth: server-reported TTFT/TTFP/TPOT equal to the truth
// exactly, the median client-measured interval error within
// clientTruthMedianBound of the worst stall.
func TestSimConcurrent(t *testing.T) {
	n := *simSessions
	if testing.Short() && n > 4 {
		n = 4
	}
	fid := measureFidelity(t, n, true)
	t.Logf("worst process stall during the sessions: %v", fid.stall)
	t.Logf("%d sessions, %d responses; created→first audio error p50 %.3f p99 %.3f ms; first→last audio error p50 %.3f p99 %.3f ms; pacing lag p50 %.3f p99 %.3f max %.3f ms",
		n, fid.responses, pct(fid.createdAudio, 0.5), pct(fid.createdAudio, 0.99), pct(fid.audioSpan, 0.5), pct(fid.audioSpan, 0.99), fid.pacing.P50Ms, fid.pacing.P99Ms, fid.pacing.MaxMs)
}

// BenchmarkTimingFidelity (issue 9) reports the headless runner's
// client-vs-truth interval errors (|client − true| created→first audio and
// first→last audio, pooled) and input pacing lag at concurrency 1 and 16,
// against the in-process simulator on real clocks. One op = one round of
// sessions.
//
//	go test -run '^$' -bench TimingFidelity -benchtime 3x ./session/
func BenchmarkTimingFidelity(b *testing.B) {
	for _, n := range []int{1, 16} {
		b.Run(fmt.Sprintf("sessions=%d", n), func(b *testing.B) {
			var all []float64
			var lags []float64
			var worstStall time.Duration
			for range b.N {
				f := measureFidelity(b, n, false)
				all = append(append(all, f.createdAudio...), f.audioSpan...)
				lags = append(lags, f.pacing.P99Ms)
				worstStall = max(worstStall, f.stall)
			}
			b.ReportMetric(pct(all, 0.5), "err-p50-ms")
			b.ReportMetric(pct(all, 0.99), "err-p99-ms")
			b.ReportMetric(pct(all, 1), "err-max-ms")
			b.ReportMetric(pct(lags, 0.5), "pacing-p99-ms")
			b.ReportMetric(durMsT(worstStall), "stall-max-ms")
			b.ReportMetric(0, "ns/op")
		})
	}
}

// fidelity is what one round of concurrent sessions measured.
type fidelity struct {
	createdAudio, audioSpan []float64 // client − truth interval errors, ms
	pacing                  session.LagStats
	stall                   time.Duration
	responses               int
}

// measureFidelity runs n concurrent sessions of the builtin clips against a
// fresh simulator and checks each response against its truth: server values
// exactly, and with strict the median client interval error within its bound (the
// benchmark only measures them); it returns the errors measured.
func measureFidelity(t testing.TB, n int, strict bool) fidelity {
	ts := startSim(t)
	samples, err := dataset.Load(dataset.BuiltinName, nil)
	if err != nil {
		t.Fatal(err)
	}
	type out struct {
		res  *session.Result
		err  error
		live *metrics.Accumulator // fed by an Observer during the session, as the page does
	}
	outs := make([]out, n)
	mon := startStallMonitor()
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		s := samples[i%len(samples)]
		pcm, err := s.PCM(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		wg.Go(func() {
			acc := &metrics.Accumulator{}
			outs[i].live = acc
			cfg := &session.Config{URL: wsURL(ts), Model: "sim", SampleID: fmt.Sprintf("%s-%d", s.SampleID, i), Split: "builtin", CompletionTimeout: time.Minute,
				Observers: []session.Observer{session.ObserverFuncs{Event: func(ev trace.Event, _ *session.Received) { acc.Add(ev) }}}}
			outs[i].res, outs[i].err = session.Run(context.Background(), cfg, pcm)
		})
	}
	wg.Wait()
	stall := mon.Stop()
	var errsCreatedAudio, errsAudioSpan []float64
	var lags []time.Duration
	responses := 0
	for i, o := range outs {
		if o.err != nil {
			t.Fatalf("session %d: %v", i, o.err)
		}
		res := o.res
		lags = append(lags, res.PacingLag...)
		tru := getTruth(t, ts, res.SessionID)
		client := receiveTimes(res.Trace)
		rows := map[string]metrics.Row{}
		for _, r := range metrics.ScoreSession(*res.Trace).Rows {
			rows[r.ResponseID] = r
		}
		if len(tru.Responses) == 0 {
			t.Errorf("session %d (%s): the simulator answered no turn", i, res.SessionID)
		}
		for _, tr := range tru.Responses {
			c := client[tr.ResponseID]
			if tr.FirstAudioMs == nil && (c == nil || c.firstAudio < 0) {
				continue // a listen decision: no audio on either side
			}
			if c == nil || tr.CreatedMs == nil || tr.FirstAudioMs == nil || tr.LastAudioMs == nil || c.firstAudio < 0 {
				t.Errorf("session %d response %s: missing times (client %+v, truth %+v)", i, tr.ResponseID, c, tr)
				continue
			}
			responses++
			e1 := (c.firstAudio - c.created) - (*tr.FirstAudioMs - *tr.CreatedMs)
			e2 := (c.lastAudio - c.firstAudio) - (*tr.LastAudioMs - *tr.FirstAudioMs)
			errsCreatedAudio = append(errsCreatedAudio, e1)
			errsAudioSpan = append(errsAudioSpan, e2)
			row, ok := rows[tr.ResponseID]
			if !ok || row.Raw == nil {
				t.Errorf("session %d response %s: no metrics row", i, tr.ResponseID)
				continue
			}
			if row.Raw.TTFPClock != metrics.ClockServer || tr.TTFPMs == nil || row.Raw.TTFPMs != *tr.TTFPMs {
				t.Errorf("session %d response %s: server TTFP %v (%s), truth %v", i, tr.ResponseID, row.Raw.TTFPMs, row.Raw.TTFPClock, tr.TTFPMs)
			}
			if tr.TTFTMs != nil && (row.Raw.TTFTMs == nil || *row.Raw.TTFTMs != *tr.TTFTMs) {
				t.Errorf("session %d response %s: server TTFT %v, truth %v", i, tr.ResponseID, row.Raw.TTFTMs, *tr.TTFTMs)
			}
			if tr.TPOTMs != nil && (row.Raw.TPOTMs == nil || *row.Raw.TPOTMs != *tr.TPOTMs) {
				t.Errorf("session %d response %s: server TPOT %v, truth %v", i, tr.ResponseID, row.Raw.TPOTMs, *tr.TPOTMs)
			}
		}
		// The live accumulator (stream start from the wire log's local
		// entry) ends with the batch result (after learning the identity).
		o.live.SetMeta(res.Trace.Session)
		liveJSON, _ := o.live.Snapshot().Object().MarshalJSON()
		batchJSON, _ := metrics.ScoreSession(*res.Trace).Object().MarshalJSON()
		if string(liveJSON) != string(batchJSON) {
			t.Errorf("session %d: live observer metrics differ from the batch score of its wire log:\nlive  %s\nbatch %s", i, liveJSON, batchJSON)
		}
		// The wire log scores the same as replaying it from JSON.
		b, err := json.Marshal(res.Trace)
		if err != nil {
			t.Fatal(err)
		}
		back, err := trace.DecodeSession(b)
		if err != nil {
			t.Fatal(err)
		}
		live, _ := metrics.ScoreSession(*res.Trace).Object().MarshalJSON()
		replayed, _ := metrics.ScoreSession(back).Object().MarshalJSON()
		if string(live) != string(replayed) {
			t.Errorf("session %d: metrics of the wire log change after a JSON round trip", i)
		}
		if n := strings.Count(string(b), `"delta":""`); n > 0 {
			t.Errorf("session %d: %d empty audio payloads in the wire log (audio must be kept)", i, n)
		}
	}
	for name, errs := range map[string][]float64{"created→first audio": errsCreatedAudio, "first→last audio": errsAudioSpan} {
		if p, b := pct(errs, 0.5), durMsT(clientTruthMedianBound+stall); strict && !(p <= b) {
			t.Errorf("%s: median |client − truth| %.3f ms, bound %.3f ms (%v + the worst stall %v)", name, p, b, clientTruthMedianBound, stall)
		}
	}
	return fidelity{createdAudio: errsCreatedAudio, audioSpan: errsAudioSpan, pacing: session.SummarizeLag(lags), stall: stall, responses: responses}
}

func durMsT(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// pct is the nearest-rank percentile of |x|.
func pct(x []float64, p float64) float64 {
	if len(x) == 0 {
		return math.NaN()
	}
	a := make([]float64, len(x))
	for i, v := range x {
		a[i] = math.Abs(v)
	}
	sort.Float64s(a)
	return metrics.Percentile(a, p)
}

// TestSimFaults runs one session per simulator fault mode: the session ends
// or recovers as the fault's documentation says, with a typed error naming
// it, and a failed session's wire log is flagged incomplete while keeping the
// metrics of what arrived.
func TestSimFaults(t *testing.T) {
	ts := startSim(t)
	samples, err := dataset.Load(dataset.BuiltinName, &dataset.Options{Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	pcm, err := samples[0].PCM(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	isServer := func(code string) func(error) bool {
		return func(err error) bool {
			var se *session.ServerError
			return errors.As(err, &se) && se.Code == code
		}
	}
	cases := []struct {
		fault    string
		ok       func(error) bool // nil: the session must succeed
		rows     bool             // metrics rows expected from what arrived
		warning  string           // substring of a Result warning
		settings func(*session.Config)
	}{
		{fault: "no_request_metrics", rows: true},
		{fault: "legacy_audio", warning: "legacy"},
		{fault: "no_sample_rate", rows: true},
		{fault: "no_audio_duration", rows: true},
		{fault: "audio_field", rows: true},
		{fault: "dropped_event", rows: true},
		{fault: "malformed_json", rows: true, warning: "not valid JSON"},
		{fault: "delayed_burst", rows: true},
		{fault: "stalled_reader", rows: true},
		{fault: "slow_writer", rows: true},
		{fault: "error_event", ok: isServer("engine_error"), rows: true},
		{fault: "error_event,flat_error", ok: isServer("engine_error"), rows: true},
		{fault: "unexpected_close", rows: true, ok: func(err error) bool {
			var ue *session.UnexpectedCloseError
			return errors.As(err, &ue) && ue.Reason == "server_shutdown"
		}},
		{fault: "disconnect_mid_response", ok: func(err error) bool { return errors.Is(err, session.ErrTransportDropped) }},
		{fault: "dropped_done", ok: func(err error) bool {
			return errors.Is(err, session.ErrCompletionTimeout) && strings.Contains(err.Error(), "without response.done")
		}, settings: func(c *session.Config) { c.CompletionTimeout = 15 * time.Second }},
		{fault: "slow_handshake", ok: func(err error) bool {
			var he *session.HandshakeError
			return errors.As(err, &he)
		}, settings: func(c *session.Config) { c.HandshakeTimeout = time.Second }},
	}
	// All sessions run at once (t.Parallel would run only GOMAXPROCS of them
	// at a time); the checks run per case afterwards.
	type outcome struct {
		res *session.Result
		err error
	}
	outs := make([]outcome, len(cases))
	var wg sync.WaitGroup
	for i, tc := range cases {
		cfg := &session.Config{URL: wsURL(ts) + "?sim_fault=" + tc.fault, Model: "sim", Settle: 500 * time.Millisecond, CompletionTimeout: time.Minute}
		if tc.settings != nil {
			tc.settings(cfg)
		}
		wg.Go(func() {
			outs[i].res, outs[i].err = session.Run(context.Background(), cfg, pcm)
		})
	}
	wg.Wait()
	for i, tc := range cases {
		t.Run(tc.fault, func(t *testing.T) {
			res, err := outs[i].res, outs[i].err
			if tc.ok == nil {
				if err != nil {
					t.Fatalf("err = %v, want success", err)
				}
			} else if !tc.ok(err) {
				t.Fatalf("err = %v (%T), not the expected failure", err, err)
			}
			if res == nil {
				if tc.ok == nil || tc.rows {
					t.Fatal("no Result")
				}
				return // handshake failure: nothing recorded
			}
			if res.Incomplete != (tc.ok != nil) {
				t.Errorf("Incomplete = %v, want %v", res.Incomplete, tc.ok != nil)
			}
			if rows := metrics.ScoreSession(*res.Trace).Rows; tc.rows && len(rows) == 0 {
				t.Errorf("no metrics rows from what arrived")
			}
			if tc.warning != "" && !strings.Contains(strings.Join(res.Warnings, "\n"), tc.warning) {
				t.Errorf("warnings %q lack %q", res.Warnings, tc.warning)
			}
		})
	}
}
