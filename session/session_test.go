package session

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/duplexscope/duplexscope/trace"
	"github.com/google/go-cmp/cmp"
)

func base64Std(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

// TestPacerNoDrift: 10 000 frames on a fake clock whose every wake-up is late
// by a varying amount; each frame's lag is exactly that lateness and frame k
// is scheduled at start + k·frame, so lateness never accumulates. A naive
// relative pacer (sleep one frame after each send) on the same clock drifts
// by the sum of the lateness.
func TestPacerNoDrift(t *testing.T) {
	t.Parallel()
	const frames = 10000
	jitter := func(k int) time.Duration { return time.Duration(k%7) * 300 * time.Microsecond }
	for _, frameMs := range []int{80, 200, 1000} {
		c := NewFakeClock()
		c.Set(1234 * time.Millisecond)
		c.AutoAdvance, c.Jitter = true, jitter
		p := Pacer{Start: c.Now(), Rate: 16000}
		frameBytes := 16000 * 2 * frameMs / 1000
		for k := 1; k < frames; k++ {
			due, lag, err := p.Wait(context.Background(), c, c, k*frameBytes)
			if err != nil {
				t.Fatal(err)
			}
			want := p.Start + time.Duration(k)*time.Duration(frameMs)*time.Millisecond
			if due != want {
				t.Fatalf("frame %d (%d ms) due %v, want %v", k, frameMs, due, want)
			}
			if lag != jitter(k-1) {
				t.Fatalf("frame %d lag %v, want %v", k, lag, jitter(k-1))
			}
		}
		end := c.Now() - p.Start
		ideal := time.Duration(frames-1) * time.Duration(frameMs) * time.Millisecond
		if drift := end - ideal; drift != jitter(frames-2) {
			t.Errorf("%d ms frames: drift after %d frames %v, want only the last wake-up's lateness %v", frameMs, frames, drift, jitter(frames-2))
		}

		naive := NewFakeClock()
		naive.AutoAdvance, naive.Jitter = true, jitter
		for k := 1; k < frames; k++ {
			_ = naive.SleepUntil(context.Background(), naive.Now()+time.Duration(frameMs)*time.Millisecond)
		}
		if drift := naive.Now() - ideal; drift < time.Second {
			t.Errorf("naive pacer drift %v; the fake clock's jitter should make it drift > 1 s", drift)
		}
	}
}

func TestApplyTailRule(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		n       int
		chunkMs int
		want    int
	}{
		{"whole 1000 ms units lose one sample", 64000, 1000, 63998},
		{"default unit is 1000 ms", 32000, 0, 31998},
		{"partial unit kept", 64002, 1000, 64002},
		{"80 ms units", 2560 * 3, 80, 2560*3 - 2},
		{"not a multiple of 80 ms", 2560*3 + 2, 80, 2560*3 + 2},
		{"one sample kept", 2, 1000, 2},
		{"empty", 0, 1000, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := len(ApplyTailRule(make([]byte, tc.n), tc.chunkMs)); got != tc.want {
				t.Errorf("len = %d, want %d", got, tc.want)
			}
		})
	}
}

func TestSummarizeLag(t *testing.T) {
	t.Parallel()
	var lags []time.Duration
	for i := 1; i <= 100; i++ {
		lags = append(lags, time.Duration(i)*time.Millisecond)
	}
	got := SummarizeLag(lags)
	want := LagStats{Frames: 100, MeanMs: 50.5, P50Ms: 50, P99Ms: 99, MaxMs: 100}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if (SummarizeLag(nil) != LagStats{}) {
		t.Error("empty lags should give the zero LagStats")
	}
}

