// Command compress writes pre-compressed copies of web assets next to them:
// FILE.gz (gzip, best compression) and FILE.br (brotli, quality 11), so the
// server can answer Accept-Encoding without compressing at run time.
//
// Usage: go run ./internal/compress web/app.wasm [FILE…]
//
// It prints one line per file with the raw, gzip and brotli sizes.
package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/andybalholm/brotli"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: compress FILE…")
		os.Exit(2)
	}
	// Files, and each file's two encodings, compress at once: brotli-11 of
	// app.wasm alone is most of `make wasm`'s wall time, and the other
	// core would idle. Reports print in argument order.
	names := os.Args[1:]
	outs := make([]bytes.Buffer, len(names))
	errs := make([]error, len(names))
	var wg sync.WaitGroup
	for i, name := range names {
		wg.Go(func() { errs[i] = compressFile(name, &outs[i]) })
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

func compressFile(name string, out io.Writer) error {
	raw, err := os.ReadFile(name)
	if err != nil {
		return fmt.Errorf("compress: %w", err)
	}
	var gz []byte
	var gzErr error
	var wg sync.WaitGroup
	wg.Go(func() { gz, gzErr = Gzip(raw) })
	br, err := Brotli(raw)
	wg.Wait()
	if gzErr != nil {
		return fmt.Errorf("compress %s: gzip: %w", name, gzErr)
	}
	if err != nil {
		return fmt.Errorf("compress %s: brotli: %w", name, err)
	}
	if err := writeAtomic(name+".gz", gz); err != nil {
		return err
	}
	if err := writeAtomic(name+".br", br); err != nil {
		return err
	}
	fmt.Fprintf(out, "%s: raw %d B, gzip %d B (%.1f%%), brotli %d B (%.1f%%)\n",
		name, len(raw), len(gz), pct(len(gz), len(raw)), len(br), pct(len(br), len(raw)))
	return nil
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

// Brotli compresses b at the best quality with a 16 MiB window.
func Brotli(b []byte) ([]byte, error) {
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

func writeAtomic(name string, b []byte) error {
	tmp := name + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return fmt.Errorf("compress: %w", err)
	}
	if err := os.Rename(tmp, name); err != nil {
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
