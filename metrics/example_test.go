package metrics_test

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/duplexscope/duplexscope/metrics"
	"github.com/duplexscope/duplexscope/trace"
)

// A live view feeds every wire-log entry into an Accumulator and takes a
// snapshot whenever it redraws.
func ExampleAccumulator_Add() {
	var a metrics.Accumulator
	a.SetStreamStart(10000)
	for _, ev := range []trace.Event{
		{TMs: 10100, Dir: "recv", Event: json.RawMessage(`{"type":"response.created","response":{"id":"r1"}}`)},
		{TMs: 10200, Dir: "recv", Event: json.RawMessage(`{"type":"response.output_text.delta","response_id":"r1","delta":"Done."}`)},
		{TMs: 10300, Dir: "recv", Event: json.RawMessage(`{"type":"response.output_audio.delta","response_id":"r1","delta":"AAAA","metadata":{"audio_duration_ms":100}}`)},
	} {
		a.Add(ev)
	}
	s := a.Snapshot()
	raw := s.Rows[0].Raw
	fmt.Println("ttft_ms", *raw.TTFTMs, raw.TTFTClock)
	fmt.Println("ttfp_ms", raw.TTFPMs, "rtf", *raw.RTF)
	fmt.Println("stream_ttfp_ms", s.Summary.Stream.TTFPMs)
	// Output:
	// ttft_ms 100 client_receive
	// ttfp_ms 200 rtf 2
	// stream_ttfp_ms 300
}

func ExamplePercentile() {
	sorted := []float64{10, 10, 10, 50}
	fmt.Println(metrics.Percentile(sorted, 0.50), metrics.Percentile(sorted, 0.99))
	fmt.Printf("%+v\n", *metrics.Summarize([]float64{412.5, 388.25, 1020.0, 455.125, 501.0}, 3))
	// Output:
	// 10 50
	// {Count:5 Mean:555.375 P50:455.125 P99:1020}
}

func ExampleRound() {
	fmt.Println(metrics.Round(0.0625, 3), metrics.Round(2.0005, 3), metrics.Round(99.99999999999964, 3))
	// Output: 0.062 2.001 100
}

func ExampleEngineTPOT() {
	r := metrics.EngineTPOT([]metrics.EngineOutput{{TMs: 100, NewTokens: 1}, {TMs: 130, NewTokens: 3}})
	fmt.Println(r.TPOTMs, r.ITLsMs, r.NumTokensOut)
	// Output: 10 [30] 4
}

func ExampleReport_MarshalJSON() {
	rows := []metrics.Object{
		{{"sample_id", "s1"}, {"split", "A"}, {"ttft_ms", 10.0}},
		{{"sample_id", "s2"}, {"split", "A"}, {"ttft_ms", 30.0}},
	}
	b, _ := metrics.NewReport(rows, nil).MarshalJSON()
	fmt.Println(string(b))
	// Output:
	// {"duplex_request_metrics":[{"sample_id":"s1","split":"A","ttft_ms":10.0},{"sample_id":"s2","split":"A","ttft_ms":30.0}],"duplex_session_metrics":[],"num_duplex_response_ttft_ms_samples":2,"mean_duplex_response_ttft_ms":20.0,"median_duplex_response_ttft_ms":10.0,"p99_duplex_response_ttft_ms":30.0}
}

func ExampleReport_File() {
	fmt.Println(string(metrics.NewReport(nil, []metrics.Object{{{"session_id", "563"}, {"audio_turn_count", 0}, {"rtf", nil}}}).File()))
	// Output:
	// {
	//   "duplex_request_metrics": [],
	//   "duplex_session_metrics": [
	//     {
	//       "session_id": "563",
	//       "audio_turn_count": 0,
	//       "rtf": null
	//     }
	//   ]
	// }
}

func ExampleReport_Console() {
	rows := []metrics.Object{{{"ttft_ms", 10.0}}, {{"ttft_ms", 30.5}}}
	// Lines are padded like Python's "{:<40} {:<10.2f}"; trimmed here for display.
	for _, line := range strings.Split(metrics.NewReport(rows, nil).Console(), "\n") {
		fmt.Println(strings.TrimRight(line, " "))
	}
	// Output:
	// ========== Duplex Per-Response Latency ===========
	// Mean server TTFT (ms):                   20.25
	// Median server TTFT (ms):                 10.00
	// P99 server TTFT (ms):                    30.50
	// ==================================================
}
