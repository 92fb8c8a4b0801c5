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

	"github.com/andybalholm/brotli"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: compress FILE…")
		os.Exit(2)
	}
	for _, name := range os.Args[1:] {
		if err := compressFile(name, os.Stdout); err != nil {
			fmt.Fprintf(os.Stderr, "Error: %v\n", err)
			os.Exit(1)
		}
	}
}

func compressFile(name string, out io.Writer) error {
	raw, err := os.ReadFile(name)
	if err != nil {
		return fmt.Errorf("compress: %w", err)
	}
	gz, err := Gzip(raw)
	if err != nil {
		return fmt.Errorf("compress %s: gzip: %w", name, err)
	}
	br, err := Brotli(raw)
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
