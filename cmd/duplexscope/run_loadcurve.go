//go:build !js

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	rtmetrics "runtime/metrics"
	"strconv"
	"sync"
	"time"

	"github.com/duplexscope/duplexscope/dataset"
	"github.com/duplexscope/duplexscope/metrics"
	"github.com/duplexscope/duplexscope/metrics/loadcurve"
	"github.com/duplexscope/duplexscope/report"
	"github.com/duplexscope/duplexscope/server/loadrun"
	"github.com/duplexscope/duplexscope/session"
)

// loadRunWait bounds how long a runner waits for the others at a level.
const loadRunWait = 10 * time.Minute

// runLoadCurve runs, for each level N, this runner's share of N concurrent
// paced sessions (dataset samples in turn) plus the one that joins
// --join-after later, and writes OUT/loadcurve.json and OUT/report.json.
// With --run-id and --upload the server's load run coordinates the
// runners: a barrier starts each level, and every level's sessions are
// reported for the live view.
func runLoadCurve(ctx context.Context, o *runOptions, samples []dataset.Sample, dopts *dataset.Options, refAudio []byte, levels []int, stdout io.Writer) (*runSummary, error) {
	pcms := make([][]byte, len(samples))
	for i, s := range samples {
		p, err := s.PCM(ctx, dopts)
		if err != nil {
			return nil, &exitError{code: 2, err: fmt.Errorf("run: %w", err)}
		}
		pcms[i] = p
	}
	lc := &loadCurveRun{o: o, samples: samples, pcms: pcms, refAudio: refAudio, runner: "cli", stdout: stdout, sum: &runSummary{}}
	if err := lc.joinLoadRun(ctx, levels); err != nil {
		return nil, err
	}
	runStarted := time.Now()
	for _, n := range levels {
		if lc.hub != nil {
			if _, err := lc.hub.Ready(ctx, n); err != nil {
				return lc.sum, fmt.Errorf("run: %w", err)
			}
		}
		lc.level(ctx, n)
		if ctx.Err() != nil {
			break
		}
	}
	return lc.write(ctx, levels, runStarted)
}

// loadCurveRun is a load curve under way: its inputs, the load run it
// reports to, and what its levels measured so far.
type loadCurveRun struct {
	o        *runOptions
	samples  []dataset.Sample
	pcms     [][]byte // the samples' audio, read once
	refAudio []byte
	runner   string          // this runner's name in the load run
	hub      *loadrun.Client // the server's load run (nil: none)
	stdout   io.Writer

	sum      *runSummary
	levels   []loadcurve.Level
	sessions []loadcurve.Session
	results  []metrics.SessionResult
}

// joinLoadRun creates the load run (or joins it with --run-cap) when
// --run-id and --upload name one, before the first barrier, so the creator
// can hand its capability to the other shards.
func (lc *loadCurveRun) joinLoadRun(ctx context.Context, levels []int) error {
	o := lc.o
	if o.RunID == "" || o.Upload == "" {
		return nil
	}
	lc.hub = &loadrun.Client{Base: o.Upload, RunID: o.RunID, Shard: max(1, o.ShardIndex), Shards: max(1, o.ShardCount),
		Levels: levels, Token: writeToken(), RunCap: o.RunCap, Wait: loadRunWait}
	if o.ShardCount > 0 {
		lc.runner = fmt.Sprintf("cli shard %d/%d", o.ShardIndex, o.ShardCount)
	}
	cr, err := lc.hub.Create(ctx)
	if err != nil {
		return &exitError{code: 2, err: fmt.Errorf("run: %w", err)}
	}
	if cr.Created && o.RunCap == "" && lc.hub.Shards > 1 {
		fmt.Fprintf(lc.stdout, "run: load run %s created; start the other shards with --run-cap %s (or DUPLEXSCOPE_RUN_CAP)\n", o.RunID, cr.RunCap)
	}
	return nil
}

// levelSession is what one session of a level did.
type levelSession struct {
	result *session.Result
	err    error
}

