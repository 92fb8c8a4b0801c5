package metrics_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/duplexscope/duplexscope/internal/cputime"
	"github.com/duplexscope/duplexscope/metrics"
	"github.com/duplexscope/duplexscope/trace"
)

// benchSession builds a session of n responses, each created → transcript
// delta (with server metrics) → two audio packets (payloadBytes of PCM each,
// metadata duration, stage-0 snapshot on the last) → done: 5 events per
// response, deterministic times.
func benchSession(n, payloadBytes int) trace.Session {
	payload := strings.Repeat("AAAA", payloadBytes/3)
	s := trace.Session{Session: trace.SessionMeta{SampleID: sid("bench"), Split: sid("RTD_OCR"), StreamStartMs: f64(1000)}}
	t := 1000.0
	for i := range n {
		id := fmt.Sprintf("resp_%d", i)
		t += 37
		s.Events = append(s.Events,
			trace.Event{TMs: t, Dir: "recv", Event: json.RawMessage(fmt.Sprintf(`{"type":"response.created","response":{"id":%q,"object":"realtime.response","status":"in_progress"}}`, id))},
			trace.Event{TMs: t + 151, Dir: "recv", Event: json.RawMessage(fmt.Sprintf(`{"type":"response.output_audio_transcript.delta","response_id":%q,"delta":"Hello","metadata":{"vllm_omni":{"response_request_metrics":{"ttft_ms":%d.5}}}}`, id, 100+i%97))},
			trace.Event{TMs: t + 203, Dir: "recv", Event: json.RawMessage(fmt.Sprintf(`{"type":"response.output_audio.delta","response_id":%q,"delta":%q,"sample_rate_hz":24000,"metadata":{"audio_duration_ms":100,"vllm_omni":{"response_request_metrics":{"ttft_ms":%d.5,"ttfp_ms":%d.25}}}}`, id, payload, 100+i%97, 150+i%89))},
			trace.Event{TMs: t + 305, Dir: "recv", Event: json.RawMessage(fmt.Sprintf(`{"type":"response.output_audio.delta","response_id":%q,"delta":%q,"sample_rate_hz":24000,"metadata":{"audio_duration_ms":200,"vllm_omni":{"stage_metrics":{"0":{"num_tokens_out":20,"vllm_ttft_ms":150,"vllm_tpot_ms":12.5,"vllm_itls_ms":[12,13,11]}}}}}`, id, payload))},
			trace.Event{TMs: t + 310, Dir: "recv", Event: json.RawMessage(fmt.Sprintf(`{"type":"response.done","response_id":%q,"response":{"id":%q,"status":"completed"}}`, id, id))},
		)
		t += 310
	}
	return s
}

// BenchmarkSnapshot is the batch metric computation (rows, session
// summary, stream window) over n responses already added; goal ≤ 5 ms at
// 10 000 responses, linear in n.
func BenchmarkSnapshot(b *testing.B) {
	for _, n := range []int{1000, 10000, 20000} {
		b.Run(fmt.Sprintf("responses=%d", n), func(b *testing.B) {
			var a metrics.Accumulator
			s := benchSession(n, 3)
			a.SetMeta(s.Session)
			for _, ev := range s.Events {
				a.Add(ev)
			}
			loopCPU(b, func() {
				if res := a.Snapshot(); len(res.Rows) != n {
					b.Fatalf("%d rows", len(res.Rows))
				}
			})
		})
	}
}

// BenchmarkScoreSession10k is ScoreSession end to end on a 10 000-response
// trace (50 000 events, JSON parsing included; 3-byte audio payloads so the
// figure is the metric work, not base64 scanning).
func BenchmarkScoreSession10k(b *testing.B) {
	s := benchSession(10000, 3)
	loopCPU(b, func() {
		if res := metrics.ScoreSession(s); len(res.Rows) != 10000 {
			b.Fatal(len(res.Rows))
		}
	})
}

// BenchmarkBuildReport10k is the run level: 100 sessions × 100 responses →
// duplex_metrics.json (merge, duplex_stream_*, flattened keys) and its file
// bytes.
func BenchmarkBuildReport10k(b *testing.B) {
	results := make([]metrics.SessionResult, 100)
	for i := range results {
		s := benchSession(100, 3)
		s.Session.SampleID = sid(fmt.Sprint(i))
		results[i] = metrics.ScoreSession(s)
	}
	b.Run("build", func(b *testing.B) {
		loopCPU(b, func() {
			if r := metrics.BuildReport(results); len(r.Requests) != 10000 {
				b.Fatal(len(r.Requests))
			}
		})
	})
	r := metrics.BuildReport(results)
	b.Run("file", func(b *testing.B) {
		loopCPU(b, func() { _ = r.File() })
	})
}

// BenchmarkAdd is the per-event cost of the incremental accumulator on a
// realistic mix (5 events per response, 100 ms PCM16 at 24 kHz per audio
// packet = 6 400 base64 characters).
func BenchmarkAdd(b *testing.B) {
	s := benchSession(2000, 4800)
	b.SetBytes(int64(len(s.Events[2].Event)))
	var a metrics.Accumulator
	a.SetMeta(s.Session)
	i := 0
	loopCPU(b, func() {
		if i == len(s.Events) {
			a = metrics.Accumulator{}
			a.SetMeta(s.Session)
			i = 0
		}
		a.Add(s.Events[i])
		i++
	})
}

// loopCPU runs op in b.Loop, reporting allocations and cpu-ns/op: process
// CPU time (all goroutines, GC included) per op.
func loopCPU(b *testing.B, op func()) {
	b.ReportAllocs()
	c0 := cputime.Self()
	for b.Loop() {
		op()
	}
	if c := cputime.Self(); c > 0 {
		b.ReportMetric(float64(c-c0)/float64(b.N), "cpu-ns/op")
	}
}
