package protocol

import (
	"encoding/json"
	"strings"
	"testing"
)

// BenchmarkDecodeAudioDelta decodes a MiniCPM-o-sized audio delta (1 s of
// 24 kHz PCM16, a ~64 KB frame), the hot path of every client.
func BenchmarkDecodeAudioDelta(b *testing.B) {
	frame := []byte(`{"type":"response.output_audio.delta","response_id":"resp_1","item_id":"item_resp_1","output_index":0,"content_index":0,"delta":"` +
		strings.Repeat("AAAA", 16000) + `","format":"pcm16","sample_rate_hz":24000,"metadata":{"audio_duration_ms":1000,` +
		`"vllm_omni":{"response_request_metrics":{"source":"server_monotonic_request_start","ttft_ms":100.5,"ttfp_ms":140.25},` +
		`"stage_metrics":{"0":{"num_tokens_out":12,"vllm_tpot_ms":8.5,"vllm_itls_ms":[25.5,25.5]}}}}}`)
	b.SetBytes(int64(len(frame)))
	for b.Loop() {
		if _, err := Decode(frame); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMarshalAppend encodes what a paced client sends every 200 ms
// (16 kHz PCM16: 6 400 bytes, 8 536 of base64), with Marshal and with
// json.Marshal, which scans the event's MarshalJSON output once more.
func BenchmarkMarshalAppend(b *testing.B) {
	rate, dur, end := 16000, int64(200), int64(3000)
	ev := &InputAudioBufferAppend{Header: Header{Type: TypeInputAudioBufferAppend, EventID: "event_1"},
		Audio: strings.Repeat("AAAA", 2134), InputAudioFormat: "pcm16", Format: "pcm16",
		SampleRateHz: &rate, DurationMs: &dur, AudioEndMs: &end}
	for _, c := range []struct {
		name    string
		marshal func(Event) ([]byte, error)
	}{
		{"Marshal", Marshal},
		{"json.Marshal", func(e Event) ([]byte, error) { return json.Marshal(e) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := c.marshal(ev); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