// level runs this runner's sessions of level n, summarizes them, prints the
// level's line and reports the sessions to the load run.
func (lc *loadCurveRun) level(ctx context.Context, n int) {
	o := lc.o
	slots, joins := loadcurve.Slots(n, o.ShardIndex, o.ShardCount)
	if joins {
		slots = append(slots, n) // index N is the joiner
	}
	started := time.Now()
	cpu0 := cpuSeconds()
	peak := &heapPeak{}
	stopPeak := peak.sample(200 * time.Millisecond)
	got := lc.runLevel(ctx, n, slots)
	stopPeak()
	var mine []loadcurve.Session
	for j, a := range got {
		mine = append(mine, lc.session(n, slots[j], a))
	}
	lc.sessions = append(lc.sessions, mine...)
	lv := loadcurve.Summarize(n, mine)
	lv.WallSeconds = time.Since(started).Seconds()
	lv.CPUSecondsPerSession = (cpuSeconds() - cpu0) / float64(max(1, len(slots)))
	lv.PeakHeapMiB = float64(peak.max) / (1 << 20)
	lc.levels = append(lc.levels, lv)
	fmt.Fprintln(lc.stdout, levelLine("load", lv))
	if lc.hub != nil {
		st, err := lc.hub.Report(ctx, mine)
		if err != nil {
			fmt.Fprintf(lc.stdout, "run: reporting level %d to the load run failed (the shard report still carries it): %v\n", n, err)
		} else if pooled := levelOf(st.Levels, n); pooled != nil && o.ShardCount > 1 {
			fmt.Fprintln(lc.stdout, levelLine(fmt.Sprintf("pooled (%d of %d runners so far)", len(st.Runners), st.Shards), *pooled))
		}
	}
}

// runLevel runs the sessions of level n at the given slot indices at once;
// slot n is the joiner, started --join-after later.
func (lc *loadCurveRun) runLevel(ctx context.Context, n int, slots []int) []levelSession {
	o := lc.o
	got := make([]levelSession, len(slots))
	var wg sync.WaitGroup
	for j, idx := range slots {
		wg.Go(func() {
			if idx == n {
				select {
				case <-time.After(o.JoinAfter):
				case <-ctx.Done():
					got[j].err = ctx.Err()
					return
				}
			}
			k := idx % len(lc.samples)
			cfg := &session.Config{URL: o.URL, Model: o.Model, FrameMs: o.FrameMs, RefAudio: lc.refAudio, ServerVAD: o.ServerVAD, Settle: o.Settle,
				CompletionTimeout: o.Timeout, HandshakeTimeout: o.Handshake, SampleID: fmt.Sprintf("load%d-%d-%s", n, idx, lc.samples[k].SampleID), Split: "load"}
			got[j].result, got[j].err = session.Run(ctx, cfg, lc.pcms[k])
		})
	}
	wg.Wait()
	return got
}

// session records session idx of level n: its wire log, its numbers for the
// curve, its metrics and its failure.
func (lc *loadCurveRun) session(n, idx int, a levelSession) loadcurve.Session {
	ls := loadcurve.Session{Responses: []loadcurve.Response{}}
	if a.result != nil {
		if b, err := json.Marshal(a.result.Trace); err == nil {
			_ = writeFileAtomic(filepath.Join(lc.o.Out, dirTraces, fmt.Sprintf("load-%d-%d.trace.json", n, idx)), b)
		}
		ls = loadcurve.FromTrace(*a.result.Trace, durationsMs(a.result.PacingLag))
		lc.results = append(lc.results, metrics.ScoreSession(*a.result.Trace))
	}
	ls.Level, ls.Index, ls.Joiner, ls.Runner = n, idx, idx == n, lc.runner
	if a.err != nil {
		ls.Error = a.err.Error()
		lc.sum.Failed = append(lc.sum.Failed, runFailure{SampleID: fmt.Sprintf("load%d-%d", n, idx), Split: "load", Error: a.err.Error()})
	}
	lc.sum.Ran++
	return ls
}

