package report_test

import (
	"fmt"

	"github.com/duplexscope/duplexscope/report"
)

// ExampleImport imports a vLLM-Omni duplex_metrics.json unchanged; the
// run-level keys are recomputed from its rows.
func ExampleImport() {
	file := []byte(`{"duplex_request_metrics": [
	  {"session_id": "s", "request_index": 0, "response_id": "r0", "source": "client_monotonic_receive", "ttft_ms": 100.0, "ttfp_ms": 200.0, "audio_generation_ms": 900.0, "audio_duration_ms": 1000.0, "rtf": 0.9, "client_ttft_ms": 100.0, "client_ttfp_ms": 200.0},
	  {"session_id": "s", "request_index": 1, "response_id": "r1", "source": "client_monotonic_receive", "ttft_ms": 300.0, "ttfp_ms": 400.0, "audio_generation_ms": 900.0, "audio_duration_ms": 1000.0, "rtf": 0.9, "client_ttft_ms": 300.0, "client_ttfp_ms": 400.0}],
	 "duplex_session_metrics": [], "mean_duplex_response_ttfp_ms": 999.0}`)
	r, err := report.Import(file, report.DefaultLimits, report.ImportOptions{Model: "minicpm-o-4.5"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(r.Imported.Format, r.Run.Model, len(r.Metrics.Requests))
	fmt.Println("mean TTFP:", *r.Metrics.MeanResponseTTFP, "p99:", *r.Metrics.P99ResponseTTFP)
	for _, w := range r.Warnings {
		fmt.Println("warning:", w.Code)
	}
	// Output:
	// vllm_duplex_metrics minicpm-o-4.5 2
	// mean TTFP: 300 p99: 400
	// warning: server_metrics_missing
}
