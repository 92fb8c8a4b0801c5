package metrics_test

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestImports enforces docs/style.md#layout: metrics and metrics/conformance
// use only the standard library (plus trace and protocol, whose shared
// response-identity rule metrics applies, for metrics) in non-test code,
// turntaking stdlib plus trace and protocol, loadcurve stdlib plus metrics
// and trace, and ../trace only the
// standard library. protocol itself does no I/O (no os, no net/http).
func TestImports(t *testing.T) {
	t.Parallel()
	allowed := map[string][]string{
		".":           {"github.com/duplexscope/duplexscope/trace", "github.com/duplexscope/duplexscope/protocol"},
		"conformance": {"github.com/duplexscope/duplexscope/trace"},
		"turntaking":  {"github.com/duplexscope/duplexscope/trace", "github.com/duplexscope/duplexscope/protocol"},
		"loadcurve":   {"github.com/duplexscope/duplexscope/metrics", "github.com/duplexscope/duplexscope/trace"},
		"../trace":    nil,
	}
	for dir, extra := range allowed {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: no Go files (%v)", dir, err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			af, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range af.Imports {
				p, _ := strconv.Unquote(imp.Path.Value)
				std := !strings.Contains(strings.Split(p, "/")[0], ".")
				ok := std
				for _, e := range extra {
					ok = ok || p == e
				}
				if !ok {
					t.Errorf("%s imports %s (allowed: stdlib %v)", f, p, extra)
				}
				if p == "os" || p == "time" || p == "net/http" || p == "syscall/js" {
					t.Errorf("%s imports %s: metrics and trace are pure (no I/O, no clocks)", f, p)
				}
			}
		}
	}
}