// TestPlayerAcks: the simulated serial playback clock acks a response's
// first audio at 0 ms, then every ≥ 200 ms, then the exact final value; a
// second response starts playing only after the first finished.
func TestPlayerAcks(t *testing.T) {
	t.Parallel()
	ms := time.Millisecond
	p := newPlayer()
	type step struct {
		at   time.Duration
		do   func()
		want []ack
	}
	bytes := func(audioMs int) int { return audioMs * 48 } // 24 kHz PCM16
	steps := []step{
		{at: 0, do: func() { p.add(0, "r1", bytes(500)) }, want: []ack{{"r1", 0}}},
		{at: 150 * ms, want: nil},
		{at: 210 * ms, want: []ack{{"r1", 210}}},
		{at: 300 * ms, do: func() { p.add(300*ms, "r2", bytes(300)) }, want: []ack{{"r2", 0}}},
		{at: 450 * ms, want: []ack{{"r1", 450}}},
		{at: 500 * ms, do: func() { p.end(500*ms, "r1"); p.end(500*ms, "r2") }, want: []ack{{"r1", 500}}},
		{at: 650 * ms, want: nil},                 // r2 playing since 500 ms: 150 ms
		{at: 700 * ms, want: []ack{{"r2", 200}}},  // +200
		{at: 2000 * ms, want: []ack{{"r2", 300}}}, // finished: exact final
		{at: 2100 * ms, want: nil},
	}
	for i, st := range steps {
		if st.do != nil {
			st.do()
		}
		if got := p.acks(st.at, false); !cmp.Equal(st.want, got, cmp.AllowUnexported(ack{})) {
			t.Errorf("step %d at %v: acks %v, want %v", i, st.at, got, st.want)
		}
	}
}

func TestPlayerClearAndUnderrun(t *testing.T) {
	t.Parallel()
	ms := time.Millisecond
	p := newPlayer()
	p.add(0, "r1", 100*48)
	p.acks(0, false)
	p.clear(50*ms, "r1")
	p.add(60*ms, "r1", 1000*48) // after clear: never played
	if got := p.acks(time.Second, false); !cmp.Equal([]ack{{"r1", 50}}, got, cmp.AllowUnexported(ack{})) {
		t.Errorf("acks after clear: %v, want r1 at 50 ms", got)
	}
	q := newPlayer()
	q.add(0, "a", 100*48)
	q.advance(300 * ms) // 100 ms played, then 200 ms dry
	if u := q.byID["a"].underrun; u != 200*ms {
		t.Errorf("underrun %v, want 200ms", u)
	}
}

// recorder is an Observer that records what it was told.
type recorder struct {
	mu       sync.Mutex
	events   []trace.Event
	received []*Received // per event: the session's decode (nil for none)
	states   []State
}

func (r *recorder) OnEvent(ev trace.Event, rx *Received) {
	r.mu.Lock()
	r.events = append(r.events, ev)
	r.received = append(r.received, rx)
	r.mu.Unlock()
}
func (r *recorder) OnState(st State, _ error) {
	r.mu.Lock()
	r.states = append(r.states, st)
	r.mu.Unlock()
}

// checkDecodes: observers get the session's one decode with every received
// JSON object, equal to what DecodeReceived reads of the logged bytes, and
// nil with every other entry.
func checkDecodes(t *testing.T, evs []trace.Event, rxs []*Received) {
	t.Helper()
	audio := 0
	for i, ev := range evs {
		rx := rxs[i]
		want, ok := DecodeReceived(ev.Event)
		if ev.Dir != trace.DirRecv || !ok {
			if rx != nil {
				t.Errorf("entry %d (%s %s): observer got a decode %+v, want none", i, ev.Dir, ev.Event, rx)
			}
			continue
		}
		if rx == nil {
			t.Errorf("entry %d (%s): observer got no decode", i, ev.Event)
			continue
		}
		if rx.Type != want.Type || rx.ID != want.ID || rx.Text != want.Text || rx.Status != want.Status || rx.Rate != want.Rate || !bytes.Equal(rx.PCM(), want.PCM()) {
			t.Errorf("entry %d: observer's decode %+v, the log's %+v", i, rx, want)
		}
		audio += len(rx.PCM())
	}
	if audio == 0 {
		t.Error("no audio among the decodes: the check saw nothing")
	}
}

func types(evs []trace.Event, dir string) []string {
	var out []string
	for _, e := range evs {
		if e.Dir != dir {
			continue
		}
		var v struct{ Type string }
		_ = json.Unmarshal(e.Event, &v)
		out = append(out, v.Type)
	}
	return out
}

