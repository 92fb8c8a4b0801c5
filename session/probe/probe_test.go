package probe

import (
	"encoding/binary"
	"encoding/json"
	"testing"

	"github.com/duplexscope/duplexscope/trace"
	"github.com/google/go-cmp/cmp"
)

func TestInjectProbes(t *testing.T) {
	t.Parallel()
	pcm := make([]byte, 2*16000) // 1 s of value 1000
	for i := 0; i < len(pcm); i += 2 {
		binary.LittleEndian.PutUint16(pcm[i:], 1000)
	}
	clip := make([]byte, 2*1600) // 100 ms of value 32000 (mix clips at 32767)
	for i := 0; i < len(clip); i += 2 {
		binary.LittleEndian.PutUint16(clip[i:], 32000)
	}
	out := Inject(pcm, []Probe{{Kind: KindInterruption, OffsetS: 0.5, PCM: clip}, {Kind: KindNoise, OffsetS: 2, PCM: clip}})
	at := func(s float64) int16 { return int16(binary.LittleEndian.Uint16(out[int(s*16000)*2:])) }
	if got := len(out); got != 2*(32000+1600)+48000 {
		t.Errorf("len %d, want input extended to the last probe + 1.5 s", got)
	}
	cases := []struct {
		s    float64
		want int16
	}{{0.1, 1000}, {0.55, 32767}, {0.7, 1000}, {1.5, 0}, {2.05, 32000}, {2.2, 0}}
	for _, tc := range cases {
		if got := at(tc.s); got != tc.want {
			t.Errorf("sample at %.2f s = %d, want %d", tc.s, got, tc.want)
		}
	}
	if binary.LittleEndian.Uint16(pcm[int(0.55*16000)*2:]) != 1000 {
		t.Error("Inject modified its input")
	}
}

