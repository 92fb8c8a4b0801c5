package metrics_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/duplexscope/duplexscope/metrics"
	"github.com/duplexscope/duplexscope/metrics/conformance"
	"github.com/duplexscope/duplexscope/trace"
	"pgregory.net/rapid"
)

// genSession draws a session from a small grammar of realistic and
// awkward events: few response ids, out-of-order times, seq replays,
// duplicates, server metrics in various places, stage snapshots, sample
// rates, metadata durations, events before the stream start.
func genSession(t *rapid.T) trace.Session {
	ids := []string{"a", "b", "c", "d"}
	var s trace.Session
	if rapid.Bool().Draw(t, "hasStart") {
		s.Session.StreamStartMs = f64(float64(rapid.IntRange(0, 2000).Draw(t, "start")))
	}
	if rapid.Bool().Draw(t, "hasSample") {
		s.Session.SampleID = sid("s")
	}
	n := rapid.IntRange(0, 40).Draw(t, "n")
	tm := 0.0
	for i := range n {
		tm += float64(rapid.IntRange(-30, 400).Draw(t, "dt")) + []float64{0, 0.1, 0.05, 0.001}[rapid.IntRange(0, 3).Draw(t, "frac")]
		id := rapid.SampledFrom(ids).Draw(t, "id")
		idField := fmt.Sprintf(`"response_id":%q`, id)
		if rapid.IntRange(0, 5).Draw(t, "idForm") == 0 {
			idField = fmt.Sprintf(`"response":{"id":%q}`, id)
		}
		extra := ""
		switch rapid.IntRange(0, 8).Draw(t, "extra") {
		case 1:
			extra = fmt.Sprintf(`,"server_event_seq":%d`, rapid.IntRange(0, 30).Draw(t, "seq"))
		case 2:
			extra = fmt.Sprintf(`,"metadata":{"vllm_omni":{"response_request_metrics":{"ttft_ms":%d,"ttfp_ms":%s,"measurement_origin":{"ttft":"srv"}}}}`,
				rapid.IntRange(-5, 500).Draw(t, "sttft"), rapid.SampledFrom([]string{"null", "120.5", "-1", "true", "0"}).Draw(t, "sttfp"))
		case 3:
			extra = fmt.Sprintf(`,"metadata":{"vllm_omni":{"stage_metrics":{"0":{"num_tokens_out":%d,"vllm_ttft_ms":%d,"vllm_tpot_ms":%s,"vllm_itls_ms":[%d,12.5,-1]}}}}`,
				rapid.IntRange(1, 50).Draw(t, "tok"), rapid.IntRange(0, 300).Draw(t, "vttft"),
				rapid.SampledFrom([]string{"0", "11.25", "-3", "null"}).Draw(t, "vtpot"), rapid.IntRange(0, 20).Draw(t, "itl"))
		case 4:
			extra = fmt.Sprintf(`,"response":{"id":%q,"metadata":{"duplex_event":{"response_request_metrics":{"ttft_ms":null}}}}`, id)
		}
		var ev string
		switch rapid.IntRange(0, 7).Draw(t, "type") {
		case 0, 1:
			ev = fmt.Sprintf(`{"type":"response.created",%s%s}`, idField, extra)
		case 2, 3:
			payload := strings.Repeat("AAAA", rapid.IntRange(0, 40).Draw(t, "quads"))
			md := ""
			switch rapid.IntRange(0, 4).Draw(t, "md") {
			case 1:
				md = fmt.Sprintf(`,"metadata":{"audio_duration_ms":%d}`, rapid.IntRange(-10, 300).Draw(t, "dur"))
			case 2:
				md = `,"metadata":{"audio_duration_ms":true}`
			}
			if extra != "" && strings.Contains(extra, `"metadata"`) {
				md = ""
			}
			rate := ""
			if rapid.IntRange(0, 4).Draw(t, "rate") == 0 {
				rate = fmt.Sprintf(`,"sample_rate_hz":%s`, rapid.SampledFrom([]string{"24000", "48000", "16000.0", "true", "0"}).Draw(t, "hz"))
			}
			key := rapid.SampledFrom([]string{"delta", "audio"}).Draw(t, "key")
			ev = fmt.Sprintf(`{"type":"response.output_audio.delta",%s,%q:%q%s%s%s}`, idField, key, payload, md, rate, extra)
		case 4, 5:
			typ := rapid.SampledFrom([]string{"response.output_audio_transcript.delta", "response.output_text.delta", "response.text.delta", "response.audio_transcript.delta"}).Draw(t, "ttype")
			ev = fmt.Sprintf(`{"type":%q,%s,"delta":%q%s}`, typ, idField, rapid.SampledFrom([]string{"", " ", "hi"}).Draw(t, "text"), extra)
		case 6:
			ev = fmt.Sprintf(`{"type":"response.done",%s%s}`, idField, extra)
		default:
			ev = `{"type":"session.updated"}`
		}
		dir := "recv"
		if i%11 == 10 {
			dir = "send"
		}
		s.Events = append(s.Events, trace.Event{TMs: tm, Dir: dir, Event: json.RawMessage(ev)})
	}
	return s
}

// TestMatchesNaiveReference: on generated sessions, ScoreSession equals an
// independent naive transcription of the reference algorithm, and every
// prefix's incremental snapshot equals the batch score of that prefix.
func TestMatchesNaiveReference(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		s := genSession(t)
		got := mustJSON(t, metrics.ScoreSession(s))
		want, err := json.Marshal(refScore(s))
		if err != nil {
			t.Fatal(err)
		}
		if err := conformance.Compare(want, got); err != nil {
			t.Fatalf("%v\nours: %s\nref:  %s", err, got, want)
		}
		var a metrics.Accumulator
		cut := rapid.IntRange(0, len(s.Events)).Draw(t, "cut")
		for _, ev := range s.Events[:cut] {
			a.Add(ev)
		}
		a.SetMeta(s.Session) // late meta: re-windowing
		_ = a.Snapshot()
		for _, ev := range s.Events[cut:] {
			a.Add(ev)
		}
		if inc := mustJSON(t, a.Snapshot()); string(inc) != string(got) {
			t.Fatalf("incremental differs from batch:\n%s\n%s", inc, got)
		}
	})
}

// Row invariants on generated sessions (docs/metrics.md#missing-values).
func TestRowInvariants(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		res := metrics.ScoreSession(genSession(t))
		for _, r := range res.Rows {
			m := r.Raw
			if m == nil {
				if r.Stage0 == nil {
					t.Fatalf("row %d has neither timing nor stage0", r.RequestIndex)
				}
				continue
			}
			if (m.RTF == nil) != (m.AudioDurationMs <= 0) {
				t.Fatalf("rtf %v with duration %v", m.RTF, m.AudioDurationMs)
			}
			if m.AudioGenerationMs < 0 || m.AudioDurationMs < 0 || (m.ClientTTFTMs != nil && *m.ClientTTFTMs < 0) || (m.ClientTTFPMs != nil && *m.ClientTTFPMs < 0) {
				t.Fatalf("negative clamped value in %+v", m)
			}
			if (m.Source == metrics.SourceServer) != m.ServerUsed || (m.TTFTClock == metrics.ClockServer || m.TTFPClock == metrics.ClockServer) != m.ServerUsed {
				t.Fatalf("source %q, clocks %q/%q, server used %v", m.Source, m.TTFTClock, m.TTFPClock, m.ServerUsed)
			}
		}
		if res.Summary.AudioTurnCount != len(res.Rows) {
			t.Fatalf("audio_turn_count %d, rows %d", res.Summary.AudioTurnCount, len(res.Rows))
		}
	})
}
