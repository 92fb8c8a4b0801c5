package main

import (
	"bytes"
	"compress/gzip"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/andybalholm/brotli"
)

// sample is one input of the tests that run on each of several.
type sample struct {
	name string
	data []byte
}

// samples are the inputs every compressed copy is checked on.
func samples() []sample {
	return []sample{
		{"empty", nil},
		{"text", bytes.Repeat([]byte("duplexscope wasm "), 4096)},
		{"random", randomBytes(1 << 16)},
	}
}

// forEach runs check on each sample's data in a parallel subtest.
func forEach(t *testing.T, ss []sample, check func(t *testing.T, data []byte)) {
	for _, s := range ss {
		t.Run(s.name, func(t *testing.T) {
			t.Parallel()
			check(t, s.data)
		})
	}
}

func TestCompressFileRoundTrips(t *testing.T) {
	t.Parallel()
	forEach(t, samples(), func(t *testing.T, data []byte) {
		dir := t.TempDir()
		name := filepath.Join(dir, "app.wasm")
		if err := os.WriteFile(name, data, 0o644); err != nil {
			t.Fatal(err)
		}
		var out strings.Builder
		if err := compressFile(name, "", "", &out); err != nil {
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
		if !bytes.Equal(got, data) {
			t.Errorf("gzip round trip differs: %d bytes, want %d", len(got), len(data))
		}
		br, err := os.ReadFile(name + ".br")
		if err != nil {
			t.Fatal(err)
		}
		got, err = io.ReadAll(brotli.NewReader(bytes.NewReader(br)))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, data) {
			t.Errorf("brotli round trip differs: %d bytes, want %d", len(got), len(data))
		}
	})
}

func TestCompressFileMissing(t *testing.T) {
	t.Parallel()
	err := compressFile(filepath.Join(t.TempDir(), "nope.wasm"), "", "", io.Discard)
	if err == nil {
		t.Fatal("want an error for a missing file")
	}
}

// TestCompressCacheAndInto: a second run of the same bytes takes both
// copies from the cache, a cache entry that does not decompress to the
// file's bytes is ignored (and rewritten), and -into moves the file and its
// copies into the directory, leaving no temporary file in either.
func TestCompressCacheAndInto(t *testing.T) {
	t.Parallel()
	data := bytes.Repeat([]byte("cached wasm "), 2048)
	cache := t.TempDir()
	run := func(into string) (string, string) {
		t.Helper()
		src := filepath.Join(t.TempDir(), "app.wasm")
		if err := os.WriteFile(src, data, 0o644); err != nil {
			t.Fatal(err)
		}
		var out strings.Builder
		if err := compressFile(src, into, cache, &out); err != nil {
			t.Fatal(err)
		}
		return src, out.String()
	}
	_, first := run("")
	if strings.Contains(first, "from the cache") {
		t.Fatalf("first run %q: the cache was empty", first)
	}
	dest := t.TempDir()
	src, second := run(dest)
	if !strings.Contains(second, "from the cache") || !strings.Contains(second, filepath.Join(dest, "app.wasm")) {
		t.Errorf("second run %q: want the copies from the cache, installed in %s", second, dest)
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(src), "*")); len(left) != 0 {
		t.Errorf("-into left %v behind", left)
	}
	if names, _ := filepath.Glob(filepath.Join(dest, "*")); len(names) != 3 {
		t.Errorf("-into wrote %v, want app.wasm, .gz and .br", names)
	}
	checkCopies(t, filepath.Join(dest, "app.wasm"), data)

	// Corrupt the cached brotli copy: it must not be served.
	brs, _ := filepath.Glob(filepath.Join(cache, "*.br"))
	if len(brs) != 1 {
		t.Fatalf("cache holds %v, want one .br", brs)
	}
	if err := os.WriteFile(brs[0], []byte("not brotli"), 0o644); err != nil {
		t.Fatal(err)
	}
	src, third := run("")
	if strings.Contains(third, "from the cache") {
		t.Errorf("third run %q used a corrupt cache entry", third)
	}
	checkCopies(t, src, data)
	if _, fourth := run(""); !strings.Contains(fourth, "from the cache") {
		t.Errorf("fourth run %q: the rewritten entry was not cached", fourth)
	}
}

// checkCopies checks that name holds data and name.gz and name.br
// decompress to it.
func checkCopies(t *testing.T, name string, data []byte) {
	t.Helper()
	raw, err := os.ReadFile(name)
	if err != nil || !bytes.Equal(raw, data) {
		t.Fatalf("%s: %d bytes, err %v; want the %d bytes written", name, len(raw), err, len(data))
	}
	if _, _, ok := fromCache(name, data); !ok {
		t.Errorf("%s.gz / .br do not decompress to the file's bytes", name)
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

// TestBrotliCommandMatchesLibrary holds the C encoder's output to the Go
// port's settings: Brotli uses the command when it is on PATH, so its
// copies must decompress to the input and be as small as the Go port's
// (within 1 % and 16 bytes: the two encoders are not byte for byte the
// same; the command wrote 22 bytes less of 59 kB of machine code, the
// same bytes for app.wasm). A lower quality fails on the
// machine code, a smaller window on the far repeat.
func TestBrotliCommandMatchesLibrary(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("brotli"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("brotli is not on PATH (make test installs it: scripts/deps.sh)")
		}
		t.Skip("brotli is not on PATH; scripts/deps.sh test installs it")
	}
	exe, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	far := randomBytes(1 << 19)
	more := []sample{
		{"machine code", exe[:min(len(exe), 1<<17)]},
		{"repeat 512 KiB back", append(far, far...)}, // needs the 16 MiB window
	}
	forEach(t, append(samples(), more...), func(t *testing.T, data []byte) {
		cmd, err := brotliCommand(data)
		if err != nil {
			t.Fatal(err)
		}
		lib, err := brotliLibrary(data)
		if err != nil {
			t.Fatal(err)
		}
		if len(cmd) > len(lib)+len(lib)/100+16 {
			t.Errorf("brotli command wrote %d bytes, the Go port %d", len(cmd), len(lib))
		}
		if !brotliOf(cmd, data) {
			t.Error("the command's output does not decompress to the input")
		}
	})
}