// TestAnalyzeProbes: stop latency from onset to the cleared event (barge-in)
// or to the end of playback (the model talked on), the resume after it, and a
// probe that finds the model silent.
func TestAnalyzeProbes(t *testing.T) {
	t.Parallel()
	ev := func(tms float64, dir string, v map[string]any) trace.Event {
		b, _ := json.Marshal(v)
		return trace.Event{TMs: tms, Dir: dir, Event: b}
	}
	ss := 1000.0
	sid, sample, split := "s", "x", "sp"
	tr := &trace.Session{Session: trace.SessionMeta{StreamStartMs: &ss, SessionID: &sid, SampleID: &sample, Split: &split}, Events: []trace.Event{
		ev(2000, "recv", map[string]any{"type": "response.created", "response": map[string]any{"id": "r1"}}),
		ev(2100, "recv", map[string]any{"type": "response.output_audio.delta", "response_id": "r1", "delta": "AAAAAA=="}),
		ev(2100, "local", map[string]any{"type": "duplexscope.playback_start", "response_id": "r1"}),
		ev(2600, "send", map[string]any{"type": "playback.ack", "response_id": "r1", "played_ms": 480}),
		ev(2700, "recv", map[string]any{"type": "output_audio_buffer.cleared", "response_id": "r1"}),
		ev(2700, "local", map[string]any{"type": "duplexscope.playback_end", "response_id": "r1", "played_ms": 600, "cleared": true}),
		// A "listen" decision: created and done, no audio — not a resume.
		ev(3000, "recv", map[string]any{"type": "response.created", "response": map[string]any{"id": "listen"}}),
		ev(3001, "recv", map[string]any{"type": "response.done", "response": map[string]any{"id": "listen"}}),
		ev(4000, "recv", map[string]any{"type": "response.created", "response": map[string]any{"id": "r2"}}),
		ev(4100, "local", map[string]any{"type": "duplexscope.playback_start", "response_id": "r2"}),
		ev(6100, "local", map[string]any{"type": "duplexscope.playback_end", "response_id": "r2", "played_ms": 2000}),
	}}
	got := Analyze(tr, []Probe{
		{Kind: KindInterruption, Clip: "a", OffsetS: 1.5}, // onset 2500: r1 playing, cleared at 2700
		{Kind: KindBackchannel, Clip: "b", OffsetS: 4},    // onset 5000: r2 plays to 6100
		{Kind: KindNoise, Clip: "c", OffsetS: 0.5},        // onset 1500: silent; next response at 2000
	})
	f := func(v float64) *float64 { return &v }
	i := func(v int) *int { return &v }
	clock := "client monotonic (receive stamps, simulated playback)"
	want := []Result{
		{SampleID: "x", Split: "sp", SessionID: "s", Kind: KindInterruption, Clip: "a", OffsetS: 1.5, OnsetMs: 2500, ActiveResponseID: "r1", StoppedBy: "cleared",
			StopLatencyMs: f(200), PlayedMs: i(600), CommittedMs: i(480), ReceivedMs: f(4.0 / 48), ResumeAfterMs: f(1300), NextResponseMs: f(1500), Clock: clock},
		{SampleID: "x", Split: "sp", SessionID: "s", Kind: KindBackchannel, Clip: "b", OffsetS: 4, OnsetMs: 5000, ActiveResponseID: "r2", StoppedBy: "ended",
			StopLatencyMs: f(1100), PlayedMs: i(2000), ReceivedMs: f(0), Clock: clock},
		{SampleID: "x", Split: "sp", SessionID: "s", Kind: KindNoise, Clip: "c", OffsetS: 0.5, OnsetMs: 1500, NextResponseMs: f(500), Clock: clock},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	// Regression: a backchannel on a response that a later interruption
	// cut was reported as "cleared" with the interruption's stop latency.
	got = Analyze(tr, []Probe{
		{Kind: KindBackchannel, Clip: "b", OffsetS: 1.2},  // onset 2200: r1 playing; talks through it
		{Kind: KindInterruption, Clip: "a", OffsetS: 1.5}, // onset 2500: the cut at 2700 is this one's
	})
	if len(got) != 2 || got[0].StoppedBy != StopLaterProbe || got[0].StopLatencyMs != nil || got[0].PlayedMs != nil || got[0].ActiveResponseID != "r1" ||
		got[1].StoppedBy != StopCleared || got[1].StopLatencyMs == nil || *got[1].StopLatencyMs != 200 {
		t.Errorf("backchannel then interruption on r1: %+v, want later_probe (no latency) then cleared after 200 ms", got)
	}
	if err := Validate(Probe{Kind: "shout"}); err == nil {
		t.Error("Validate accepted an unknown kind")
	}
	if err := Validate(Probe{Kind: KindNoise, OffsetS: -1}); err == nil {
		t.Error("Validate accepted a negative offset")
	}
}

// TestProbeTimeline: which response plays at an instant (start inclusive,
// end exclusive, in response.created order), and the first response after
// an instant that spoke (a "listen" response.created with no audio does not
// count).
func TestProbeTimeline(t *testing.T) {
	t.Parallel()
	ev := func(ms float64, dir, js string) trace.Event {
		return trace.Event{TMs: ms, Dir: dir, Event: json.RawMessage(js)}
	}
	tl := followResponses([]trace.Event{
		ev(100, trace.DirRecv, `{"type":"response.created","response":{"id":"r1"}}`),
		ev(150, trace.DirRecv, `{"type":"response.output_audio.delta","response_id":"r1","delta":"AAAA"}`),
		ev(200, trace.DirLocal, `{"type":"duplexscope.playback_start","response_id":"r1"}`),
		ev(300, trace.DirRecv, `{"type":"response.created","response":{"id":"listen"}}`),
		ev(900, trace.DirLocal, `{"type":"duplexscope.playback_end","response_id":"r1","played_ms":700}`),
		ev(950, trace.DirRecv, `{"type":"response.created","response":{"id":"r2"}}`),
		ev(960, trace.DirLocal, `{"type":"duplexscope.playback_start","response_id":"r2"}`),
		ev(970, trace.DirRecv, `not json`),
	})
	if got := tl.resp["r1"].played; got != 700 {
		t.Errorf("r1 played %d ms, want 700", got)
	}
	if got := tl.resp["r1"].bytes; got != 3 {
		t.Errorf("r1 received %d bytes, want 3", got)
	}
	for _, tc := range []struct {
		ms          float64
		wantPlaying string
		wantSpoke   float64 // 0: none
	}{
		{50, "", 100},
		{200, "r1", 950},
		{899, "r1", 950},
		{900, "", 950},
		{955, "", 0},
		{960, "r2", 0},
	} {
		if got := tl.playing(tc.ms); got != tc.wantPlaying {
			t.Errorf("playing(%v) = %q, want %q", tc.ms, got, tc.wantPlaying)
		}
		c, ok := tl.spokeAfter(tc.ms)
		if ok != (tc.wantSpoke > 0) || c != tc.wantSpoke {
			t.Errorf("spokeAfter(%v) = %v %v, want %v", tc.ms, c, ok, tc.wantSpoke)
		}
	}
}
