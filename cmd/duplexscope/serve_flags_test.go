//go:build !js

package main

import (
	"context"
	"errors"
	"io"
	"testing"
)

// TestServeOriginFlag: --allow-origin takes origins, nothing else; a bad
// one is a usage error (exit 2) before anything listens.
func TestServeOriginFlag(t *testing.T) {
	for _, bad := range []string{"ci.example", "https://", "https://ci.example/path", "ftp://ci.example", "https://ok.example,null"} {
		err := serveCmd(context.Background(), []string{"--addr", "127.0.0.1:0", "--data", t.TempDir(), "--allow-origin", bad}, io.Discard, io.Discard)
		var ee *exitError
		if !errors.As(err, &ee) || ee.code != 2 {
			t.Errorf("--allow-origin %q: %v, want a usage error (exit 2)", bad, err)
		}
	}
}
