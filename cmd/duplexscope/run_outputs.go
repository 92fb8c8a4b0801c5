//go:build !js

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/duplexscope/duplexscope/dataset"
	"github.com/duplexscope/duplexscope/metrics"
	"github.com/duplexscope/duplexscope/report"
	"github.com/duplexscope/duplexscope/session/probe"
)

// The run's outputs: the pool's outcomes scored and written to --out
// (duplex_metrics.json, report.json, result.json, probes.json, the
// --save-result file), the summary on stdout, and the upload.

// runOutputs writes what a dataset run did.
type runOutputs struct {
	o       *runOptions
	in      *runInputs
	plan    *resumePlan
	started time.Time
	now     func() time.Time // the wall clock (tests inject one)
	stdout  io.Writer
}

// finish scores the outcomes, writes the files, prints the summary and
// uploads report.json (--upload).
func (w *runOutputs) finish(ctx context.Context, outcomes []outcome, stats *liveStats) (*runSummary, error) {
	t := tallyOutcomes(ctx, outcomes, w.plan.todo, w.in.probes)
	t.summary.Skipped = w.plan.skipped
	dm := runMetrics(w.o.Resume, w.plan, t.results)
	rep, rb, err := w.writeFiles(dm, t)
	if err != nil {
		return nil, err
	}
	if w.o.vllmSpellings.SaveResult {
		p, err := writeSaveResult(w.o, rep, t.summary, w.started)
		if err != nil {
			return nil, fmt.Errorf("run: --save-result: %w", err)
		}
		fmt.Fprintf(w.stdout, "run: result → %s\n", p)
	}
	w.printSummary(dm, rep, t.summary, stats)
	return t.summary, uploadTo(ctx, w.o, rb, t.summary, w.stdout)
}

// runTally is what the pool's outcomes add up to.
type runTally struct {
	summary *runSummary
	results []metrics.SessionResult // the metrics of every session with a wire log
	probes  []probe.Result          // every probe of every session with a wire log
}

// tallyOutcomes counts every sample of todo as run and lists each failure
// with its reason; a sample the interrupt kept from starting fails as "not
// run" with ctx's cause.
func tallyOutcomes(ctx context.Context, outcomes []outcome, todo []dataset.Sample, probes []probe.Probe) runTally {
	t := runTally{summary: &runSummary{}}
	for i, oc := range outcomes {
		if oc.trace != nil && len(probes) > 0 {
			t.probes = append(t.probes, probe.Analyze(oc.trace, probes)...)
		}
		if !oc.ran { // never started: the run was interrupted
			oc = outcome{sample: todo[i], err: fmt.Errorf("not run: %w", context.Cause(ctx))}
		}
		t.summary.Ran++
		if oc.err != nil {
			t.summary.Failed = append(t.summary.Failed, runFailure{SampleID: oc.sample.SampleID, Split: oc.sample.Split, Error: oc.err.Error()})
		}
		if oc.trace != nil {
			t.results = append(t.results, metrics.ScoreSession(*oc.trace))
		}
	}
	return t
}

// runMetrics is duplex_metrics.json: this run's results, merged by (split,
// sample_id) into the resumed run's file and the recovered wire logs'
// metrics under --resume.
func runMetrics(resume bool, plan *resumePlan, results []metrics.SessionResult) metrics.Report {
	if resume {
		return metrics.MergeReport(plan.earlier, append(plan.recovered, results...))
	}
	return metrics.BuildReport(results)
}

// writeFiles writes duplex_metrics.json, report.json, result.json and
// probes.json, and returns the report and report.json's bytes.
func (w *runOutputs) writeFiles(dm metrics.Report, t runTally) (*report.Report, []byte, error) {
	o, sum := w.o, t.summary
	if err := writeFileAtomic(filepath.Join(o.Out, fileMetrics), dm.File()); err != nil {
		return nil, nil, fmt.Errorf("run: %w", err)
	}
	rep, err := buildRunReport(o, dm, w.in.samples, sum.Failed, w.started, w.now())
	if err != nil {
		return nil, nil, err
	}
	if len(w.in.probes) > 0 {
		rep.Probes = probeReport(t.probes)
	}
	sum.Report = rep
	rb, err := report.MarshalIndent(rep)
	if err != nil {
		return nil, nil, fmt.Errorf("run: report: %w", err)
	}
	if o.Resume && len(w.plan.todo) == 0 {
		// Nothing ran: keep the earlier report.json byte for byte when it
		// says the same (only the wall-clock run times differ), so a
		// re-upload sends the same Idempotency-Key and cannot store a
		// second copy of a report whose first upload's answer was lost.
		if prev, err := os.ReadFile(filepath.Join(o.Out, fileReport)); err == nil && sameReport(prev, rb) {
			rb = prev
		}
	}
	if err := writeFileAtomic(filepath.Join(o.Out, fileReport), rb); err != nil {
		return nil, nil, fmt.Errorf("run: %w", err)
	}
	res := buildResult(o, dm, rep, sum, w.started, w.now())
	if err := writeFileAtomic(filepath.Join(o.Out, fileResult), res); err != nil {
		return nil, nil, fmt.Errorf("run: %w", err)
	}
	if len(w.in.probes) > 0 {
		b, _ := json.MarshalIndent(map[string]any{"clock": "client monotonic (receive / simulated playback)", "probes": t.probes}, "", "  ")
		if err := writeFileAtomic(filepath.Join(o.Out, "probes.json"), append(b, '\n')); err != nil {
			return nil, nil, fmt.Errorf("run: %w", err)
		}
	}
	return rep, rb, nil
}

// printSummary prints the reference's console block, the frame-tick
// warning, the run's counts, the live TTFP and the turn-taking scores.
func (w *runOutputs) printSummary(dm metrics.Report, rep *report.Report, sum *runSummary, stats *liveStats) {
	fmt.Fprint(w.stdout, dm.Console())
	for _, warning := range rep.Warnings {
		if warning.Code == report.WarnFrameTick {
			fmt.Fprintf(w.stdout, "run: warning: %s\n", warning.Message)
		}
	}
	fmt.Fprintf(w.stdout, "run: %d sessions (%d skipped, %d failed) → %s\n", sum.Ran, sum.Skipped, len(sum.Failed), w.o.Out)
	fmt.Fprintf(w.stdout, "run: %s\n", stats.describe())
	printTurnTaking(w.stdout, rep.TurnTaking)
}
