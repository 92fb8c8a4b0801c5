package report

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// vllmSaveResultKeys is the researched list, written out here so a change
// to SaveResultKeys must be deliberate. Sources: vllm/benchmarks/serve.py
// (main_async: date … max_concurrency, then the benchmark result, minus
// input_lens/output_lens/start_times/ttfts/itls/generated_texts/errors
// without --save-detailed) and vllm_omni/benchmarks/patch/patch.py
// (benchmark(): the MultiModalsBenchmarkMetrics result dict, duplex lists and
// summaries, "omniinteract", process_one_metric's mean_/median_/p99_ keys).
var vllmSaveResultKeys = []string{
	"date", "endpoint_type", "backend", "label", "model_id", "tokenizer_id", "num_prompts",
	"request_rate", "burstiness", "max_concurrency",
	"duration", "completed", "failed", "total_input_tokens", "total_output_tokens",
	"request_throughput", "request_goodput", "output_throughput", "total_token_throughput",
	"total_audio_duration_s", "total_audio_frames", "audio_throughput",
	"total_images", "image_throughput", "average_pixels_per_image", "mean_denoise_step_latency_ms",
	"total_video_duration_s", "total_video_frames", "video_throughput",
	"mean_video_rtf", "median_video_rtf", "percentiles_video_rtf",
	"mean_video_generation_ms", "median_video_generation_ms", "percentiles_video_generation_ms",
	"mean_peak_memory_mb", "median_peak_memory_mb", "percentiles_peak_memory_mb",
	"max_output_tokens_per_s", "max_concurrent_requests", "rtfx",
	"duplex_request_metrics", "duplex_session_metrics",
	"duplex_stream_ttft_ms", "duplex_stream_ttfp_ms", "duplex_stream_rtf",
	"omniinteract",
	"mean_ttft_ms", "median_ttft_ms", "p99_ttft_ms",
	"mean_tpot_ms", "median_tpot_ms", "p99_tpot_ms",
}

func topKeysOf(t *testing.T, b []byte) []string {
	t.Helper()
	keys, _, err := orderedTop(b)
	if err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	return keys
}

func TestSaveResultKeys(t *testing.T) {
	t.Parallel()
	if strings.Join(SaveResultKeys, " ") != strings.Join(vllmSaveResultKeys, " ") {
		t.Fatalf("SaveResultKeys changed:\n got %v\nwant %v", SaveResultKeys, vllmSaveResultKeys)
	}
	ex, err := os.ReadFile("testdata/omniinteract_result.example.json")
	if err != nil {
		t.Fatal(err)
	}
	imported, err := Import(ex, DefaultLimits, ImportOptions{Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	empty := &Report{Schema: Schema, Run: Run{Model: "m"}}
	tests := []struct {
		name    string
		r       *Report
		opt     SaveResultOptions
		present []string // conditional keys expected
	}{
		{"no sessions", empty, SaveResultOptions{}, nil},
		{"omniinteract, no sessions", empty, SaveResultOptions{OmniInteract: true}, []string{"omniinteract"}},
		{"sessions without rows", imported, SaveResultOptions{}, []string{"duplex_session_metrics", "duplex_stream_ttft_ms", "duplex_stream_ttfp_ms", "duplex_stream_rtf"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, err := SaveResult(tc.r, tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			for _, k := range vllmSaveResultKeys {
				if !SaveResultConditional[k] || contains(tc.present, k) {
					want = append(want, k)
				}
			}
			want = append(want, "duplexscope")
			if got := topKeysOf(t, b); strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("keys\n got %v\nwant %v", got, want)
			}
		})
	}
}

// TestVLLMResultRoundTrip: an imported --save-result file exports back with
// its own values for its keys.
func TestVLLMResultRoundTrip(t *testing.T) {
	t.Parallel()
	ex, _ := os.ReadFile("testdata/omniinteract_result.example.json")
	r, err := Import(ex, DefaultLimits, ImportOptions{Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := VLLMResult(r)
	if err != nil {
		t.Fatal(err)
	}
	var in, out map[string]json.RawMessage
	json.Unmarshal(ex, &in)
	json.Unmarshal(b, &out)
	for k, v := range in {
		var a, c bytes.Buffer
		json.Compact(&a, v)
		json.Compact(&c, out[k])
		if k != "duplex_session_metrics" && a.String() != c.String() {
			t.Errorf("%s = %s, imported %s", k, c.String(), a.String())
		}
	}
	if _, ok := out["omniinteract"]; !ok { // its sessions carry omniinteract: ids
		t.Error("no omniinteract summary for an OmniInteract import")
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
