//go:build !js

package bench

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/duplexscope/duplexscope/sim"
	"github.com/duplexscope/duplexscope/trace"
)

func f(x float64) *float64 { return &x }

func TestCompareTruth(t *testing.T) {
	t.Parallel()
	ev := func(ms float64, raw string) trace.Event {
		return trace.Event{TMs: ms, Dir: trace.DirRecv, Event: json.RawMessage(raw)}
	}
	events := []trace.Event{
		ev(1000, `{"type":"response.created","response":{"id":"r1"}}`),
		{TMs: 1001, Dir: trace.DirLocal, Event: json.RawMessage(`{"type":"duplexscope.pacing","frame":3,"lag_ms":0.25}`)},
		ev(1040.5, `{"type":"response.output_audio_transcript.delta","response_id":"r1","delta":"Hi"}`),
		ev(1041, `{"type":"response.output_audio_transcript.delta","response_id":"r1","delta":"there"}`),
		ev(1080, `{"type":"response.output_audio.delta","response_id":"r1","delta":"AAAA"}`),
		ev(1780, `{"type":"response.output_audio.delta","response_id":"r1","delta":"AAAA"}`),
		ev(2000, `{"type":"response.created","response":{"id":"r2"}}`),
		ev(2001, `{"type":"response.output_audio.delta","response_id":"r2","delta":""}`), // empty: not audio
		ev(2100, `{"type":"response.output_audio.delta","response_id":"r2","delta":"AAAA"}`),
		ev(2200, `{"type":"response.created","response":{"id":"listen"}}`),
		{TMs: 2300, Dir: trace.DirSend, Event: json.RawMessage(`{"type":"response.created","response":{"id":"sent"}}`)},
	}
	truth := sim.Truth{Responses: []sim.TruthResponse{
		// true intervals: text 40, audio 80, audio span 700.5
		{ResponseID: "r1", CreatedMs: f(500), FirstTextMs: f(540), FirstAudioMs: f(580), LastAudioMs: f(1280.5)},
		// one packet: no span; created → audio true 99
		{ResponseID: "r2", CreatedMs: f(900), FirstAudioMs: f(999), LastAudioMs: f(999)},
		{ResponseID: "listen", CreatedMs: f(1000)},                                            // no audio, nothing to compare
		{ResponseID: "lost", CreatedMs: f(1100), FirstAudioMs: f(1200), LastAudioMs: f(1300)}, // client never saw it
	}}
	got := CompareTruth(ReceiveStamps(events), truth)
	want := Errors{
		CreatedText:  []float64{0.5},
		CreatedAudio: []float64{0, 1},
		AudioSpan:    []float64{-0.5},
		Responses:    2,
		Missing:      1,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("CompareTruth (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]float64{0.25}, PacingLags(events)); diff != "" {
		t.Errorf("PacingLags (-want +got):\n%s", diff)
	}
}

func TestFrameErrors(t *testing.T) {
	t.Parallel()
	recv := func(ms float64, typ string) trace.Event {
		return trace.Event{TMs: ms, Dir: trace.DirRecv, Event: json.RawMessage(`{"type":"` + typ + `"}`)}
	}
	events := []trace.Event{
		recv(100, "session.created"),
		{TMs: 101, Dir: trace.DirSend, Event: json.RawMessage(`{"type":"session.update"}`)},
		recv(150, "response.created"),
		{TMs: 151, Dir: trace.DirLocal, Event: json.RawMessage(`{"type":"duplexscope.pacing","lag_ms":0}`)},
		recv(450.5, "response.output_audio.delta"), // stamped 250 ms late (a stall)
		recv(460, "response.done"),
	}
	truth := []sim.TruthEvent{
		{Type: "session.created", TMs: 5000},
		{Type: "response.created", TMs: 5049},
		{Type: "response.output_audio.delta", TMs: 5100},
		{Type: "response.done", TMs: 5360},
		{Type: "session.closed", TMs: 5400}, // the client stopped reading first: not paired
	}
	got, err := FrameErrors(events, truth)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]float64{1, 249.5, -250.5}, got); diff != "" {
		t.Errorf("FrameErrors (-want +got):\n%s", diff)
	}
	delays, err := FrameDelays(events, truth)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]float64{-4900, -4899, -4649.5, -4900}, delays); diff != "" {
		t.Errorf("FrameDelays (-want +got):\n%s", diff)
	}
	truth[2].Type = "response.output_text.delta"
	if _, err := FrameErrors(events, truth); err == nil {
		t.Error("a type mismatch was paired; want an error")
	}
}

