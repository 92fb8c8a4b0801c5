package metrics_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/duplexscope/duplexscope/metrics"
	"github.com/duplexscope/duplexscope/trace"
)

// scoreBytes is `duplexscope score` without the I/O: decode, score, strict
// write. The error is the refusal.
func scoreBytes(data []byte) ([]byte, error) {
	doc, err := trace.Decode(data)
	if err != nil {
		return nil, err
	}
	out, err := metrics.Score(doc)
	if err != nil {
		return nil, err
	}
	return out.MarshalJSON()
}

// TestRefuseVectors: every must_refuse_* edge vector (the reference raises
// on it) is refused with a message naming the field: the output path of the
// value that would print as non-finite, or kind.
func TestRefuseVectors(t *testing.T) {
	t.Parallel()
	want := map[string]string{
		"must_refuse_kind_null_go_scores":          "kind",
		"must_refuse_nonfinite_go_prints_infinity": "request_metrics[0].stage0_tokens.tpot_ms",
		"must_refuse_overflow_go_prints_infinity":  "session_metrics.ttft_ms.mean",
	}
	names := refuseNames(t)
	if len(names) != len(want) {
		t.Fatalf("must_refuse vectors %q, table has %d", names, len(want))
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(filepath.Join("testdata", "vectors", name+".trace.json"))
			if err != nil {
				t.Fatal(err)
			}
			field, ok := want[name]
			if !ok {
				t.Fatalf("no expected field for %s", name)
			}
			out, err := scoreBytes(data)
			if err == nil {
				t.Fatalf("scored, want a refusal naming %s: %s", field, out)
			}
			if !strings.Contains(err.Error(), field) {
				t.Errorf("refusal %q does not name %s", err, field)
			}
		})
	}
}

// TestRefuseRaisingConversions: conversions Python's int()/float() raise
// on are refused with the field's path; the same snapshot written leniently
// has null there.
func TestRefuseRaisingConversions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, stage0, path string
	}{
		{"int of a word", `{"num_tokens_out":"abc"}`, "request_metrics[0].stage0_tokens.output_token_count"},
		{"int of a decimal string", `{"num_tokens_out":"1.5"}`, "request_metrics[0].stage0_tokens.output_token_count"},
		{"int of infinity", `{"num_tokens_out":1e999}`, "request_metrics[0].stage0_tokens.output_token_count"},
		{"int of a list", `{"num_tokens_out":[1]}`, "request_metrics[0].stage0_tokens.output_token_count"},
		{"float of a word", `{"vllm_ttft_ms":"fast"}`, "request_metrics[0].stage0_tokens.ttft_ms"},
		{"float of a huge int", `{"vllm_tpot_ms":1` + strings.Repeat("0", 400) + `}`, "request_metrics[0].stage0_tokens.tpot_ms"},
		{"float of a huge int in itls", `{"vllm_itls_ms":[1,1` + strings.Repeat("0", 400) + `]}`, "request_metrics[0].stage0_tokens.itls_ms[1]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			data := `{"events":[{"t_ms":1,"dir":"recv","event":{"type":"response.created","response":{"id":"r"}}},` +
				`{"t_ms":2,"dir":"recv","event":{"response_id":"r","metadata":{"stage_metrics":{"0":` + tc.stage0 + `}}}}]}`
			if out, err := scoreBytes([]byte(data)); err == nil || !strings.Contains(err.Error(), tc.path) {
				t.Fatalf("got %v (%s), want a refusal naming %s", err, out, tc.path)
			}
			doc, _ := trace.Decode([]byte(data))
			res := metrics.ScoreSession(*doc.Session)
			b, err := metrics.BuildReport([]metrics.SessionResult{res}).MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			field := tc.path[strings.LastIndex(tc.path, ".")+1:]
			if strings.HasPrefix(field, "itls_ms") {
				return // the entry is dropped from the list, the rest stays
			}
			if !strings.Contains(string(b), `"`+field+`":null`) {
				t.Errorf("lenient report lacks %s: null: %s", field, b)
			}
		})
	}
}
