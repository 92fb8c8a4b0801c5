package main

import (
	"bytes"
	"compress/gzip"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/andybalholm/brotli"
)

func TestCompressFileRoundTrips(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		data []byte
	}{
		{"empty", nil},
		{"text", bytes.Repeat([]byte("duplexscope wasm "), 4096)},
		{"random", randomBytes(1 << 16)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			name := filepath.Join(dir, "app.wasm")
			if err := os.WriteFile(name, tc.data, 0o644); err != nil {
				t.Fatal(err)
			}
			var out strings.Builder
			if err := compressFile(name, &out); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(out.String(), "raw ") {
				t.Errorf("summary line missing sizes: %q", out.String())
			}
			gz, err := os.ReadFile(name + ".gz")
			if err != nil {
				t.Fatal(err)
			}
			zr, err := gzip.NewReader(bytes.NewReader(gz))
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(zr)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, tc.data) {
				t.Errorf("gzip round trip differs: %d bytes, want %d", len(got), len(tc.data))
			}
			br, err := os.ReadFile(name + ".br")
			if err != nil {
				t.Fatal(err)
			}
			got, err = io.ReadAll(brotli.NewReader(bytes.NewReader(br)))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, tc.data) {
				t.Errorf("brotli round trip differs: %d bytes, want %d", len(got), len(tc.data))
			}
		})
	}
}

func TestCompressFileMissing(t *testing.T) {
	t.Parallel()
	err := compressFile(filepath.Join(t.TempDir(), "nope.wasm"), io.Discard)
	if err == nil {
		t.Fatal("want an error for a missing file")
	}
}

func randomBytes(n int) []byte {
	r := rand.New(rand.NewPCG(1, 2))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}