// TestRunFakeClock: a whole session against the scripted in-memory server on
// a fake clock: appends on the absolute schedule with the tail rule, the
// final commit, completion after the settle, acks, close; the wire log and
// the observer see the same entries.
func TestRunFakeClock(t *testing.T) {
	t.Parallel()
	c := NewFakeClock()
	c.AutoAdvance = true
	c.Jitter = func(k int) time.Duration { return time.Duration(k%3) * time.Millisecond }
	srv := newFakeServer(happyScript(1000))
	rec := &recorder{}
	cfg := &Config{URL: "ws://127.0.0.1:1/", Model: "m", Clock: c, Dialer: srv.dialer(), Observers: []Observer{rec}, SampleID: "s1", Split: "sp"}
	pcm := make([]byte, 64000) // 2 s: whole 1000 ms units → tail rule drops 2 bytes
	res, err := runFake(c, srv, cfg, pcm)
	if err != nil {
		t.Fatal(err)
	}
	appends := srv.received("input_audio_buffer.append")
	if len(appends) != 10 {
		t.Fatalf("%d appends, want 10", len(appends))
	}
	var total int
	for i, a := range appends {
		b, _ := base64.StdEncoding.DecodeString(a["audio"].(string))
		total += len(b)
		wantEnd := float64(total * 1000 / 32000)
		if a["audio_end_ms"] != wantEnd || a["sample_rate_hz"] != 16000.0 || a["format"] != "pcm16" || a["input_audio_format"] != "pcm16" {
			t.Errorf("append %d: %v", i, a)
		}
	}
	if total != 63998 {
		t.Errorf("sent %d bytes, want 63998 (tail rule)", total)
	}
	if got := len(srv.received("input_audio_buffer.commit")); got != 1 {
		t.Errorf("%d commits, want 1", got)
	}
	acks := srv.received("playback.ack")
	// First ack at the first poll after the audio arrived (≤ one 50 ms poll
	// of simulated playback), last the exact final 200 ms.
	if len(acks) == 0 || acks[len(acks)-1]["played_ms"] != 200.0 || acks[0]["played_ms"].(float64) > 50 {
		t.Errorf("acks %v: want first ≤ 50 and last 200 (exact final)", acks)
	}
	tr := res.Trace
	if tr.Format != trace.Format || tr.Kind != trace.KindSession || *tr.Session.SessionID != "sess_1" || *tr.Session.SampleID != "s1" {
		t.Errorf("trace meta %+v", tr.Session)
	}
	// stream start = the first append's send instant.
	var firstAppend float64 = -1
	for _, e := range tr.Events {
		if e.Dir == trace.DirSend && strings.Contains(string(e.Event), `"input_audio_buffer.append"`) {
			firstAppend = e.TMs
			break
		}
	}
	if tr.Session.StreamStartMs == nil || *tr.Session.StreamStartMs != firstAppend {
		t.Errorf("stream_start_ms %v, want the first append's t_ms %v", tr.Session.StreamStartMs, firstAppend)
	}
	// Pacing: lags equal the fake clock's jitter; schedule is absolute.
	if len(res.PacingLag) != 10 || res.PacingLag[0] != 0 {
		t.Errorf("pacing lags %v", res.PacingLag)
	}
	for k := 1; k < len(res.PacingLag); k++ {
		if want := time.Duration((k-1)%3) * time.Millisecond; res.PacingLag[k] != want {
			t.Errorf("frame %d lag %v, want %v", k, res.PacingLag[k], want)
		}
	}
	wantRecv := []string{"session.created", "input_audio_buffer.committed", "response.created", "response.output_audio_transcript.delta",
		"response.output_audio.delta", "response.output_audio.delta", "response.output_audio.done", "response.done", "session.closed"}
	if d := cmp.Diff(wantRecv, types(tr.Events, trace.DirRecv)); d != "" {
		t.Errorf("received (-want +got):\n%s", d)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if d := cmp.Diff(tr.Events, rec.events); d != "" {
		t.Errorf("observer events differ from the wire log (-log +observer):\n%s", d)
	}
	checkDecodes(t, rec.events, rec.received)
	wantStates := []State{StateConnecting, StateOpen, StateStreaming, StateCommitted, StateClosing, StateDone}
	if d := cmp.Diff(wantStates, rec.states); d != "" {
		t.Errorf("states (-want +got):\n%s", d)
	}
	// Completion waited for the settle after the last server event.
	var lastRecv, closeSent float64
	for _, e := range tr.Events {
		if e.Dir == trace.DirRecv && strings.Contains(string(e.Event), `"response.done"`) {
			lastRecv = e.TMs
		}
		if e.Dir == trace.DirSend && strings.Contains(string(e.Event), `"session.close"`) {
			closeSent = e.TMs
		}
	}
	if closeSent-lastRecv < 2000 {
		t.Errorf("session.close %.1f ms after the last response event, want ≥ 2000 (settle)", closeSent-lastRecv)
	}
}

// TestStallRecorded: the page's debug main-thread stall is written into the
// wire log's duplexscope meta, and a run without one carries no stall keys
// (old wire logs stay byte-equal).
func TestStallRecorded(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name          string
		ms, every     int
		wantKeys      bool
		wantMs, wantE int
	}{
		{"stalled", 250, 1000, true, 250, 1000},
		{"no stall", 0, 0, false, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := NewFakeClock()
			c.AutoAdvance = true
			srv := newFakeServer(happyScript(1000))
			cfg := &Config{URL: "ws://127.0.0.1:1/", Model: "m", Clock: c, Dialer: srv.dialer(), StallMs: tc.ms, StallEveryMs: tc.every}
			res, err := runFake(c, srv, cfg, make([]byte, 32000))
			if err != nil {
				t.Fatal(err)
			}
			var raw map[string]json.RawMessage
			if err := json.Unmarshal(res.Trace.Session.Extra, &raw); err != nil {
				t.Fatal(err)
			}
			_, hasMs := raw["stall_ms"]
			_, hasEvery := raw["stall_every_ms"]
			if hasMs != tc.wantKeys || hasEvery != tc.wantKeys {
				t.Errorf("duplexscope meta %s: stall keys present %v/%v, want %v", res.Trace.Session.Extra, hasMs, hasEvery, tc.wantKeys)
			}
			var ex Extra
			if err := json.Unmarshal(res.Trace.Session.Extra, &ex); err != nil {
				t.Fatal(err)
			}
			if ex.StallMs != tc.wantMs || ex.StallEveryMs != tc.wantE {
				t.Errorf("stall_ms %d, stall_every_ms %d, want %d, %d", ex.StallMs, ex.StallEveryMs, tc.wantMs, tc.wantE)
			}
		})
	}
}