func TestPlaybackBuffering(t *testing.T) {
	t.Parallel()
	rows := []json.RawMessage{
		json.RawMessage(`{"response_id":"r1","client_ttfp_ms":120}`),
		json.RawMessage(`{"response_id":"r2","client_ttfp_ms":null}`),
		json.RawMessage(`{"response_id":"r3","client_ttfp_ms":80.5}`),
	}
	heard := []HeardResponse{{ResponseID: "r1", HeardTTFPMs: f(190)}, {ResponseID: "r2", HeardTTFPMs: f(300)}, {ResponseID: "r3", HeardTTFPMs: f(100)}, {ResponseID: "r4", HeardTTFPMs: f(1)}}
	if diff := cmp.Diff([]float64{70, 19.5}, PlaybackBuffering(rows, heard)); diff != "" {
		t.Errorf("PlaybackBuffering (-want +got):\n%s", diff)
	}
}

func TestSlots(t *testing.T) {
	t.Parallel()
	tests := []struct {
		n       int
		stagger time.Duration
		frac    float64
		want    []time.Duration
	}{
		{4, 2 * time.Second, 0, []time.Duration{0, 500 * time.Millisecond, time.Second, 1500 * time.Millisecond}},
		{4, 2 * time.Second, 0.5, []time.Duration{250 * time.Millisecond, 750 * time.Millisecond, 1250 * time.Millisecond, 1750 * time.Millisecond}},
		{1, 2 * time.Second, 0, []time.Duration{0}},
		{3, 0, 0.5, []time.Duration{0, 0, 0}},
	}
	for _, tc := range tests {
		at := slots(tc.n, tc.stagger, tc.frac)
		var got []time.Duration
		for i := range tc.n {
			got = append(got, at(i))
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("slots(%d, %v, %v) (-want +got):\n%s", tc.n, tc.stagger, tc.frac, diff)
		}
	}
}

// TestRunPairTogether: the runner's and the bare client's sessions share
// one window (issue 17: one after the other, a stall of the loaded machine
// during one side's window alone made a 28× p99 ratio), and both sides are
// scored against the truth.
func TestRunPairTogether(t *testing.T) {
	t.Parallel()
	s, err := StartSimInProcess()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	runner, bare, err := RunPair(context.Background(), s, simQuery, 2, 4*time.Second, 200*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	rEnd, bEnd := runner.Start.Add(runner.Elapsed), bare.Start.Add(bare.Elapsed)
	if !runner.Start.Before(bEnd) || !bare.Start.Before(rEnd) {
		t.Errorf("windows do not overlap: runner %v + %v, bare %v + %v", runner.Start, runner.Elapsed, bare.Start, bare.Elapsed)
	}
	for name, r := range map[string]FidelityResult{"runner": runner, "bare": bare} {
		if r.Sessions != 2 || r.Errors.Responses == 0 || len(r.Errors.All()) == 0 || r.Errors.Missing != 0 {
			t.Errorf("%s: %d sessions, %d responses matched, %d errors, %d missing; want 2 sessions, responses scored, none missing", name, r.Sessions, r.Errors.Responses, len(r.Errors.All()), r.Errors.Missing)
		}
	}
}
