package archive_test

import (
	"testing"

	"github.com/duplexscope/duplexscope/server/archive"
	"github.com/duplexscope/duplexscope/server/archive/archivetest"
)

func TestMemory(t *testing.T) {
	archivetest.Run(t, func(t *testing.T) archive.Store { return archive.NewMemory() })
}

func TestNewID(t *testing.T) {
	seen := map[string]bool{}
	for i := 0; i < 1000; i++ {
		id := archive.NewID()
		if !archive.ValidID(id) {
			t.Fatalf("NewID() = %q is not ValidID", id)
		}
		if seen[id] {
			t.Fatalf("NewID repeated %q", id)
		}
		seen[id] = true
	}
	for _, bad := range []string{"", "../../etc/passwd", "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", "abcdefghijklmnopqrstuvwxyz23456", "abcdefghijklmnopqrstuvwxyz2345670", "abcdefghijklmnopqrstuvwxyz23456/", "abcdefghijklmnopqrstuvwxyz01234"} {
		if archive.ValidID(bad) {
			t.Errorf("ValidID(%q) = true", bad)
		}
	}
}
