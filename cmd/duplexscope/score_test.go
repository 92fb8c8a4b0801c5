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
	traces, err := filepath.Glob(filepath.Join(vectorDir, "*.trace.json"))
	if err != nil || len(traces) < 8 {
		t.Fatalf("vectors: %v (%d found)", err, len(traces))
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
