//go:build !js

package session_test

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/duplexscope/duplexscope/dataset"
	"github.com/duplexscope/duplexscope/metrics"
	"github.com/duplexscope/duplexscope/session"
	"github.com/duplexscope/duplexscope/sim"
	"github.com/duplexscope/duplexscope/trace"
)

var simSessions = flag.Int("sim.sessions", 16, "concurrent sessions in TestSimConcurrent")

// startSim serves the simulator on 127.0.0.1 as `duplexscope serve` mounts it.
func startSim(t testing.TB) *httptest.Server {
	t.Helper()
	s, err := sim.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/v1/realtime", s)
	mux.Handle("/sim/", s)
	ts := httptest.NewServer(mux)
	t.Cleanup(func() {
		ts.Close()
		s.Close()
	})
	return ts
}

func wsURL(ts *httptest.Server) string {
	return "ws" + strings.TrimPrefix(ts.URL, "http") + "/v1/realtime"
}

// truth is GET /sim/sessions/{id}/truth (server-monotonic ms).
type truth struct {
	SessionID string `json:"session_id"`
	Responses []struct {
		ResponseID   string   `json:"response_id"`
		CreatedMs    *float64 `json:"created_ms"`
		FirstTextMs  *float64 `json:"first_text_ms"`
		FirstAudioMs *float64 `json:"first_audio_ms"`
		LastAudioMs  *float64 `json:"last_audio_ms"`
		TTFTMs       *float64 `json:"ttft_ms"`
		TTFPMs       *float64 `json:"ttfp_ms"`
		TPOTMs       *float64 `json:"tpot_ms"`
	} `json:"responses"`
}

func getTruth(t testing.TB, ts *httptest.Server, id string) truth {
	t.Helper()
	resp, err := http.Get(ts.URL + "/sim/sessions/" + id + "/truth")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("truth of %s: %s", id, resp.Status)
	}
	var tr truth
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
		var ev struct {
			Type       string `json:"type"`
			ResponseID string `json:"response_id"`
			Response   struct {
				ID string `json:"id"`
			} `json:"response"`
			Delta string `json:"delta"`
		}
		if json.Unmarshal(e.Event, &ev) != nil {
			continue
		}
		id := ev.ResponseID
		if id == "" {
			id = ev.Response.ID
		}
		ct := out[id]
		switch {
		case ev.Type == "response.created" && ct == nil:
			out[id] = &clientTimes{created: e.TMs, firstAudio: -1, lastAudio: -1, firstText: -1}
		case ct == nil:
		case ev.Type == "response.output_audio.delta" && ev.Delta != "":
			if ct.firstAudio < 0 {
				ct.firstAudio = e.TMs
			}
			ct.lastAudio = e.TMs
		case strings.HasSuffix(ev.Type, "transcript.delta") && ev.Delta != "" && ct.firstText < 0:
			ct.firstText = e.TMs
		}
	}
	return out
}

// Loose bounds on |client interval − true interval| (client receive clock vs
// simulator emit clock; the difference is clock-independent). The test
// machine has 2 cores shared by other builds and the simulator runs in the
// same process, so single responses can be delayed by CPU starvation
// (observed up to ≈ 270 ms at load average 4.7, p50 then still ≈ 10 ms):
// every response must be within clientTruthBound and the median within
// clientTruthMedianBound, which a systematic error (a receive stamp taken
// after pacing, or at the wrong event, ≥ one 200 ms frame) cannot meet.
// The tight figures (goal p99 ≤ 1 ms native) belong to make bench.
const (
	clientTruthBound       = 300 * time.Millisecond
	clientTruthMedianBound = 30 * time.Millisecond
)

// TestSimConcurrent runs 16 concurrent paced sessions of the builtin clips
// against the simulator on real clocks and checks every response against
// the simulator's truth: client-measured intervals within clientTruthBound,
// server-reported TTFT/TTFP equal to the truth exactly.
func TestSimConcurrent(t *testing.T) {
	ts := startSim(t)
	samples, err := dataset.Load(dataset.BuiltinName, nil)
	if err != nil {
		t.Fatal(err)
	}
	n := *simSessions
	if testing.Short() && n > 4 {
		n = 4
	}
	type out struct {
		res *session.Result
		err error
	}
	outs := make([]out, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		s := samples[i%len(samples)]
		pcm, err := s.PCM(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			cfg := &session.Config{URL: wsURL(ts), Model: "sim", SampleID: fmt.Sprintf("%s-%d", s.SampleID, i), Split: "builtin", CompletionTimeout: time.Minute}
			outs[i].res, outs[i].err = session.Run(context.Background(), cfg, pcm)
		}()
	}
	wg.Wait()
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
			for _, e := range []float64{e1, e2} {
				if math.Abs(e) > float64(clientTruthBound)/float64(time.Millisecond) {
					t.Errorf("session %d response %s: client − truth interval error %.3f ms, bound %v", i, tr.ResponseID, e, clientTruthBound)
				}
			}
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
		if p := pct(errs, 0.5); !(p <= float64(clientTruthMedianBound)/float64(time.Millisecond)) {
			t.Errorf("%s: median |client − truth| %.3f ms, bound %v", name, p, clientTruthMedianBound)
		}
	}
	st := session.SummarizeLag(lags)
	t.Logf("%d sessions, %d responses; created→first audio error p50 %.3f p99 %.3f ms; first→last audio error p50 %.3f p99 %.3f ms; pacing lag p50 %.3f p99 %.3f max %.3f ms",
		n, responses, pct(errsCreatedAudio, 0.5), pct(errsCreatedAudio, 0.99), pct(errsAudioSpan, 0.5), pct(errsAudioSpan, 0.99), st.P50Ms, st.P99Ms, st.MaxMs)
}

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
		}, settings: func(c *session.Config) { c.CompletionTimeout = 4 * time.Second }},
		{fault: "slow_handshake", ok: func(err error) bool {
			var he *session.HandshakeError
			return errors.As(err, &he)
		}, settings: func(c *session.Config) { c.HandshakeTimeout = time.Second }},
	}
	for _, tc := range cases {
		t.Run(tc.fault, func(t *testing.T) {
			t.Parallel()
			cfg := &session.Config{URL: wsURL(ts) + "?sim_fault=" + tc.fault, Model: "sim", Settle: 500 * time.Millisecond, CompletionTimeout: time.Minute}
			if tc.settings != nil {
				tc.settings(cfg)
			}
			res, err := session.Run(context.Background(), cfg, pcm)
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
