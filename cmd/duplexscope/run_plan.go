//go:build !js

package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/duplexscope/duplexscope/dataset"
	"github.com/duplexscope/duplexscope/metrics"
	"github.com/duplexscope/duplexscope/metrics/loadcurve"
	"github.com/duplexscope/duplexscope/session/probe"
	"github.com/duplexscope/duplexscope/session/probe/clips"
)

// The run's plan: what it reads before any session starts (inputs), and
// which samples still have to run (resume).

// runInputs are what a run reads before it starts.
type runInputs struct {
	refAudio []byte           // --ref-audio bytes (nil: none)
	dopts    *dataset.Options // how samples read their media
	samples  []dataset.Sample // this shard's samples (every shard's for a load curve)
	probes   []probe.Probe    // --probe clips (nil: none)
	levels   []int            // --load-curve levels (nil: a dataset run)
}

// loadRunInputs reads the reference voice, the dataset (this shard's
// samples), the probes and the load-curve levels. Every error is bad usage
// (exit 2): nothing has run and nothing was written.
func loadRunInputs(o *runOptions) (*runInputs, error) {
	in := &runInputs{dopts: &dataset.Options{Split: o.Split, Limit: o.Limit, MediaRoot: o.MediaRoot}}
	if o.RefAudio != "" {
		b, err := os.ReadFile(o.RefAudio)
		if err != nil {
			return nil, &exitError{code: 2, err: fmt.Errorf("run: --ref-audio: %w", err)}
		}
		in.refAudio = b
	}
	samples, err := loadSamples(o, in.dopts)
	if err != nil {
		return nil, &exitError{code: 2, err: fmt.Errorf("run: %w", err)}
	}
	if len(samples) == 0 {
		return nil, &exitError{code: 2, err: fmt.Errorf("run: dataset %s has no samples (split %q)", o.Dataset, o.Split)}
	}
	if o.ShardCount > 0 && o.LoadCurve == "" { // load-curve shards split sessions, not samples
		samples = shardSamples(samples, o.ShardIndex, o.ShardCount)
	}
	in.samples = samples
	if o.Probe != "" {
		if in.probes, err = clips.Load(o.Probe); err != nil {
			return nil, &exitError{code: 2, err: fmt.Errorf("run: --probe: %w", err)}
		}
	}
	if o.LoadCurve != "" {
		if in.levels, err = loadcurve.ParseLevels(o.LoadCurve); err != nil {
			return nil, &exitError{code: 2, err: fmt.Errorf("run: --load-curve: %w", err)}
		}
	}
	if len(in.levels) > 0 && o.ShardCount > 0 && o.Upload == "" {
		return nil, &exitError{code: 2, err: errors.New("run: --load-curve with --shard needs --upload SERVER_URL: the server starts each level on every runner at once")}
	}
	return in, nil
}

// shardSamples is shard index (1-based) of count: the samples k with
// k mod count = index-1, in order.
func shardSamples(samples []dataset.Sample, index, count int) []dataset.Sample {
	var mine []dataset.Sample
	for k, s := range samples {
		if k%count == index-1 {
			mine = append(mine, s)
		}
	}
	return mine
}

// resumePlan is what a dataset run still has to do.
type resumePlan struct {
	todo    []dataset.Sample // samples to run, in dataset order
	skipped int              // samples whose wire log in OUT/traces is complete (--resume)
	// earlier is the duplex_metrics.json of the run being resumed (nil:
	// none, or no --resume); this run's results are merged into it.
	earlier *metrics.Report
	// recovered are the metrics of skipped samples that earlier does not
	// hold (a run killed before it wrote the file), scored from their wire
	// logs so nothing is lost.
	recovered []metrics.SessionResult
}

// planResume applies --resume to samples: a sample whose wire log in
// OUT/traces is complete is skipped. Without --resume every sample runs.
func planResume(o *runOptions, samples []dataset.Sample) (*resumePlan, error) {
	p := &resumePlan{}
	if !o.Resume {
		p.todo = samples
		return p, nil
	}
	earlier, err := readEarlierMetrics(o.Out)
	if err != nil {
		return nil, err
	}
	p.earlier = earlier
	held := earlierSamples(earlier)
	for _, s := range samples {
		t, err := readTrace(filepath.Join(o.Out, dirTraces, traceName(s.Split, s.SampleID)))
		if err != nil || !traceComplete(t) {
			p.todo = append(p.todo, s)
			continue
		}
		p.skipped++
		if !held[s.Split+"\x00"+s.SampleID] {
			p.recovered = append(p.recovered, metrics.ScoreSession(*t))
		}
	}
	return p, nil
}

// readEarlierMetrics reads OUT/duplex_metrics.json for --resume: nil when
// there is none; a corrupt one is bad usage (exit 2), refused before any
// session runs so nothing is lost (the reference only failed after
// generating: docs/metrics.md#merge-on-resume).
func readEarlierMetrics(out string) (*metrics.Report, error) {
	path := filepath.Join(out, fileMetrics)
	b, err := os.ReadFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("run: --resume: %w", err)
	}
	earlier, err := metrics.ParseReport(b)
	if err != nil {
		return nil, &exitError{code: 2, err: fmt.Errorf("run: --resume: %s is not a valid duplex_metrics.json (%w); fix or remove it, or use --overwrite", path, err)}
	}
	return earlier, nil
}

// earlierSamples are the split + "\x00" + sample_id keys of the session
// entries of an earlier duplex_metrics.json (nil: none).
func earlierSamples(earlier *metrics.Report) map[string]bool {
	held := map[string]bool{}
	if earlier == nil {
		return held
	}
	for _, e := range earlier.Sessions {
		split, _ := e.Get("split")
		id, _ := e.Get("sample_id")
		splitText, splitOK := split.(string)
		idText, idOK := id.(string)
		if splitOK && idOK {
			held[splitText+"\x00"+idText] = true
		}
	}
	return held
}
