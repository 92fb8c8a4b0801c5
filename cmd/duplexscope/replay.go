//go:build !js

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"

	"github.com/duplexscope/duplexscope/metrics"
	"github.com/duplexscope/duplexscope/report"
	"github.com/duplexscope/duplexscope/trace"
)

const replayUsage = `duplexscope replay [--run] [--pretty] WIRELOG|DIR…

Re-scores stored wire logs (duplex-trace/v1 session documents, as
duplexscope run writes to OUT/traces/ and the page attaches to its reports)
with the current metrics code, so the numbers equal what the live session
showed. For each file (a directory means its *.trace.json files, sorted) it
prints one line of JSON: the session layout of duplexscope score
({"kind":"session","request_metrics":[…],"session_metrics":{…},"output_tokens":n})
plus "duplexscope": the wire log's own annotations (target, frame size,
pacing lag on the client send clock, incomplete flag, warnings).

  --run     instead, print one duplex_metrics.json (run layout, "kind":"run")
            built from all the given wire logs in order
  --pretty  indent the JSON

Exit status 2 for an unreadable file or one that is not a session trace.
Unlike score, a value the reference raises on (NaN/Infinity from the server,
int("abc")) does not stop a replay: it is printed as null and a warning
naming its JSON path goes to stderr.

Examples:
  duplexscope replay out/traces/builtin__greeting.trace.json
  duplexscope replay --run out/traces`

func replayCmd(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("replay", replayUsage, stderr)
	asRun := fs.Bool("run", false, "print one run-level duplex_metrics.json")
	pretty := fs.Bool("pretty", false, "indent")
	if err := fs.Parse(args); err != nil {
		return flagError(err)
	}
	if fs.NArg() == 0 {
		return &exitError{code: 2, err: errors.New("replay: no wire log given\n\n" + replayUsage)}
	}
	var files []string
	for _, a := range fs.Args() {
		st, err := os.Stat(a)
		if err != nil {
			return &exitError{code: 2, err: fmt.Errorf("replay: %w", err)}
		}
		if !st.IsDir() {
			files = append(files, a)
			continue
		}
		m, _ := filepath.Glob(filepath.Join(a, "*.trace.json"))
		sort.Strings(m)
		if len(m) == 0 {
			return &exitError{code: 2, err: fmt.Errorf("replay: no *.trace.json in %s", a)}
		}
		files = append(files, m...)
	}
	emit := func(b []byte) error {
		if *pretty {
			var out bytes.Buffer
			if err := json.Indent(&out, b, "", "  "); err == nil {
				b = out.Bytes()
			}
		}
		_, err := stdout.Write(append(b, '\n'))
		return err
	}
	var results []metrics.SessionResult
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			return &exitError{code: 2, err: fmt.Errorf("replay: %w", err)}
		}
		t, err := trace.DecodeSession(data)
		if err != nil {
			return &exitError{code: 2, err: fmt.Errorf("replay: %s: %w", name, err)}
		}
		res := metrics.ScoreSession(t)
		if *asRun {
			results = append(results, res)
			continue
		}
		line, err := replayLine(res, t, func(msg string) { fmt.Fprintf(stderr, "replay: warning: %s: %s\n", name, msg) })
		if err != nil {
			return fmt.Errorf("replay: %s: %w", name, err)
		}
		if err := emit(line); err != nil {
			return fmt.Errorf("replay: %w", err)
		}
	}
	if *asRun {
		dm := metrics.BuildReport(results)
		clean, _ := metrics.Finite(dm.RunObject()) // a bad server value is null, not a lost run
		b, err := clean.(metrics.Object).MarshalJSON()
		if err != nil {
			return fmt.Errorf("replay: %w", err)
		}
		for _, w := range report.ValueWarnings(dm) {
			fmt.Fprintf(stderr, "replay: warning: %s\n", w.Message)
		}
		return emit(b)
	}
	return nil
}

// replayLine is the score layout of one session plus the wire log's
// "duplexscope" annotations.
// Values the reference raises on are written as null (never NaN or
// Infinity) and reported through warn, naming the field.
func replayLine(res metrics.SessionResult, t trace.Session, warn func(string)) ([]byte, error) {
	clean, paths := metrics.Finite(res.Object())
	for _, p := range paths {
		warn(p + " was not a finite number; written as null")
	}
	for _, f := range res.Faults {
		warn(f.Path + ": " + f.Reason + "; written as null")
	}
	b, err := clean.(metrics.Object).MarshalJSON()
	if err != nil {
		return nil, err
	}
	ex := bytes.TrimSpace(t.Session.Extra)
	if len(ex) == 0 || string(ex) == "null" || len(b) < 2 {
		return b, nil
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, ex); err != nil {
		return nil, fmt.Errorf("duplexscope annotations: %w", err)
	}
	out := append(b[:len(b)-1:len(b)-1], `,"duplexscope":`...)
	out = append(out, compact.Bytes()...)
	return append(out, '}'), nil
}