// TestFailures: server error codes fail the session (typed), tolerated codes
// do not, an unexpected session.closed and a transport drop fail it and flag
// the wire log incomplete.
func TestFailures(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name      string
		onCommit  func(fs *fakeServer)
		check     func(err error) bool
		want      string // what check accepts, for the failure message
		wantError bool
	}{
		{
			name: "server error",
			onCommit: func(fs *fakeServer) {
				fs.emit(map[string]any{"type": "error", "error": map[string]any{"code": "engine_error", "type": "server_error", "message": "boom"}})
			},
			check:     errorAs(func(se *ServerError) bool { return se.Code == "engine_error" }),
			want:      "*ServerError engine_error",
			wantError: true,
		},
		{
			name: "flat error",
			onCommit: func(fs *fakeServer) {
				fs.emit(map[string]any{"type": "error", "error": "bad thing", "code": "bad_event"})
			},
			check:     errorAs(func(se *ServerError) bool { return se.Code == "bad_event" && se.Message == "bad thing" }),
			want:      "*ServerError bad_event",
			wantError: true,
		},
		{
			name: "tolerated error",
			onCommit: func(fs *fakeServer) {
				fs.emit(map[string]any{"type": "error", "error": map[string]any{"code": "playback_ack_too_late", "message": "late"}})
				happyScript(1000)(fs, map[string]any{"type": "input_audio_buffer.commit"})
			},
			check: func(err error) bool { return err == nil },
			want:  "nil",
		},
		{
			name: "unexpected close",
			onCommit: func(fs *fakeServer) {
				fs.emit(map[string]any{"type": "session.closed", "event": map[string]any{"reason": "lease_lost"}})
			},
			check:     errorAs(func(ue *UnexpectedCloseError) bool { return ue.Reason == "lease_lost" }),
			want:      "*UnexpectedCloseError lease_lost",
			wantError: true,
		},
		{
			name:      "transport drop",
			onCommit:  func(fs *fakeServer) { fs.dropNow() },
			check:     func(err error) bool { return errors.Is(err, ErrTransportDropped) },
			want:      "ErrTransportDropped",
			wantError: true,
		},
		{
			name: "failed response",
			onCommit: func(fs *fakeServer) {
				fs.emit(map[string]any{"type": "response.created", "response": map[string]any{"id": "r9"}})
				fs.emit(map[string]any{"type": "response.done", "response": map[string]any{"id": "r9", "status": "failed"}})
			},
			check:     errorAs(func(fe *ResponseFailedError) bool { return fe.ResponseID == "r9" }),
			want:      "*ResponseFailedError r9",
			wantError: true,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := NewFakeClock()
			c.AutoAdvance = true
			base := happyScript(1000)
			srv := newFakeServer(func(fs *fakeServer, ev map[string]any) {
				if ev["type"] == "input_audio_buffer.commit" {
					tc.onCommit(fs)
					return
				}
				base(fs, ev)
			})
			res, err := runFake(c, srv, &Config{URL: "ws://127.0.0.1:1", Clock: c, Dialer: srv.dialer(), CompletionTimeout: time.Minute}, make([]byte, 16000))
			if !tc.check(err) {
				t.Errorf("err = %v, want %s", err, tc.want)
			}
			if res == nil {
				t.Fatal("nil Result")
			}
			if res.Incomplete != tc.wantError {
				t.Errorf("Incomplete = %v, want %v", res.Incomplete, tc.wantError)
			}
			var ex Extra
			if err := json.Unmarshal(res.Trace.Session.Extra, &ex); err != nil {
				t.Fatal(err)
			}
			if ex.Incomplete != tc.wantError {
				t.Errorf("wire log incomplete = %v, want %v", ex.Incomplete, tc.wantError)
			}
			if tc.name == "tolerated error" && len(res.Warnings) == 0 {
				t.Error("tolerated error not recorded in warnings")
			}
		})
	}
}

