//go:build !js

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/duplexscope/duplexscope/metrics/conformance"
)

// vectorDir holds the golden vectors (copied verbatim into metrics).
var vectorDir = filepath.Join("..", "..", "metrics", "testdata", "vectors")

// TestScoreVectors runs `duplexscope score` on every vector in one call
// and checks one NDJSON line per file, in argument order, each matching its
// expected file at the README tolerance.
func TestScoreVectors(t *testing.T) {
	t.Parallel()
	all, err := filepath.Glob(filepath.Join(vectorDir, "*.trace.json"))
	if err != nil || len(all) < 8+20 {
		t.Fatalf("vectors: %v (%d found)", err, len(all))
	}
	var traces []string
	for _, tr := range all {
		if !strings.HasPrefix(filepath.Base(tr), "must_refuse_") {
			traces = append(traces, tr)
		}
	}
	// Reverse order proves lines follow argument order, not file order.
	for i, j := 0, len(traces)-1; i < j; i, j = i+1, j-1 {
		traces[i], traces[j] = traces[j], traces[i]
	}
	var stdout, stderr bytes.Buffer
	if code := realMain(append([]string{"score"}, traces...), &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d, stderr: %s", code, stderr.String())
	}
	lines := strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n")
	if len(lines) != len(traces) {
		t.Fatalf("got %d lines for %d files", len(lines), len(traces))
	}
	for i, tr := range traces {
		want, err := os.ReadFile(strings.TrimSuffix(tr, ".trace.json") + ".expected.json")
		if err != nil {
			t.Fatal(err)
		}
		if err := conformance.Compare(want, []byte(lines[i])); err != nil {
			t.Errorf("%s: %v", filepath.Base(tr), err)
		}
	}
}

func TestScoreErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := filepath.Join(vectorDir, "tpot_token_weighted.trace.json")
	tests := []struct {
		name      string
		args      []string
		wantCode  int
		wantLines int
		wantErr   string
	}{
		{"missing file", []string{filepath.Join(dir, "nope.json")}, 2, 0, "nope.json"},
		{"not JSON", []string{write("bad.json", "{")}, 2, 0, "bad.json"},
		{"unknown format", []string{write("fmt.json", `{"format":"duplex-trace/v9"}`)}, 2, 0, "unknown format"},
		{"unknown kind", []string{good, write("kind.json", `{"kind":"bogus"}`)}, 2, 1, "unknown kind"},
		{"no arguments", nil, 2, 0, "no trace files"},
		{"invalid existing report", []string{write("run.json", `{"kind":"run","existing_report":[],"sessions":[]}`)}, 2, 0, "must contain a JSON object"},
		{"good file", []string{good}, 0, 1, ""},
		// The edge vectors the reference raises on: exit 2, the field named.
		{"kind null", []string{filepath.Join(vectorDir, "must_refuse_kind_null_go_scores.trace.json")}, 2, 0, "kind"},
		{"non-finite stage-0 value", []string{good, filepath.Join(vectorDir, "must_refuse_nonfinite_go_prints_infinity.trace.json")}, 2, 1, "request_metrics[0].stage0_tokens.tpot_ms"},
		{"overflowing mean", []string{filepath.Join(vectorDir, "must_refuse_overflow_go_prints_infinity.trace.json")}, 2, 0, "session_metrics.ttft_ms.mean"},
		{"t_ms not finite", []string{write("tms.json", `{"events":[{"t_ms":Infinity,"dir":"recv","event":{}}]}`)}, 2, 0, "events[0]: t_ms must be a finite number"},
		{"int() raises", []string{write("int.json", `{"events":[{"t_ms":1,"dir":"recv","event":{"type":"response.created","response_id":"r"}},{"t_ms":2,"dir":"recv","event":{"response_id":"r","metadata":{"stage_metrics":{"0":{"num_tokens_out":"many"}}}}}]}`)}, 2, 0, "stage0_tokens.output_token_count"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			code := realMain(append([]string{"score"}, tc.args...), &stdout, &stderr)
			if code != tc.wantCode {
				t.Errorf("exit %d, want %d (stderr %q)", code, tc.wantCode, stderr.String())
			}
			if n := strings.Count(stdout.String(), "\n"); n != tc.wantLines {
				t.Errorf("%d stdout lines, want %d", n, tc.wantLines)
			}
			if !strings.Contains(stderr.String(), tc.wantErr) {
				t.Errorf("stderr %q does not mention %q", stderr.String(), tc.wantErr)
			}
		})
	}
}
