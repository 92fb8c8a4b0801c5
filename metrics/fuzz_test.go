package metrics_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/duplexscope/duplexscope/metrics"
	"github.com/duplexscope/duplexscope/trace"
)

// FuzzScore: any decodable trace scores without panicking, the output is
// valid JSON, and for sessions the incremental path (meta given late)
// equals the batch path.
func FuzzScore(f *testing.F) {
	f.Add([]byte(`{"session":{"stream_start_ms":5},"events":[{"t_ms":10,"dir":"recv","event":{"type":"response.created","response_id":"r"}},{"t_ms":20,"dir":"recv","event":{"type":"response.output_audio.delta","response_id":"r","delta":"AAAA","sample_rate_hz":true,"metadata":{"audio_duration_ms":1e999}}}]}`))
	f.Add([]byte(`{"kind":"run","existing_report":{"duplex_request_metrics":[{"ttft_ms":1}]},"sessions":[{"events":[]}]}`))
	f.Add([]byte(`{"kind":"engine_tpot","outputs":[{"t_ms":1,"new_tokens":1e300},{"t_ms":2,"new_tokens":2,"segment":[1]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := trace.Decode(data)
		if err != nil {
			return
		}
		out, err := metrics.Score(doc)
		if err != nil {
			return
		}
		b, err := out.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		if !json.Valid(b) && !containsNonFinite(b) {
			t.Fatalf("invalid JSON output: %s", b)
		}
		if doc.Session != nil {
			var a metrics.Accumulator
			for _, ev := range doc.Session.Events {
				a.Add(ev)
			}
			a.SetMeta(doc.Session.Session)
			if got, want := mustJSON(t, a.Snapshot()), mustJSON(t, metrics.ScoreSession(*doc.Session)); string(got) != string(want) {
				t.Fatalf("incremental != batch:\n%s\n%s", got, want)
			}
		}
	})
}

// containsNonFinite reports Python's bare NaN/Infinity tokens, which the
// reference writes for non-finite engine values (float("inf") in a stage-0
// snapshot) passed through a row.
func containsNonFinite(b []byte) bool {
	return bytes.Contains(b, []byte("NaN")) || bytes.Contains(b, []byte("Infinity"))
}