// errorAs reports whether an error in err's chain has type E and passes ok.
func errorAs[E error](ok func(E) bool) func(error) bool {
	return func(err error) bool {
		var e E
		return errors.As(err, &e) && ok(e)
	}
}

// TestHandshakeError: an error event instead of session.created fails Dial
// with a *HandshakeError carrying the code.
func TestHandshakeError(t *testing.T) {
	t.Parallel()
	srv := newFakeServer(func(fs *fakeServer, ev map[string]any) {
		if ev["type"] == "session.update" {
			fs.emit(map[string]any{"type": "error", "error": map[string]any{"code": "ref_audio_required", "message": "need ref audio"}})
		}
	})
	_, err := Dial(context.Background(), &Config{URL: "ws://127.0.0.1:1", Clock: NewFakeClock(), Dialer: srv.dialer()})
	var he *HandshakeError
	if !errors.As(err, &he) || he.Code != "ref_audio_required" {
		t.Fatalf("err = %v, want *HandshakeError ref_audio_required", err)
	}
}

// TestSendFrameTailRule: externally clocked frames hold back the last sample
// so Commit can apply the tail rule; a stream that is not a whole number of
// units gets every byte.
func TestSendFrameTailRule(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		frames []int
		want   int
	}{
		{"whole unit", []int{6400, 6400, 6400, 6400, 6400}, 31998}, // 32 000 B = 1 unit
		{"partial unit", []int{6400, 6400, 100}, 12900},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := NewFakeClock()
			c.AutoAdvance = true
			srv := newFakeServer(happyScript(1000))
			var s *Session
			c.Settle = srv.quiesce(&s)
			s, err := Dial(context.Background(), &Config{URL: "ws://127.0.0.1:1", Clock: c, Dialer: srv.dialer(), ExternalPlayback: true})
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range tc.frames {
				c.Advance(200 * time.Millisecond)
				if err := s.SendFrame(context.Background(), make([]byte, n)); err != nil {
					t.Fatal(err)
				}
			}
			if err := s.Commit(context.Background()); err != nil {
				t.Fatal(err)
			}
			if err := s.Wait(context.Background()); err != nil {
				t.Fatal(err)
			}
			if err := s.Played(context.Background(), "r1", 200); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Close(context.Background()); err != nil {
				t.Fatal(err)
			}
			total := 0
			for _, a := range srv.received("input_audio_buffer.append") {
				b, _ := base64.StdEncoding.DecodeString(a["audio"].(string))
				total += len(b)
			}
			if total != tc.want {
				t.Errorf("sent %d bytes, want %d", total, tc.want)
			}
			if acks := srv.received("playback.ack"); len(acks) != 1 || acks[0]["played_ms"] != 200.0 {
				t.Errorf("acks %v, want exactly the one Played sent", acks)
			}
		})
	}
}

