//go:build !js

package bench

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/duplexscope/duplexscope/internal/cputime"
)

// Baselines for the metrics benchmarks (BENCHMARKS.md "Metrics and archive
// speed"): encoding/json decoding the same data into generic values. The
// events have the shapes of metrics' benchSession (created, transcript
// delta with server metrics, two audio deltas, done: 5 per response).

func baselineEvents(n, payloadBytes int) [][]byte {
	payload := strings.Repeat("AAAA", payloadBytes/3)
	var evs [][]byte
	for i := range n {
		id := fmt.Sprintf("resp_%d", i)
		evs = append(evs,
			[]byte(fmt.Sprintf(`{"type":"response.created","response":{"id":%q,"object":"realtime.response","status":"in_progress"}}`, id)),
			[]byte(fmt.Sprintf(`{"type":"response.output_audio_transcript.delta","response_id":%q,"delta":"Hello","metadata":{"vllm_omni":{"response_request_metrics":{"ttft_ms":%d.5}}}}`, id, 100+i%97)),
			[]byte(fmt.Sprintf(`{"type":"response.output_audio.delta","response_id":%q,"delta":%q,"sample_rate_hz":24000,"metadata":{"audio_duration_ms":100,"vllm_omni":{"response_request_metrics":{"ttft_ms":%d.5,"ttfp_ms":%d.25}}}}`, id, payload, 100+i%97, 150+i%89)),
			[]byte(fmt.Sprintf(`{"type":"response.output_audio.delta","response_id":%q,"delta":%q,"sample_rate_hz":24000,"metadata":{"audio_duration_ms":200,"vllm_omni":{"stage_metrics":{"0":{"num_tokens_out":20,"vllm_ttft_ms":150,"vllm_tpot_ms":12.5,"vllm_itls_ms":[12,13,11]}}}}}`, id, payload)),
			[]byte(fmt.Sprintf(`{"type":"response.done","response_id":%q,"response":{"id":%q,"status":"completed"}}`, id, id)),
		)
	}
	return evs
}

// BenchmarkBaselineJSON10k decodes the 50 000 events of a 10 000-response
// session into map[string]any (the baseline of metrics' ScoreSession10k).
func BenchmarkBaselineJSON10k(b *testing.B) {
	evs := baselineEvents(10000, 3)
	b.ReportAllocs()
	c0 := cputime.Self()
	for b.Loop() {
		for _, e := range evs {
			var v map[string]any
			if err := json.Unmarshal(e, &v); err != nil {
				b.Fatal(err)
			}
		}
	}
	reportCPU(b, c0)
}

// BenchmarkBaselineJSONEvent decodes one event of the realistic mix (100 ms
// PCM16 at 24 kHz per audio packet) into map[string]any, cycling through
// the mix (the baseline of metrics' Add).
func BenchmarkBaselineJSONEvent(b *testing.B) {
	evs := baselineEvents(200, 4800)
	b.ReportAllocs()
	i := 0
	c0 := cputime.Self()
	for b.Loop() {
		var v map[string]any
		if err := json.Unmarshal(evs[i%len(evs)], &v); err != nil {
			b.Fatal(err)
		}
		i++
	}
	reportCPU(b, c0)
}

func reportCPU(b *testing.B, c0 time.Duration) {
	if c := cputime.Self(); c > 0 {
		b.ReportMetric(float64(c-c0)/float64(b.N), "cpu-ns/op")
	}
}
