//go:build !js

package bench

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

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
	truth := Truth{Responses: []TruthResponse{
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