// TestPlayerNotes: playback start/end instants on the serial playback clock:
// r2 arrives while r1 plays and starts exactly when r1 ends.
func TestPlayerNotes(t *testing.T) {
	t.Parallel()
	ms := time.Millisecond
	p := newPlayer()
	type note struct {
		at   time.Duration
		kind string
		id   string
	}
	var got []note
	p.note = func(at time.Duration, kind string, tr *track) { got = append(got, note{at, kind, tr.id}) }
	p.add(10*ms, "r1", 100*48)
	p.end(20*ms, "r1")
	p.add(50*ms, "r2", 40*48)
	p.end(50*ms, "r2")
	p.advance(time.Second)
	want := []note{
		{10 * ms, "duplexscope.playback_start", "r1"},
		{110 * ms, "duplexscope.playback_end", "r1"},
		{110 * ms, "duplexscope.playback_start", "r2"},
		{150 * ms, "duplexscope.playback_end", "r2"},
	}
	if d := cmp.Diff(want, got, cmp.AllowUnexported(note{})); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

// TestServerVAD: with server_vad the stream gets 1.5 s of silence and no
// commit (docs/protocol.md#final-commit-tail-rule), and the session completes once no response is
// open and the settle passed.
func TestServerVAD(t *testing.T) {
	t.Parallel()
	c := NewFakeClock()
	c.AutoAdvance = true
	var appended int
	srv := newFakeServer(func(fs *fakeServer, ev map[string]any) {
		switch ev["type"] {
		case "session.update":
			td, _ := json.Marshal(ev["session"].(map[string]any)["turn_detection"])
			if string(td) != `{"type":"server_vad"}` {
				fs.emit(map[string]any{"type": "error", "error": map[string]any{"code": "unsupported_turn_detection", "message": string(td)}})
				return
			}
			fs.emit(map[string]any{"type": "session.created", "session": map[string]any{"id": "v"}})
		case "input_audio_buffer.append":
			b, _ := base64.StdEncoding.DecodeString(ev["audio"].(string))
			appended += len(b)
			if appended == 32000 { // after the first second: one response
				fs.emit(map[string]any{"type": "response.created", "response": map[string]any{"id": "r1"}})
				fs.emit(map[string]any{"type": "response.done", "response": map[string]any{"id": "r1", "status": "completed"}})
			}
		case "session.close":
			fs.emit(map[string]any{"type": "session.closed"})
		}
	})
	res, err := runFake(c, srv, &Config{URL: "ws://127.0.0.1:1", Clock: c, Dialer: srv.dialer(), ServerVAD: true}, make([]byte, 32000))
	if err != nil {
		t.Fatal(err)
	}
	if appended != 32000+48000 {
		t.Errorf("appended %d bytes, want the input + 48000 of silence", appended)
	}
	if n := len(srv.received("input_audio_buffer.commit")); n != 0 {
		t.Errorf("%d commits with server_vad, want 0", n)
	}
	if res.Incomplete {
		t.Error("incomplete")
	}
}

// TestObserverNeverBlocks: an observer stuck on its first event does not hold
// up the session (receive loop, pacing, completion); it gets every entry in
// order once it resumes.
func TestObserverNeverBlocks(t *testing.T) {
	t.Parallel()
	c := NewFakeClock()
	c.AutoAdvance = true
	srv := newFakeServer(happyScript(1000))
	release := make(chan struct{})
	var mu sync.Mutex
	var got []trace.Event
	obs := ObserverFuncs{Event: func(ev trace.Event, _ *Received) {
		<-release
		mu.Lock()
		got = append(got, ev)
		mu.Unlock()
	}}
	var s *Session
	c.Settle = srv.quiesce(&s)
	s, err := Dial(context.Background(), &Config{URL: "ws://127.0.0.1:1", Clock: c, Dialer: srv.dialer(), Observers: []Observer{obs}})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Stream(context.Background(), make([]byte, 32000)); err != nil {
		t.Fatal(err)
	}
	if err := s.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	close(release) // only now may the observer proceed
	res, err := s.Close(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if d := cmp.Diff(res.Trace.Events, got); d != "" {
		t.Errorf("observer entries differ from the wire log (-log +observer):\n%s", d)
	}
}
