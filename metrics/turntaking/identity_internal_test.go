package turntaking

import (
	"encoding/json"
	"testing"

	"github.com/duplexscope/duplexscope/trace"
)

// TestTranscriptIdentity: transcripts are keyed by the metrics' response
// identity: "" is none (no fallback to response.id), lone surrogates stay
// two ids.
func TestTranscriptIdentity(t *testing.T) {
	t.Parallel()
	ev := func(s string) trace.Event { return trace.Event{TMs: 1, Dir: trace.DirRecv, Event: json.RawMessage(s)} }
	r := RecordTrace(trace.Session{Events: []trace.Event{
		ev(`{"type":"response.output_audio_transcript.delta","response_id":"\ud800","delta":"a"}`),
		ev(`{"type":"response.output_audio_transcript.delta","response_id":"\udbff","delta":"b"}`),
		ev(`{"type":"response.output_audio_transcript.delta","response":{"id":"r"},"delta":"c"}`),
		ev(`{"type":"response.output_audio_transcript.delta","response_id":"","response":{"id":"r"},"delta":"d"}`),
	}})
	want := map[string]string{"\xed\xa0\x80": "a", "\xed\xaf\xbf": "b", "r": "c", "": "d"}
	if len(r.c.transcript) != len(want) {
		t.Fatalf("transcripts %q, want %q", r.c.transcript, want)
	}
	for k, v := range want {
		if r.c.transcript[k] != v {
			t.Errorf("transcript[%q] = %q, want %q", k, r.c.transcript[k], v)
		}
	}
}
