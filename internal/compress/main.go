// Command compress writes pre-compressed copies of web assets: FILE.gz
// (gzip, best compression) and FILE.br (brotli, quality 11), so the server
// can answer Accept-Encoding without compressing at run time.
//
// Usage: go run ./internal/compress [-into DIR] [-cache DIR] FILE…
//
// Without -into the copies are written next to FILE. With -into, FILE and
// its copies are moved into DIR, each by one rename after it is complete
// (the copies first): `make wasm` builds outside web/, whose files the Go
// build embeds, so a build or test compiling beside it sees either the old
// or the new file, never a torn one.
//
// Compressed copies are cached by the SHA-256 of FILE's bytes under -cache
// (default: duplexscope-compress in the user cache directory; "off"
// disables it): -trimpath wasm builds are reproducible, and brotli-11 of
// app.wasm takes most of a minute on 2 cores, so a second `make wasm` of an
// unchanged tree costs seconds. A cached copy is used only when it
// decompresses to FILE's bytes.
//
// Brotli runs Debian's `brotli` command when it is on PATH (`make test`
// installs it): the C encoder, at the same settings as the Go port, takes
// 33 s instead of 55 s for app.wasm on the 2-core machine (the same bytes
// there; on other input a few bytes more or less:
// TestBrotliCommandMatchesLibrary), and that compression is the last step
// before `make test`'s browser suites can start. Without it, or when its
// output does not decompress to the input, the Go port does the work.
//
// It prints one line per file with the raw, gzip and brotli sizes.
package main

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"

	"github.com/andybalholm/brotli"
)

func main() {
	into := flag.String("into", "", "move each FILE and its copies into this directory")
	cache := flag.String("cache", defaultCache(), `directory caching compressed copies by content ("off": none)`)
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: compress [-into DIR] [-cache DIR] FILE…")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	if *cache == "off" {
		*cache = ""
	}
	// Files, and each file's two encodings, compress at once: brotli-11 of
	// app.wasm alone is most of `make wasm`'s wall time, and the other
	// core would idle. Reports print in argument order.
	names := flag.Args()
	outs := make([]bytes.Buffer, len(names))
	errs := make([]error, len(names))
	var wg sync.WaitGroup
	for i, name := range names {
		wg.Go(func() { errs[i] = compressFile(name, *into, *cache, &outs[i]) })
	}
	wg.Wait()
	for i := range names {
		os.Stdout.Write(outs[i].Bytes())
		if errs[i] != nil {
			fmt.Fprintf(os.Stderr, "Error: %v\n", errs[i])
			os.Exit(1)
		}
	}
}

// cacheVersion names the settings of Gzip and Brotli in cache keys: change
// it when they change.
const cacheVersion = "gz9-br11w24"

func defaultCache() string {
	base, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(base, "duplexscope-compress")
}

// compressFile writes name's .gz and .br (from cache when it holds them
// for these bytes, else compressed and then cached) next to it, or, with
// into, moves name and both copies into that directory.
func compressFile(name, into, cache string, out io.Writer) error {
	raw, err := os.ReadFile(name)
	if err != nil {
		return fmt.Errorf("compress: %w", err)
	}
	sum := sha256.Sum256(raw)
	key := ""
	if cache != "" {
		key = filepath.Join(cache, cacheVersion+"-"+hex.EncodeToString(sum[:]))
	}
	gz, br, cached := fromCache(key, raw)
	if !cached {
		var gzErr error
		var wg sync.WaitGroup
		wg.Go(func() { gz, gzErr = Gzip(raw) })
		br, err = Brotli(raw)
		wg.Wait()
		if gzErr != nil {
			return fmt.Errorf("compress %s: gzip: %w", name, gzErr)
		}
		if err != nil {
			return fmt.Errorf("compress %s: brotli: %w", name, err)
		}
		if key != "" {
			// A cache that cannot be written only costs the next run time.
			if os.MkdirAll(cache, 0o755) == nil && writeAtomic(key+".gz", key+".gz", gz) == nil {
				_ = writeAtomic(key+".br", key+".br", br)
			}
		}
	}
	dest := name
	if into != "" {
		dest = filepath.Join(into, filepath.Base(name))
	}
	// Temporary files live beside name, never in into.
	if err := writeAtomic(name+".gz.tmp", dest+".gz", gz); err != nil {
		return err
	}
	if err := writeAtomic(name+".br.tmp", dest+".br", br); err != nil {
		return err
	}
	if dest != name {
		if err := os.Rename(name, dest); err != nil {
			return fmt.Errorf("compress: %w", err)
		}
	}
	how := ""
	if cached {
		how = ", from the cache"
	}
	fmt.Fprintf(out, "%s: raw %d B, gzip %d B (%.1f%%), brotli %d B (%.1f%%)%s\n",
		dest, len(raw), len(gz), pct(len(gz), len(raw)), len(br), pct(len(br), len(raw)), how)
	return nil
}

// fromCache returns key's cached copies when both decompress to raw.
func fromCache(key string, raw []byte) (gz, br []byte, ok bool) {
	if key == "" {
		return nil, nil, false
	}
	gz, err := os.ReadFile(key + ".gz")
	if err != nil {
		return nil, nil, false
	}
	br, err = os.ReadFile(key + ".br")
	if err != nil {
		return nil, nil, false
	}
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil, nil, false
	}
	if b, err := io.ReadAll(zr); err != nil || !bytes.Equal(b, raw) {
		return nil, nil, false
	}
	if !brotliOf(br, raw) {
		return nil, nil, false
	}
	return gz, br, true
}

// Gzip compresses b at gzip.BestCompression.
func Gzip(b []byte) ([]byte, error) {
	var buf bytes.Buffer
	w, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	if _, err := w.Write(b); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Brotli compresses b at the best quality with a 16 MiB window: with the
// brotli command when it is on PATH and its output decompresses to b,
// else with the Go port.
func Brotli(b []byte) ([]byte, error) {
	if br, err := brotliCommand(b); err == nil && brotliOf(br, b) {
		return br, nil
	}
	return brotliLibrary(b)
}

// brotliCommand runs `brotli -q 11 -w 24` on b.
func brotliCommand(b []byte) ([]byte, error) {
	path, err := exec.LookPath("brotli")
	if err != nil {
		return nil, err
	}
	var out, stderr bytes.Buffer
	cmd := exec.Command(path, "-q", "11", "-w", "24", "-c")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = bytes.NewReader(b), &out, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("brotli: %w: %s", err, bytes.TrimSpace(stderr.Bytes()))
	}
	return out.Bytes(), nil
}

// brotliOf reports whether br decompresses to raw.
func brotliOf(br, raw []byte) bool {
	b, err := io.ReadAll(brotli.NewReader(bytes.NewReader(br)))
	return err == nil && bytes.Equal(b, raw)
}

// brotliLibrary is Brotli with the Go port.
func brotliLibrary(b []byte) ([]byte, error) {
	var buf bytes.Buffer
	w := brotli.NewWriterOptions(&buf, brotli.WriterOptions{Quality: brotli.BestCompression, LGWin: 24})
	if _, err := w.Write(b); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// writeAtomic writes b to tmp and renames it to name.
func writeAtomic(tmp, name string, b []byte) error {
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return fmt.Errorf("compress: %w", err)
	}
	if err := os.Rename(tmp, name); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("compress: %w", err)
	}
	return nil
}

func pct(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return 100 * float64(a) / float64(b)
}
