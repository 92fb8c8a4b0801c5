//go:build !js

package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/duplexscope/duplexscope/session"
	"github.com/duplexscope/duplexscope/trace"
)

// The run's files inside --out: names, the --resume/--overwrite rules,
// wire logs and atomic writes.

// Output file names inside --out.
const (
	fileReport  = "report.json"
	fileMetrics = "duplex_metrics.json"
	fileResult  = "result.json"
	dirTraces   = "traces"
)

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]`)

// traceName is the file name of a sample's wire log: split__sample_id with
// unsafe characters replaced (plus a hash of the key when any were, so
// distinct keys never collide).
func traceName(split, sampleID string) string {
	key := split + "__" + sampleID
	name := unsafeName.ReplaceAllString(key, "_")
	if name != key || strings.HasPrefix(name, ".") {
		h := sha256.Sum256([]byte(split + "\x00" + sampleID))
		name = strings.TrimLeft(name, ".") + "-" + hex.EncodeToString(h[:4])
	}
	return name + ".trace.json"
}

// prepareOut applies the --resume / --overwrite rules to the output dir.
func prepareOut(o *runOptions) error {
	ents, err := os.ReadDir(o.Out)
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return &exitError{code: 2, err: fmt.Errorf("run: --out: %w", err)}
	case len(ents) > 0 && !o.Resume && !o.Overwrite:
		return &exitError{code: 2, err: fmt.Errorf("run: --out %s already holds results; pass --resume to continue that run or --overwrite to replace it", o.Out)}
	case len(ents) > 0 && o.Overwrite:
		for _, n := range []string{fileReport, fileMetrics, fileResult, dirTraces, "duplex_metrics.partial.json"} {
			if err := os.RemoveAll(filepath.Join(o.Out, n)); err != nil {
				return fmt.Errorf("run: --overwrite: %w", err)
			}
		}
	}
	if err := os.MkdirAll(filepath.Join(o.Out, dirTraces), 0o755); err != nil {
		return fmt.Errorf("run: %w", err)
	}
	return nil
}

// traceComplete reports whether a stored wire log finished cleanly.
func traceComplete(t *trace.Session) bool {
	var ex session.Extra
	return len(t.Session.Extra) > 0 && json.Unmarshal(t.Session.Extra, &ex) == nil && !ex.Incomplete
}

func readTrace(path string) (*trace.Session, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	t, err := trace.DecodeSession(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &t, nil
}

func writeFileAtomic(path string, data []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
