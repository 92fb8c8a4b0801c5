//go:build !js

package sim

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/google/go-cmp/cmp"
)

// TestConcurrentSessions runs 64 sessions at once and checks that each
// client received exactly its own session's frames, in truth order.
// It runs alone (not parallel): under -race, 64 sessions are heavy enough
// to starve other tests' handshakes.
//
// Every session finishes its handshake (session.created received) before
// any streams: 63 sessions streaming unpaced input under -race starved the
// 64th's session.update past the simulator's 10 s ConfigTimeout on a
// loaded 2-core machine (close 1008 "config_timeout", reproduced with 8
// busy loops beside the test). The handshakes alone are 64 upgrades and
// 64 small events, well under a second of CPU even at a tenth of a core.
func TestConcurrentSessions(t *testing.T) {
	srv, hs := newTestServer(t, &Options{Profile: ProfileTest})
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	const n = 64
	var wg, handshakes sync.WaitGroup
	errs := make(chan error, n)
	start := make(chan struct{})
	for i := range n {
		handshakes.Add(1)
		wg.Go(func() {
			var once sync.Once
			handshaken := func() { once.Do(handshakes.Done) }
			defer handshaken() // also when dialRaw or send end the goroutine
			errs <- oneSession(ctx, t, srv, hs.URL, i, handshaken, start)
		})
	}
	handshakes.Wait()
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

// oneSession runs session i: handshake, then (once start is closed) its
// input, final commit, settle and close; it checks the received frames
// against the session's truth.
func oneSession(ctx context.Context, t *testing.T, srv *Server, url string, i int, handshaken func(), start <-chan struct{}) error {
	c := dialRaw(ctx, t, url, fmt.Sprintf("sim_seed=%d", i))
	c.send(ctx, sessionUpdate())
	var got []string
	var sid string
	evs, err := c.until(ctx, typeIs("session.created"))
	handshaken()
	for _, m := range evs {
		got = append(got, m["type"].(string)+"/"+str(m, "response_id"))
	}
	if err != nil {
		return fmt.Errorf("session %d: handshake: %v", i, err)
	}
	sid = str(evs[len(evs)-1], "session", "id")
	select {
	case <-start:
	case <-ctx.Done():
		return fmt.Errorf("session %d: %v waiting for the other handshakes", i, ctx.Err())
	}
	// Vary the input per session: i%3+1 turns.
	turns := [][2]int{{300 + 10*i, 300}, {300, 300}, {400, 300}}[:i%3+1]
	c.streamPCM(ctx, speechPCM(turns...), 6400)
	c.send(ctx, map[string]any{"type": "input_audio_buffer.commit", "final": true})
	for {
		evs, err := c.until(ctx, func(map[string]any) bool { return true })
		if err != nil {
			return fmt.Errorf("session %d: %v", i, err)
		}
		m := evs[0]
		typ := m["type"].(string)
		got = append(got, typ+"/"+str(m, "response_id"))
		if typ == "input_audio_buffer.committed" {
			break
		}
	}
	// Settle: wait until truth says every response is done, then close
	// (bounded by ctx). The commit has been handled, so the only answer
	// still to come is one pending behind the active response, and the
	// truth lists it before marking the active one done
	// (TestTruthSettledMeansNoAnswerPending).
	for {
		tr, _ := srv.Truth(sid)
		open := 0
		for _, r := range tr.Responses {
			if r.DoneMs == nil {
				open++
			}
		}
		if open == 0 && len(tr.Responses) > 0 {
			break
		}
		evs, err := c.until(ctx, func(map[string]any) bool { return true })
		if err != nil {
			return fmt.Errorf("session %d: %v", i, err)
		}
		got = append(got, evs[0]["type"].(string)+"/"+str(evs[0], "response_id"))
	}
	c.send(ctx, map[string]any{"type": "session.close"})
	for m := range c.recv {
		got = append(got, m["type"].(string)+"/"+str(m, "response_id"))
	}
	tr, ok := srv.Truth(sid)
	if !ok {
		return fmt.Errorf("session %d: no truth for %q", i, sid)
	}
	var want []string
	for _, e := range tr.Events {
		rid := e.ResponseID
		if strings.HasPrefix(e.Type, "conversation.item.") {
			rid = "" // truth attributes these to their response; the wire event has no response_id
		}
		want = append(want, e.Type+"/"+rid)
	}
	if d := cmp.Diff(want, got); d != "" {
		return fmt.Errorf("session %d (%s): received frames differ from its truth (-truth +received):\n%s", i, sid, d)
	}
	speak := 0
	for _, r := range tr.Responses {
		if r.Kind == "speak" {
			speak++
			if r.TTFPMs == nil {
				return fmt.Errorf("session %d: response %s without ttfp", i, r.ResponseID)
			}
		}
	}
	if speak < 1 || tr.EndReason != "client_close" {
		return fmt.Errorf("session %d: %d spoken responses, end %q", i, speak, tr.EndReason)
	}
	return nil
}

// TestTransportFaults checks faults whose effect is on the transport.
func TestTransportFaults(t *testing.T) {
	t.Parallel()
	_, hs := newTestServer(t, &Options{Profile: ProfileTest})
	tests := []struct {
		fault string
		check func(t *testing.T, frames [][]byte, evs []map[string]any, err error, took time.Duration)
	}{
		{FaultDisconnectMidResponse, func(t *testing.T, _ [][]byte, evs []map[string]any, err error, _ time.Duration) {
			var ce websocket.CloseError
			if errors.As(err, &ce) {
				t.Errorf("got a close frame %v; want a dropped connection", ce)
			}
			for _, m := range evs {
				if m["type"] == "session.closed" {
					t.Error("session.closed sent")
				}
			}
		}},
		{FaultUnexpectedClose, func(t *testing.T, _ [][]byte, evs []map[string]any, err error, _ time.Duration) {
			var ce websocket.CloseError
			last := evs[len(evs)-1]
			if !errors.As(err, &ce) || ce.Code != websocket.StatusNormalClosure || last["type"] != "session.closed" || str(last, "reason") != "server_shutdown" {
				t.Errorf("err %v last %v", err, last)
			}
		}},
		{FaultMalformedJSON, func(t *testing.T, frames [][]byte, evs []map[string]any, _ error, _ time.Duration) {
			bad := 0
			for _, f := range frames {
				if !json.Valid(f) {
					bad++
				}
			}
			if bad != 1 || evs[len(evs)-1]["type"] != "session.closed" {
				t.Errorf("%d invalid frames; last %v", bad, evs[len(evs)-1]["type"])
			}
		}},
		{FaultSlowWriter, func(t *testing.T, frames [][]byte, _ []map[string]any, _ error, took time.Duration) {
			// Lower bound only: every frame of k KiB waits (k−1)×20 ms.
			var min time.Duration
			for _, f := range frames {
				min += time.Duration((len(f)-1)/slowChunk) * slowPause
			}
			if took < min || min == 0 {
				t.Errorf("session took %v, slow writing alone needs ≥ %v", took, min)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.fault, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			start := time.Now()
			c := dialRaw(ctx, t, hs.URL, "sim_fault="+tc.fault)
			c.send(ctx, sessionUpdate())
			// The input is sent unpaced, but a sender slowed by a loaded
			// machine can still be writing when the first response starts:
			// a dropped connection then fails the write, which is the fault
			// seen from the sending side (a flake on a fresh clone).
			if err := c.tryStreamPCM(ctx, speechPCM(threeTurns...), 6400); err != nil && tc.fault != FaultDisconnectMidResponse {
				t.Fatal(err)
			}
			var evs []map[string]any
			var frames [][]byte
			collect := func(pred func(map[string]any) bool) bool {
				for {
					select {
					case m, ok := <-c.recv:
						if !ok {
							return false
						}
						frames = append(frames, <-c.raw)
						evs = append(evs, m)
						if pred(m) {
							return true
						}
					case <-ctx.Done():
						t.Fatal("timeout")
					}
				}
			}
			if collect(func(m map[string]any) bool { return m["type"] == "response.done" && len(evs) > 30 }) {
				c.send(ctx, map[string]any{"type": "session.close"})
				collect(func(map[string]any) bool { return false })
			}
			tc.check(t, frames, evs, <-c.err, time.Since(start))
		})
	}
}

// TestManualClockHandshake drives a real websocket with an injected clock:
// slow_handshake holds session.created for 35 s of clock time, and a
// client that never sends session.update gets config_timeout at 10 s.
func TestManualClockHandshake(t *testing.T) {
	t.Parallel()
	clk, hs, ctx := newManualServer(t, 20*time.Second)
	waitWake := func(at time.Duration) {
		t.Helper()
		for {
			_, ch := clk.Waiters()
			if next, ok := clk.NextWaiter(); ok && next == at {
				return
			}
			select {
			case <-ch:
			case <-ctx.Done():
				t.Fatalf("no waiter at %v", at)
			}
		}
	}
	c := dialRaw(ctx, t, hs.URL, "sim_fault=slow_handshake")
	c.send(ctx, sessionUpdate())
	waitWake(35 * time.Second) // the writer now sleeps until session.created is due
	select {
	case m := <-c.recv:
		t.Fatalf("received %v before the handshake delay", m["type"])
	default:
	}
	clk.Set(35 * time.Second)
	evs, err := c.until(ctx, typeIs("session.updated"))
	if err != nil || evs[0]["type"] != "session.created" {
		t.Fatalf("%v %v", err, evs)
	}
	c.send(ctx, map[string]any{"type": "session.close"})
	if _, err := c.until(ctx, typeIs("session.closed")); err != nil {
		t.Fatal(err)
	}

	c2 := dialRaw(ctx, t, hs.URL, "")
	waitWake(35*time.Second + ConfigTimeout) // opened at 35 s
	clk.Set(35*time.Second + ConfigTimeout)
	evs, _ = c2.until(ctx, typeIs("error"))
	if len(evs) != 1 || str(evs[0], "error", "code") != "config_timeout" {
		t.Fatalf("%v", evs)
	}
	for range c2.recv {
	}
	var ce websocket.CloseError
	if err := <-c2.err; !errors.As(err, &ce) || ce.Code != websocket.StatusPolicyViolation {
		t.Errorf("close %v", err)
	}
}

func TestTruthRoute(t *testing.T) {
	t.Parallel()
	_, hs := newTestServer(t, &Options{Profile: ProfileTest, KeepSessions: 2})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var ids []string
	for range 3 {
		c := dialRaw(ctx, t, hs.URL, "")
		c.send(ctx, sessionUpdate())
		evs, err := c.until(ctx, typeIs("session.created"))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, str(evs[len(evs)-1], "session", "id"))
		c.streamPCM(ctx, speechPCM([2]int{400, 400}), 6400)
		if _, err := c.until(ctx, typeIs("response.done")); err != nil {
			t.Fatal(err)
		}
		c.send(ctx, map[string]any{"type": "session.close"})
		for range c.recv {
		}
	}
	get := func(path string) (int, map[string]any) {
		resp, err := http.Get(hs.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		var m map[string]any
		_ = json.Unmarshal(b, &m)
		return resp.StatusCode, m
	}
	if code, _ := get("/sim/sessions/" + ids[0] + "/truth"); code != http.StatusNotFound {
		t.Errorf("evicted session: %d", code)
	}
	if code, _ := get("/sim/sessions/nope/truth"); code != http.StatusNotFound {
		t.Errorf("unknown session: %d", code)
	}
	code, m := get("/sim/sessions/" + ids[2] + "/truth")
	if code != 200 || m["session_id"] != ids[2] {
		t.Fatalf("%d %v", code, m)
	}
	r := m["responses"].([]any)[0].(map[string]any)
	var keys []string
	for k := range r {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range []string{"response_id", "created_ms", "first_text_ms", "first_audio_ms", "last_audio_ms", "audio_ms", "ttft_ms", "ttfp_ms", "tpot_ms"} {
		if _, ok := r[k]; !ok {
			t.Errorf("truth response lacks %q (has %v)", k, keys)
		}
	}
	if _, m := get("/sim/sessions"); len(m["sessions"].([]any)) != 2 {
		t.Errorf("kept sessions %v", m)
	}
	if code, m := get("/sim/options"); code != 200 || len(m["faults"].([]any)) != len(Faults()) || len(m["profiles"].([]any)) != len(Profiles()) ||
		m["default_profile"] != DefaultProfile {
		t.Errorf("options %d %v", code, m)
	}
}

func TestOptions(t *testing.T) {
	t.Parallel()
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	o := RegisterFlags(fs)
	if err := fs.Parse([]string{"--sim-profile", "personaplex", "--sim-fault", "no_sample_rate", "--sim-event-names", "legacy", "--sim-rtf", "0.5"}); err != nil {
		t.Fatal(err)
	}
	base, err := o.baseScenario()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		query   string
		profile string
		faults  []string
		legacy  bool
		rtf     float64
		wantErr string
	}{
		{"", "personaplex", []string{"no_sample_rate"}, true, 0.5, ""},
		{"sim_profile=test&sim_fault=audio_field,flat_error&sim_event_names=current&sim_rtf=2", "test", []string{"audio_field", "flat_error"}, false, 2, ""},
		{"sim_fault=", "personaplex", []string{}, true, 0.5, ""},
		{"sim_fault=none", "personaplex", []string{}, true, 0.5, ""},
		{"sim_profile=gpt", "", nil, false, 0, "unknown profile"},
		{"sim_fault=explode", "", nil, false, 0, "unknown fault"},
		{"sim_event_names=both", "", nil, false, 0, "sim_event_names"},
		{"sim_rtf=-1", "", nil, false, 0, "sim_rtf"},
		{"sim_behavior=sleepy", "", nil, false, 0, "unknown behavior"},
	}
	for _, tc := range tests {
		q, _ := parseQuery(tc.query)
		cfg, err := o.resolve(base, q)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%q: err %v, want %q", tc.query, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%q: %v", tc.query, err)
		}
		if cfg.sc.Name != tc.profile || !cmp.Equal(cfg.faults.list(), tc.faults) || cfg.legacy != tc.legacy || cfg.sc.RTF != tc.rtf {
			t.Errorf("%q: profile %s faults %v legacy %v rtf %v", tc.query, cfg.sc.Name, cfg.faults.list(), cfg.legacy, cfg.sc.RTF)
		}
	}
	q, _ := parseQuery("sim_turns_ms=1000,2500")
	if cfg, err := o.resolve(base, q); err != nil || !cmp.Equal(cfg.sc.TurnsMs, []int{1000, 2500}) {
		t.Errorf("sim_turns_ms: %v %v", cfg, err)
	}
	q, _ = parseQuery("sim_packet_ms=40")
	if cfg, err := o.resolve(base, q); err != nil || cfg.sc.PacketMs != 40 {
		t.Errorf("sim_packet_ms=40: %v %v", cfg, err)
	}
	q, _ = parseQuery("sim_turns_ms=1000,x")
	if _, err := o.resolve(base, q); err == nil {
		t.Error("bad sim_turns_ms accepted")
	}
	if _, err := New(&Options{Profile: "test", ScenarioFile: "x.json"}); err == nil {
		t.Error("profile + scenario accepted")
	}
	if _, err := New(&Options{Fault: "nope"}); err == nil {
		t.Error("bad fault accepted")
	}
	if _, err := New(&Options{ScenarioFile: "testdata/does-not-exist.json"}); err == nil {
		t.Error("missing scenario accepted")
	}
	s, err := New(&Options{ScenarioFile: "testdata/scenario.json"})
	if err != nil {
		t.Fatal(err)
	}
	if s.base.Name != "example" || s.base.TTFPMs.Kind != "lognormal" || s.base.PacketMs != 100 || s.base.RTF != 0.5 {
		t.Errorf("scenario file: %+v", s.base)
	}
	_ = s.Close()
	if _, err := ParseScenario([]byte(`{"base":"test","ttfp":5}`)); err == nil {
		t.Error("unknown scenario key accepted")
	}
}

