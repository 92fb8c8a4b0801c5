//go:build !js

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/duplexscope/duplexscope/metrics"
	"github.com/duplexscope/duplexscope/trace"
)

const scoreUsage = `duplexscope score TRACE.json…

Reads duplex-trace/v1 documents (kind session, run or engine_tpot; the
golden-vector format, also the wire log a session records) and prints, for
each file in argument order, one line of JSON (NDJSON) in the layout of the
matching *.expected.json (docs/metrics.md#conformance).

Exit status 2 (message on stderr) for an unreadable trace, an unknown
format/kind ("kind": null too), a wrapper outside the documented types
(README "Trace format": t_ms a finite number, …), and wherever the
reference raises: a value that would print as NaN or ±Infinity (the message
names its JSON path, e.g. session_metrics.ttft_ms.mean) or a conversion
Python cannot do (int("abc")). Output is always strict JSON. Lines for the
files before it have been printed.

Examples:
  duplexscope score session.trace.json
  duplexscope score metrics/testdata/vectors/*.trace.json | jq .kind`

func scoreCmd(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("score", scoreUsage, stderr)
	if err := fs.Parse(args); err != nil {
		return flagError(err)
	}
	if fs.NArg() == 0 {
		return &exitError{code: 2, err: errors.New("score: no trace files given\n\n" + scoreUsage)}
	}
	for _, name := range fs.Args() {
		line, err := scoreFile(name)
		if err != nil {
			return &exitError{code: 2, err: err}
		}
		if _, err := stdout.Write(append(line, '\n')); err != nil {
			return fmt.Errorf("score: %w", err)
		}
	}
	return nil
}

// scoreFile returns the compact JSON line for one trace file.
func scoreFile(name string) ([]byte, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("score: %w", err)
	}
	doc, err := trace.Decode(data)
	if err != nil {
		return nil, fmt.Errorf("score %s: %w", name, err)
	}
	out, err := metrics.Score(doc)
	if err != nil {
		return nil, fmt.Errorf("score %s: %w", name, err)
	}
	line, err := out.MarshalJSON()
	if err != nil {
		return nil, fmt.Errorf("score %s: %w", name, err)
	}
	return line, nil
}
