// Package golden compares test output with files under testdata/golden and
// rewrites them when tests run with -update.
package golden

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/golden")

// Path returns testdata/golden/<TestName>/<subtest>.<ext> for t.
func Path(t testing.TB, ext string) string {
	name := t.Name()
	dir, file := name, "golden"
	if i := strings.Index(name, "/"); i >= 0 {
		dir, file = name[:i], strings.ReplaceAll(name[i+1:], "/", "_")
	}
	return filepath.Join("testdata", "golden", dir, file+"."+ext)
}

// Check compares got with the golden file for t (writing it under -update).
func Check(t testing.TB, ext string, got []byte) {
	t.Helper()
	p := Path(t, ext)
	if *update {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("golden file %s: %v (run with -update to create it)", p, err)
	}
	if !bytes.Equal(want, got) {
		t.Errorf("%s mismatch (-want +got):\n%s", p, cmp.Diff(string(want), string(got)))
	}
}
