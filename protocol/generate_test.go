package protocol

import (
	"bytes"
	"os"
	"testing"

	"github.com/duplexscope/duplexscope/protocol/internal/gen"
)

// TestGeneratedIsCurrent fails when zz_events.go is not what events.txt and
// the hand-written types generate now: a forgotten `go generate ./protocol/`.
func TestGeneratedIsCurrent(t *testing.T) {
	want, err := gen.Generate(".")
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(gen.Output)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is stale: run `go generate ./protocol/` and commit the result", gen.Output)
	}
}
