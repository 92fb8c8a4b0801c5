//go:build !js

package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/duplexscope/duplexscope/dataset"
	"github.com/duplexscope/duplexscope/metrics"
	"github.com/duplexscope/duplexscope/report"
	"github.com/duplexscope/duplexscope/session"
)

// runSession is one session of the run as its wire log tells it.
type runSession struct {
	extra report.SessionExtra
	ex    session.Extra
	res   metrics.SessionResult
	ok    bool // the wire log was read
}

// loadRunSessions reads the wire logs the report's sessions name.
func loadRunSessions(o *runOptions, rep *report.Report) []runSession {
	out := make([]runSession, 0, len(rep.Sessions))
	for _, se := range rep.Sessions {
		rs := runSession{extra: se}
		if se.WireLog != "" {
			if t, err := readTrace(filepath.Join(o.Out, dirTraces, se.WireLog)); err == nil {
				_ = json.Unmarshal(t.Session.Extra, &rs.ex)
				rs.res, rs.ok = metrics.ScoreSession(*t), true
			}
		}
		out = append(out, rs)
	}
	return out
}

// pacingLag returns the run's OmniInteract pacing figures in seconds: the
// mean lag over every append of every session, and the largest lag.
func pacingLag(ss []runSession) (mean, maxLag float64) {
	var sum float64
	var n int
	for _, s := range ss {
		sum += s.ex.Pacing.MeanMs * float64(s.ex.Pacing.Frames)
		n += s.ex.Pacing.Frames
		maxLag = math.Max(maxLag, s.ex.Pacing.MaxMs)
	}
	if n > 0 {
		mean = sum / float64(n)
	}
	return mean / 1000, maxLag / 1000
}

// saveResultPath is vLLM's compute_result_filename:
// {label or backend}-{request_rate}qps-concurrency{N}-{model basename}-{date}.json,
// or --result-filename, inside --result-dir.
func saveResultPath(o *runOptions, date string) string {
	name := o.vllmSpellings.ResultFilename
	if name == "" {
		label := o.vllmSpellings.Label
		if label == "" {
			label = o.vllmSpellings.Backend
		}
		base := o.Model[strings.LastIndex(o.Model, "/")+1:]
		name = fmt.Sprintf("%s-%sqps-concurrency%d-%s-%s.json", label, o.vllmSpellings.RequestRate, o.Concurrency, base, date)
	}
	if o.vllmSpellings.ResultDir != "" {
		name = filepath.Join(o.vllmSpellings.ResultDir, name)
	}
	return name
}

// writeSaveResult writes the --save-result file and returns its path.
func writeSaveResult(o *runOptions, rep *report.Report, sum *runSummary, started time.Time) (string, error) {
	date := started.Format("20060102-150405")
	b, err := buildSaveResult(o, rep, sum, started, time.Since(started), loadRunSessions(o, rep), date)
	if err != nil {
		return "", err
	}
	path := saveResultPath(o, date)
	if dir := filepath.Dir(path); dir != "." {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", err
		}
	}
	return path, writeFileAtomic(path, b)
}

// buildSaveResult is the --save-result file: report.SaveResult of the
// run's report, with the run facts it does not hold and duplexscope's own
// keys (per-session pacing, frames, wire logs, failures) under "duplexscope".
func buildSaveResult(o *runOptions, rep *report.Report, sum *runSummary, started time.Time, wall time.Duration, ss []runSession, date string) ([]byte, error) {
	mean, maxLag := pacingLag(ss)
	sessions := make([]any, 0, len(ss))
	for _, s := range ss {
		e := s.extra
		pm, px := pacingLag([]runSession{s})
		sessions = append(sessions, e.SaveResultObject(
			metrics.Object{{Key: "input_audio_chunks", Value: s.ex.Pacing.Frames}},
			metrics.Object{
				{Key: "pacing_mean_lag_s", Value: pm},
				{Key: "pacing_max_lag_s", Value: px},
				{Key: "frame_ms", Value: s.ex.FrameMs},
				{Key: "chunk_period_ms", Value: s.ex.ChunkPeriodMs},
			}))
	}
	fails := make([]any, 0, len(sum.Failed))
	for _, f := range sum.Failed {
		fails = append(fails, metrics.Object{{Key: "sample_id", Value: f.SampleID}, {Key: "split", Value: f.Split}, {Key: "error", Value: f.Error}})
	}
	warns := []any{}
	for _, w := range rep.Warnings {
		warns = append(warns, metrics.Object{{Key: "code", Value: w.Code}, {Key: "message", Value: w.Message}})
	}
	ds := metrics.Object{
		{Key: "version", Value: version},
		{Key: "url", Value: o.URL},
		{Key: "dataset", Value: o.Dataset},
		{Key: "dataset_name", Value: o.vllmSpellings.DatasetName},
		{Key: "started_at", Value: started.UTC().Format(time.RFC3339)},
		{Key: "request_id_prefix", Value: o.vllmSpellings.RequestIDPrefix},
		{Key: "pacing_mean_lag_s", Value: mean},
		{Key: "pacing_max_lag_s", Value: maxLag},
		{Key: "pacing_clock", Value: "client monotonic send clock"},
		{Key: "video_frames_sent", Value: sumFrames(ss)},
		{Key: "skipped", Value: sum.Skipped},
		{Key: "sessions", Value: sessions},
		{Key: "warnings", Value: warns},
		{Key: "failures", Value: fails},
		{Key: "out", Value: o.Out},
		{Key: "notes", Value: "total_input_tokens is 0 (the prompts are audio, not tokenized); image/video generation and peak memory are the reference's empty-modality values; omniinteract.artifacts_complete is false because duplexscope writes no official-eval artifacts (its wire logs are in out/traces)"},
	}
	numPrompts := o.Limit
	if numPrompts == 0 {
		numPrompts = len(rep.Sessions)
	}
	return report.SaveResult(rep, report.SaveResultOptions{
		Date: date, Backend: o.vllmSpellings.Backend, Label: o.vllmSpellings.Label, NumPrompts: numPrompts, Metadata: o.vllmSpellings.Metadata,
		DurationS: wall.Seconds(), OmniInteract: o.vllmSpellings.DatasetName == dataset.KindOmniInteract, DuplexScope: ds,
	})
}

func sumFrames(ss []runSession) int {
	n := 0
	for _, s := range ss {
		n += s.extra.VideoFramesSent
	}
	return n
}
