//go:build !js

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sync"

	"github.com/duplexscope/duplexscope/dataset"
	"github.com/duplexscope/duplexscope/session"
	"github.com/duplexscope/duplexscope/session/probe"
	"github.com/duplexscope/duplexscope/trace"
)

// The run's pool: --concurrency workers, each running one sample's session
// at a time and writing its wire log.

// outcome is what one session of the pool did.
type outcome struct {
	sample dataset.Sample
	trace  *trace.Session // the wire log (nil: the session never opened)
	err    error
	ran    bool // the pool started it (false: the run was interrupted first)
}

// runPool runs do(i) for every i in 0…n-1, at most workers at a time,
// calling done after each, and returns the outcomes in index order. Once
// ctx ends no further index starts: those outcomes keep ran false. (The
// check after a slot frees makes that exact: a session that finishes after
// an interrupt never hands its slot to a new one.)
func runPool(ctx context.Context, n, workers int, do func(i int) outcome, done func()) []outcome {
	outcomes := make([]outcome, n)
	slots := make(chan struct{}, workers)
	var wg sync.WaitGroup
	for i := range n {
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		wg.Go(func() {
			oc := do(i)
			oc.ran = true
			outcomes[i] = oc
			done()
			<-slots
		})
	}
	wg.Wait()
	return outcomes
}

// sessionRunner runs one sample's session for the pool.
type sessionRunner struct {
	o        *runOptions
	in       *runInputs
	frameMs  int            // the append size (0: the session applies the server's tick)
	reqIndex map[string]int // a sample's index in the dataset: the reference's request index
	stats    *liveStats
	progress *sessionProgress
}

func newSessionRunner(o *runOptions, in *runInputs, stats *liveStats, progress *sessionProgress) *sessionRunner {
	r := &sessionRunner{o: o, in: in, frameMs: o.FrameMs, reqIndex: map[string]int{}, stats: stats, progress: progress}
	for k, s := range in.samples {
		r.reqIndex[s.Key()] = k
	}
	if !o.FrameGiven {
		r.frameMs = 0 // the session applies the server's tick (session.Config.FrameMs)
	}
	return r
}

// run runs sample s's session and writes its wire log to OUT/traces.
func (r *sessionRunner) run(ctx context.Context, s dataset.Sample) outcome {
	oc := outcome{sample: s}
	pcm, video, err := r.input(ctx, &s)
	if err != nil {
		oc.err = err
	} else {
		var res *session.Result
		res, oc.err = session.Run(ctx, r.config(&s, video), pcm)
		if res != nil {
			oc.trace = res.Trace
		}
	}
	if oc.trace != nil {
		if err := r.writeTrace(&s, oc.trace); err != nil && oc.err == nil {
			oc.err = fmt.Errorf("write trace: %w", err)
		}
	}
	return oc
}

// input is a sample's audio (with the probes injected) and its video.
func (r *sessionRunner) input(ctx context.Context, s *dataset.Sample) ([]byte, session.VideoSource, error) {
	pcm, err := s.PCM(ctx, r.in.dopts)
	if err != nil {
		return nil, nil, err
	}
	if len(r.in.probes) > 0 {
		pcm = probe.Inject(pcm, r.in.probes)
	}
	video, dropped, err := videoFor(ctx, s, r.in.dopts)
	if dropped > 0 {
		r.progress.printf("run: %s/%s: %d video frames over %d KiB were dropped\n", s.Split, s.SampleID, dropped, dataset.MaxFrameBytes>>10)
	}
	return pcm, video, err
}

// config is the session configuration for sample s.
func (r *sessionRunner) config(s *dataset.Sample, video session.VideoSource) *session.Config {
	o := r.o
	live := &liveObserver{stats: r.stats, onResp: r.progress.describe, seen: map[string]bool{}}
	return &session.Config{
		URL: o.URL, Model: o.Model, FrameMs: r.frameMs, RefAudio: r.in.refAudio, ServerVAD: o.ServerVAD,
		Settle: o.Settle, CompletionTimeout: o.Timeout, HandshakeTimeout: o.Handshake,
		SampleID: s.SampleID, Split: s.Split, Observers: []session.Observer{live},
		Video: video, KeepVideo: o.vllmSpellings.KeepVideo, SessionID: sessionIDFor(o, s, r.reqIndex[s.Key()]),
	}
}

// writeTrace writes a session's wire log to OUT/traces/NAME.
func (r *sessionRunner) writeTrace(s *dataset.Sample, t *trace.Session) error {
	b, err := json.Marshal(t)
	if err != nil {
		return err
	}
	return writeFileAtomic(filepath.Join(r.o.Out, dirTraces, traceName(s.Split, s.SampleID)), b)
}
