//go:build !js

package main

import (
	"context"
	"fmt"

	"github.com/duplexscope/duplexscope/dataset"
	"github.com/duplexscope/duplexscope/session"
)

// loadSamples reads the run's dataset: the OmniInteract directory layout
// for --dataset-name omniinteract, else records (Kind set from
// --dataset-name, so Omni-DuplexEval's rules apply to its records).
func loadSamples(o *runOptions, dopts *dataset.Options) ([]dataset.Sample, error) {
	dopts.Kind = o.vllmSpellings.DatasetName
	if o.vllmSpellings.DatasetName != dataset.KindOmniInteract {
		return dataset.Load(o.Dataset, dopts)
	}
	ss, err := dataset.LoadOmniInteract(o.Dataset, o.vllmSpellings.Subsets, &dataset.Options{FFmpeg: dopts.FFmpeg})
	if err != nil {
		return nil, err
	}
	var out []dataset.Sample
	for _, s := range ss {
		if dopts.Split == "" || dopts.Split == "all" || s.Split == dopts.Split {
			out = append(out, s)
		}
		if dopts.Limit > 0 && len(out) >= dopts.Limit {
			break
		}
	}
	return out, nil
}

// videoFor extracts a sample's frames and schedules them at its
// reference's boundaries: Omni-DuplexEval's unit boundaries 1030 + 1000·k ms
// for its records, OmniInteract's (k+0.5)·1000 ms for every other video.
// nil for an audio-only sample.
func videoFor(ctx context.Context, s *dataset.Sample, dopts *dataset.Options) (session.VideoSource, int, error) {
	if s.Video == "" {
		return nil, 0, nil
	}
	frames, dropped, err := s.VideoFrames(ctx, dopts)
	if err != nil {
		return nil, 0, err
	}
	b := session.OmniInteractBoundary
	if s.Kind == dataset.KindDuplexEval {
		b = session.DuplexEvalBoundary
	}
	return &session.ScheduledVideo{List: frames, Boundary: b}, dropped, nil
}

// sessionIDFor is the session id the reference writes for a sample
// (docs/metrics.md#session-ids): OmniInteract omniinteract:<subset>:<request_id>:<monotonic_ns>
// with request_id = --request-id-prefix + the request's index (vLLM's
// SampleRequest.request_id); Omni-DuplexEval the sample id. Other datasets
// keep the server's id ("").
func sessionIDFor(o *runOptions, s *dataset.Sample, index int) string {
	switch s.Kind {
	case dataset.KindOmniInteract:
		return fmt.Sprintf("omniinteract:%s:%s%d:%d", s.Split, o.vllmSpellings.RequestIDPrefix, index, monotonicNs())
	case dataset.KindDuplexEval:
		return s.SampleID
	}
	return ""
}
