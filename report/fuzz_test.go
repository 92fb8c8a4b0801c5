package report_test

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"

	"github.com/duplexscope/duplexscope/report"
)

var fuzzLimits = report.Limits{MaxBytes: 1 << 20, MaxDepth: 32, MaxArray: 10_000, MaxString: 1 << 16, MaxRows: 10_000}

// FuzzDecode: the validator never panics, and what it accepts re-encodes
// to a document it accepts again, with the same rows.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(validReport))
	f.Add([]byte(`{"schema":"duplexscope.report/v1","complete":false,"run":{"model":"x","client":"cli","source":{"kind":"mic"},"frame_ms":80,"target_url":"","duplexscope_version":"","machine":{}},"metrics":{"duplex_request_metrics":[],"duplex_session_metrics":[]}}`))
	f.Add([]byte(`{"schema":"duplexscope.report/v1","run":{"shard":{"index":0,"count":0}}}`))
	f.Add([]byte(`[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]`))
	f.Add([]byte("{\"schema\":\"\xff\"}"))
	f.Add([]byte(`{"a":1e999,"b":NaN,"c":-Infinity}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := report.Decode(b, fuzzLimits)
		if err != nil {
			return
		}
		out, err := report.MarshalIndent(r)
		if err != nil {
			t.Fatalf("accepted report does not encode: %v", err)
		}
		r2, err := report.Decode(out, report.DefaultLimits)
		if err != nil {
			t.Fatalf("re-encoded report rejected: %v\n%s", err, out)
		}
		if len(r2.Metrics.Requests) != len(r.Metrics.Requests) {
			t.Fatalf("rows changed: %d → %d", len(r.Metrics.Requests), len(r2.Metrics.Requests))
		}
		for i := range r.Metrics.Requests {
			var a, b bytes.Buffer
			json.Compact(&a, r.Metrics.Requests[i].Raw())
			json.Compact(&b, r2.Metrics.Requests[i].Raw())
			if !bytes.Equal(a.Bytes(), b.Bytes()) {
				t.Fatalf("row %d changed on round trip", i)
			}
		}
		var buf bytes.Buffer
		if err := report.CSV(&buf, r); err != nil {
			t.Fatalf("CSV of an accepted report: %v", err)
		}
		if _, err := report.VLLM(r); err != nil {
			t.Fatalf("vllm export of an accepted report: %v", err)
		}
	})
}

// FuzzImport: vLLM import never panics, and an accepted import validates
// as a report and exports back to vLLM.
func FuzzImport(f *testing.F) {
	for _, name := range []string{"duplex_metrics.example.json", "omniinteract_result.example.json"} {
		b, err := os.ReadFile("testdata/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"duplex_request_metrics":null,"duplex_session_metrics":[{}]}`))
	f.Add([]byte(`{"duplex_session_metrics":[{"session_id":null,"audio_turn_count":-1,"stream_rtf":"x"}]}`))
	f.Add([]byte(`{"duplex_request_metrics":[{"response_id":"r","ttft_ms":true,"rtf":1e308}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := report.Import(b, fuzzLimits, report.ImportOptions{})
		if err != nil {
			return
		}
		if err := report.Validate(r, fuzzLimits); err != nil {
			t.Fatalf("accepted import does not validate: %v", err)
		}
		out, err := report.MarshalIndent(r)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := report.Decode(out, report.DefaultLimits); err != nil {
			t.Fatalf("imported report does not decode: %v", err)
		}
		if _, err := report.VLLM(r); err != nil {
			t.Fatalf("vllm export of an import: %v", err)
		}
	})
}