// write writes OUT/loadcurve.json and OUT/report.json and uploads the
// report (--upload).
func (lc *loadCurveRun) write(ctx context.Context, requested []int, runStarted time.Time) (*runSummary, error) {
	o := lc.o
	b, _ := json.MarshalIndent(map[string]any{
		"url": o.URL, "model": o.Model, "frame_ms": o.FrameMs, "dataset": o.Dataset,
		"clock":     loadcurve.Clock,
		"requested": requested,
		"levels":    lc.levels,
		"sessions":  lc.sessions,
	}, "", "  ")
	if err := writeFileAtomic(filepath.Join(o.Out, "loadcurve.json"), append(b, '\n')); err != nil {
		return nil, fmt.Errorf("run: %w", err)
	}
	// report.json: the curve plus the metrics of every load session, so a
	// load curve is archived and shared like any run (--upload).
	rep, err := loadCurveReport(o, lc.results, &report.LoadCurve{Clock: loadcurve.Clock, Requested: requested, Levels: lc.levels, Sessions: lc.sessions}, runStarted)
	if err != nil {
		return nil, err
	}
	lc.sum.Report = rep
	rb, err := report.MarshalIndent(rep)
	if err != nil {
		return nil, fmt.Errorf("run: report: %w", err)
	}
	if err := writeFileAtomic(filepath.Join(o.Out, fileReport), rb); err != nil {
		return nil, fmt.Errorf("run: %w", err)
	}
	return lc.sum, uploadTo(ctx, o, rb, lc.sum, lc.stdout)
}

// levelLine is one level's summary line.
func levelLine(what string, lv loadcurve.Level) string {
	p := func(v *float64) string {
		if v == nil {
			return "–"
		}
		return strconv.FormatFloat(*v, 'f', 1, 64)
	}
	return fmt.Sprintf("%s N=%-4d responses %-4d TTFP p50 %s p99 %s ms (%s)  join TTFP %s ms  RTF p50 %s  pacing lag p99 %.2f ms  underruns %d  failed %d  cpu %.3f s/session  heap %.1f MiB",
		what, lv.Sessions, lv.Responses, p(lv.TTFPP50Ms), p(lv.TTFPP99Ms), lv.TTFPOrigin, p(lv.JoinTTFPMs), p(lv.RTFP50), lv.PacingLagP99Ms, lv.Underruns, lv.Failed, lv.CPUSecondsPerSession, lv.PeakHeapMiB)
}

func levelOf(levels []loadcurve.Level, n int) *loadcurve.Level {
	for i := range levels {
		if levels[i].Sessions == n {
			return &levels[i]
		}
	}
	return nil
}

func durationsMs(ds []time.Duration) []float64 {
	out := make([]float64, len(ds))
	for i, d := range ds {
		out[i] = float64(d) / float64(time.Millisecond)
	}
	return out
}

// loadCurveReport builds report.json for a --load-curve run: the metrics
// of every load session plus the curve.
func loadCurveReport(o *runOptions, results []metrics.SessionResult, lc *report.LoadCurve, started time.Time) (*report.Report, error) {
	run := runInfo(o, started, time.Now())
	rep, err := report.NewLoadCurve(run, results, lc)
	if err != nil {
		return nil, fmt.Errorf("run: %w", err)
	}
	return rep, nil
}

// cpuSeconds is the process's CPU time so far as the Go runtime accounts it.
func cpuSeconds() float64 {
	s := []rtmetrics.Sample{{Name: "/cpu/classes/total:cpu-seconds"}, {Name: "/cpu/classes/idle:cpu-seconds"}}
	rtmetrics.Read(s)
	var v float64
	if s[0].Value.Kind() == rtmetrics.KindFloat64 {
		v = s[0].Value.Float64()
	}
	if s[1].Value.Kind() == rtmetrics.KindFloat64 {
		v -= s[1].Value.Float64()
	}
	return v
}

// heapPeak samples the in-use heap.
type heapPeak struct {
	mu  sync.Mutex
	max uint64
}

func (h *heapPeak) sample(every time.Duration) (stop func()) {
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			s := []rtmetrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
			rtmetrics.Read(s)
			if s[0].Value.Kind() == rtmetrics.KindUint64 {
				h.mu.Lock()
				h.max = max(h.max, s[0].Value.Uint64())
				h.mu.Unlock()
			}
			select {
			case <-t.C:
			case <-done:
				return
			}
		}
	}()
	return func() { close(done); <-finished }
}