func parseQuery(q string) (url.Values, error) { return url.ParseQuery(q) }

// TestStalledReaderManualClock: with stalled_reader the server reads
// nothing for stall_ms (1 s in the test profile) once the first response
// starts, so a heartbeat sent right after the turn is answered only after
// the clock passes the stall, behind the whole response; without the fault
// it is answered at clock 0, before the response's first text (due at 20 ms).
func TestStalledReaderManualClock(t *testing.T) {
	t.Parallel()
	for _, fault := range []string{"", FaultStalledReader} {
		t.Run("fault="+fault, func(t *testing.T) {
			t.Parallel()
			clk, hs, ctx := newManualServer(t, 20*time.Second)
			c := dialRaw(ctx, t, hs.URL, "sim_fault="+fault)
			c.send(ctx, sessionUpdate())
			if _, err := c.until(ctx, typeIs("session.updated")); err != nil {
				t.Fatal(err)
			}
			c.streamPCM(ctx, speechPCM([2]int{400, 400}), 6400)
			c.send(ctx, map[string]any{"type": "session.heartbeat"})
			if fault == "" {
				evs, err := c.until(ctx, typeIs("session.heartbeat_ack"))
				if err != nil || len(evs) != 1+4 { // created, item.added, output_item.added, content_part.added, ack
					t.Fatalf("%v %v", err, evs)
				}
				return
			}
			for { // the reader is parked on the clock until 1 s
				ws, ch := clk.Waiters()
				if ws > 0 && slicesContain(clk.WaiterTimes(), time.Second) {
					break
				}
				select {
				case <-ch:
				case <-ctx.Done():
					t.Fatal("reader never stalled")
				}
			}
			clk.Set(500 * time.Millisecond)
			evs, err := c.until(ctx, typeIs("rate_limits.updated"))
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range evs {
				if m["type"] == "session.heartbeat_ack" {
					t.Fatal("heartbeat answered during the stall")
				}
			}
			clk.Set(2 * time.Second)
			if _, err := c.until(ctx, typeIs("session.heartbeat_ack")); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func slicesContain(xs []time.Duration, x time.Duration) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}
