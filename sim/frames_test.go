//go:build !js

package sim

import (
	"encoding/json"
	"testing"

	"github.com/duplexscope/duplexscope/metrics"
	"github.com/duplexscope/duplexscope/protocol"
)

func TestSplice(t *testing.T) {
	t.Parallel()
	tests := []struct{ frame, payload, want string }{
		{`{"delta":"` + payloadMark + `","x":1}`, "QUJD", `{"delta":"QUJD","x":1}`},
		{`{"audio":"` + payloadMark + `"}`, "", `{"audio":""}`},
		{`{"delta":"none"}`, "QUJD", `{"delta":"none"}`}, // no mark: unchanged
	}
	for _, tc := range tests {
		if got := string(splice([]byte(tc.frame), tc.payload)); got != tc.want {
			t.Errorf("splice(%s) = %s, want %s", tc.frame, got, tc.want)
		}
	}
}

// TestStageMetrics: the token-weighted rule over the outputs so far; the
// first output (prefill) adds tokens but no interval.
func TestStageMetrics(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		outputs  []metrics.EngineOutput
		wantJSON string
		wantTPOT float64
	}{
		{"first output", []metrics.EngineOutput{{TMs: 100, NewTokens: 3}},
			`{"0":{"num_tokens_out":3,"vllm_ttft_ms":30,"vllm_tpot_ms":0,"vllm_itl_ms":0,"vllm_itls_ms":[]}}`, 0},
		{"two outputs", []metrics.EngineOutput{{TMs: 100, NewTokens: 3}, {TMs: 130, NewTokens: 3}},
			`{"0":{"num_tokens_out":6,"vllm_ttft_ms":30,"vllm_tpot_ms":10,"vllm_itl_ms":30,"vllm_itls_ms":[30]}}`, 10},
		{"uneven", []metrics.EngineOutput{{TMs: 100, NewTokens: 3}, {TMs: 125, NewTokens: 3}, {TMs: 175, NewTokens: 2}},
			`{"0":{"num_tokens_out":8,"vllm_ttft_ms":30,"vllm_tpot_ms":15,"vllm_itl_ms":37.5,"vllm_itls_ms":[25,50]}}`, 15},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			stage, tpot := stageMetrics(tc.outputs, 30)
			b, err := json.Marshal(stage)
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tc.wantJSON || *tpot != tc.wantTPOT {
				t.Errorf("%s tpot %v, want %s tpot %v", b, *tpot, tc.wantJSON, tc.wantTPOT)
			}
		})
	}
}

// TestOmniMetadata: response_request_metrics carries the keys known so
// far; no_request_metrics removes it; nothing known is no vllm_omni.
func TestOmniMetadata(t *testing.T) {
	t.Parallel()
	ttft, ttfp := 20.0, 30.0
	quote := func(v string) string { b, _ := json.Marshal(v); return string(b) }
	head := `{"response_request_metrics":{"source":` + quote(protocol.SourceServerMonotonic) +
		`,"measurement_origin":{"ttft":` + quote(protocol.OriginTTFT) + `,"ttfp":` + quote(protocol.OriginTTFP) + `},`
	one := 1
	stage := map[string]*protocol.StageMetrics{"0": {NumTokensOut: &one}}
	tests := []struct {
		name, query string
		ttft, ttfp  *float64
		stage       map[string]*protocol.StageMetrics
		want        string
	}{
		{"nothing known", "", nil, nil, nil, `null`},
		{"ttft", "", &ttft, nil, nil, head + `"ttft_ms":20}}`},
		{"both and stage", "", &ttft, &ttfp, stage, head + `"ttft_ms":20,"ttfp_ms":30},"stage_metrics":{"0":{"num_tokens_out":1}}}`},
		{"fault", "sim_fault=no_request_metrics", &ttft, &ttfp, nil, `null`},
		{"fault keeps stage", "sim_fault=no_request_metrics", &ttft, &ttfp, stage, `{"stage_metrics":{"0":{"num_tokens_out":1}}}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newHarness(t, mustProfile(t, ProfileTest), tc.query).e
			b, err := json.Marshal(e.omniMetadata(&response{ttftMs: tc.ttft, ttfpMs: tc.ttfp}, tc.stage))
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tc.want {
				t.Errorf("got  %s\nwant %s", b, tc.want)
			}
		})
	}
}

// TestAudioDelta: the delta's name, payload field, rate and duration
// follow the faults; end_of_turn marks the last packet.
func TestAudioDelta(t *testing.T) {
	t.Parallel()
	tests := []struct {
		query, typ, field string
		rate, duration    bool
	}{
		{"", protocol.TypeResponseOutputAudioDelta, "delta", true, true},
		{"sim_event_names=legacy", protocol.TypeLegacyAudioDelta, "delta", true, true},
		{"sim_fault=legacy_audio", protocol.TypeLegacyAudioDelta, "delta", true, true},
		{"sim_fault=audio_field", protocol.TypeResponseOutputAudioDelta, "audio", true, true},
		{"sim_fault=no_sample_rate", protocol.TypeResponseOutputAudioDelta, "delta", false, true},
		{"sim_fault=no_audio_duration", protocol.TypeResponseOutputAudioDelta, "delta", true, false},
	}
	for _, tc := range tests {
		t.Run(tc.query, func(t *testing.T) {
			e := newHarness(t, mustProfile(t, ProfileTest), tc.query).e
			for _, last := range []bool{false, true} {
				r := &response{id: "resp_1", itemID: "item_resp_1", samples: 4800, generatedSamples: 2400}
				if last {
					r.generatedSamples = 4800
				}
				b, err := protocol.Marshal(e.audioDelta(r, 100, 100, nil))
				if err != nil {
					t.Fatal(err)
				}
				var m map[string]any
				if err := json.Unmarshal(splice(b, "QUJD"), &m); err != nil {
					t.Fatalf("%s: %v", b, err)
				}
				_, hasRate := m["sample_rate_hz"]
				_, hasDuration := num(m, "metadata", "audio_duration_ms")
				eot, _ := m["metadata"].(map[string]any)["end_of_turn"].(bool)
				if str(m, "type") != tc.typ || str(m, tc.field) != "QUJD" || hasRate != tc.rate || hasDuration != tc.duration || eot != last {
					t.Errorf("last %v: %s", last, b)
				}
			}
		})
	}
}
