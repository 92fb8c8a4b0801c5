//go:build !js

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/duplexscope/duplexscope/dataset"
	"github.com/duplexscope/duplexscope/metrics"
	"github.com/duplexscope/duplexscope/report"
	"github.com/duplexscope/duplexscope/session"
)

// SaveResultKeys are the top-level keys `vllm bench serve --omni
// --save-result` writes for an OmniInteract run (without --save-detailed),
// in its order: vllm/benchmarks/serve.py main_async (setup, traffic, then
// the benchmark result) and vllm_omni/benchmarks/patch/patch.py benchmark()
// (the MultiModalsBenchmarkMetrics result, the duplex lists and summaries,
// "omniinteract", then the selected percentile metrics). Keys marked
// conditional there are in SaveResultConditional. duplexscope's own keys
// live under "duplexscope".
var SaveResultKeys = []string{
	"date", "endpoint_type", "backend", "label", "model_id", "tokenizer_id", "num_prompts",
	"request_rate", "burstiness", "max_concurrency",
	"duration", "completed", "failed", "total_input_tokens", "total_output_tokens",
	"request_throughput", "request_goodput", "output_throughput", "total_token_throughput",
	"total_audio_duration_s", "total_audio_frames", "audio_throughput",
	"total_images", "image_throughput", "average_pixels_per_image", "mean_denoise_step_latency_ms",
	"total_video_duration_s", "total_video_frames", "video_throughput",
	"mean_video_rtf", "median_video_rtf", "percentiles_video_rtf",
	"mean_video_generation_ms", "median_video_generation_ms", "percentiles_video_generation_ms",
	"mean_peak_memory_mb", "median_peak_memory_mb", "percentiles_peak_memory_mb",
	"max_output_tokens_per_s", "max_concurrent_requests", "rtfx",
	"duplex_request_metrics", "duplex_session_metrics",
	"duplex_stream_ttft_ms", "duplex_stream_ttfp_ms", "duplex_stream_rtf",
	"omniinteract",
	"mean_ttft_ms", "median_ttft_ms", "p99_ttft_ms",
	"mean_tpot_ms", "median_tpot_ms", "p99_tpot_ms",
}

// SaveResultConditional are the keys the reference writes only when they
// have values: the duplex lists when a session produced rows or an entry,
// each duplex_stream_* summary when a session has the value, "omniinteract"
// for OmniInteract datasets, the percentile metrics when samples exist.
var SaveResultConditional = map[string]bool{
	"duplex_request_metrics": true, "duplex_session_metrics": true,
	"duplex_stream_ttft_ms": true, "duplex_stream_ttfp_ms": true, "duplex_stream_rtf": true,
	"omniinteract": true,
	"mean_ttft_ms": true, "median_ttft_ms": true, "p99_ttft_ms": true,
	"mean_tpot_ms": true, "median_tpot_ms": true, "p99_tpot_ms": true,
}

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
	name := o.vllm.ResultFilename
	if name == "" {
		label := o.vllm.Label
		if label == "" {
			label = o.vllm.Backend
		}
		base := o.Model[strings.LastIndex(o.Model, "/")+1:]
		name = fmt.Sprintf("%s-%sqps-concurrency%d-%s-%s.json", label, o.vllm.RequestRate, o.Concurrency, base, date)
	}
	if o.vllm.ResultDir != "" {
		name = filepath.Join(o.vllm.ResultDir, name)
	}
	return name
}

// writeSaveResult writes the --save-result file and returns its path.
func writeSaveResult(o *runOptions, dm metrics.Report, rep *report.Report, sum *runSummary, started time.Time) (string, error) {
	date := started.Format("20060102-150405")
	b, err := buildSaveResult(o, dm, rep, sum, started, time.Since(started), loadRunSessions(o, rep), date)
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

func summaryKeys(o metrics.Object, name string, vals []float64) metrics.Object {
	if len(vals) == 0 {
		return o
	}
	sort.Float64s(vals)
	var s float64
	for _, v := range vals {
		s += v
	}
	return append(o,
		metrics.Member{Key: "mean_" + name + "_ms", Value: s / float64(len(vals))},
		metrics.Member{Key: "median_" + name + "_ms", Value: metrics.Percentile(vals, 0.5)},
		metrics.Member{Key: "p99_" + name + "_ms", Value: metrics.Percentile(vals, 0.99)})
}

// buildSaveResult fills the reference's keys where they apply to a duplex
// run; text-generation and image/video-generation figures that a realtime
// session does not have are written as the reference writes an empty
// modality (0, [] or null). wall is the benchmark duration.
func buildSaveResult(o *runOptions, dm metrics.Report, rep *report.Report, sum *runSummary, started time.Time, wall time.Duration, ss []runSession, date string) ([]byte, error) {
	dur := wall.Seconds()
	completed := sum.Ran - len(sum.Failed) + sum.Skipped
	var outTokens, audioFrames int
	var audioS float64
	var ttfts, tpots []float64
	for _, s := range ss {
		outTokens += s.res.OutputTokens
		for _, r := range s.res.Rows {
			if r.Raw == nil {
				continue
			}
			audioS += r.Raw.AudioDurationMs / 1000
			if r.Raw.TTFTMs != nil {
				ttfts = append(ttfts, *r.Raw.TTFTMs)
			}
			if r.Raw.TPOTMs != nil {
				tpots = append(tpots, *r.Raw.TPOTMs)
			}
		}
	}
	audioFrames = int(math.Round(audioS * 24000))
	per := func(x float64) float64 {
		if dur <= 0 {
			return 0
		}
		return x / dur
	}
	var label any
	if o.vllm.Label != "" {
		label = o.vllm.Label
	}
	numPrompts := o.Limit
	if numPrompts == 0 {
		numPrompts = len(rep.Sessions)
	}
	res := metrics.Object{
		{Key: "date", Value: date},
		{Key: "endpoint_type", Value: o.vllm.Backend},
		{Key: "backend", Value: o.vllm.Backend},
		{Key: "label", Value: label},
		{Key: "model_id", Value: o.Model},
		{Key: "tokenizer_id", Value: o.Model},
		{Key: "num_prompts", Value: numPrompts},
	}
	for _, m := range o.vllm.Metadata {
		k, v, _ := strings.Cut(m, "=")
		res = append(res, metrics.Member{Key: strings.TrimSpace(k), Value: strings.TrimSpace(v)})
	}
	res = append(res, metrics.Object{
		{Key: "request_rate", Value: "inf"},
		{Key: "burstiness", Value: o.vllm.Burstiness},
		{Key: "max_concurrency", Value: o.Concurrency},
		{Key: "duration", Value: dur},
		{Key: "completed", Value: completed},
		{Key: "failed", Value: len(sum.Failed)},
		{Key: "total_input_tokens", Value: 0},
		{Key: "total_output_tokens", Value: outTokens},
		{Key: "request_throughput", Value: per(float64(completed))},
		{Key: "request_goodput", Value: nil},
		{Key: "output_throughput", Value: per(float64(outTokens))},
		{Key: "total_token_throughput", Value: per(float64(outTokens))},
		{Key: "total_audio_duration_s", Value: audioS},
		{Key: "total_audio_frames", Value: audioFrames},
		{Key: "audio_throughput", Value: per(audioS)},
		{Key: "total_images", Value: 0},
		{Key: "image_throughput", Value: 0.0},
		{Key: "average_pixels_per_image", Value: 0.0},
		{Key: "mean_denoise_step_latency_ms", Value: 0.0},
		{Key: "total_video_duration_s", Value: 0.0},
		{Key: "total_video_frames", Value: 0},
		{Key: "video_throughput", Value: 0.0},
		{Key: "mean_video_rtf", Value: 0.0},
		{Key: "median_video_rtf", Value: 0.0},
		{Key: "percentiles_video_rtf", Value: []any{}},
		{Key: "mean_video_generation_ms", Value: 0.0},
		{Key: "median_video_generation_ms", Value: 0.0},
		{Key: "percentiles_video_generation_ms", Value: []any{}},
		{Key: "mean_peak_memory_mb", Value: nil},
		{Key: "median_peak_memory_mb", Value: nil},
		{Key: "percentiles_peak_memory_mb", Value: []any{}},
		{Key: "max_output_tokens_per_s", Value: 0.0},
		{Key: "max_concurrent_requests", Value: min(o.Concurrency, len(rep.Sessions))},
		{Key: "rtfx", Value: 0.0},
	}...)
	for _, m := range dm.Object() {
		switch {
		case (m.Key == "duplex_request_metrics" || m.Key == "duplex_session_metrics") && len(m.Value.([]any)) == 0:
		case strings.HasPrefix(m.Key, "duplex_"):
			res = append(res, m)
		}
	}
	var oiSuccess int
	for _, s := range ss {
		if s.extra.Complete {
			oiSuccess++
		}
	}
	if o.vllm.DatasetName == dataset.KindOmniInteract {
		res = append(res, metrics.Member{Key: "omniinteract", Value: metrics.Object{
			{Key: "total", Value: len(ss)},
			{Key: "success", Value: oiSuccess},
			{Key: "failed", Value: len(ss) - oiSuccess},
			{Key: "eligible_for_official_eval", Value: 0},
			{Key: "successful_but_ineligible", Value: oiSuccess},
			{Key: "audio_clipped_bytes", Value: 0},
			{Key: "artifacts_complete", Value: false},
		}})
	}
	res = summaryKeys(res, "ttft", ttfts)
	res = summaryKeys(res, "tpot", tpots)

	mean, maxLag := pacingLag(ss)
	sessions := make([]any, 0, len(ss))
	for _, s := range ss {
		e := s.extra
		pm, px := pacingLag([]runSession{s})
		sessions = append(sessions, metrics.Object{
			{Key: "session_id", Value: e.SessionID},
			{Key: "server_session_id", Value: e.ServerSessionID},
			{Key: "sample_id", Value: e.SampleID},
			{Key: "split", Value: e.Split},
			{Key: "complete", Value: e.Complete},
			{Key: "error", Value: e.Error},
			{Key: "input_audio_chunks", Value: s.ex.Pacing.Frames},
			{Key: "video_frames_sent", Value: e.VideoFramesSent},
			{Key: "pacing_mean_lag_s", Value: pm},
			{Key: "pacing_max_lag_s", Value: px},
			{Key: "frame_ms", Value: s.ex.FrameMs},
			{Key: "chunk_period_ms", Value: s.ex.ChunkPeriodMs},
			{Key: "wire_log", Value: e.WireLog},
		})
	}
	var flat metrics.Object
	for _, m := range dm.Object() {
		if strings.HasPrefix(m.Key, "num_duplex_") || strings.HasPrefix(m.Key, "mean_duplex_") || strings.HasPrefix(m.Key, "median_duplex_") || strings.HasPrefix(m.Key, "p99_duplex_") {
			flat = append(flat, m)
		}
	}
	fails := make([]any, 0, len(sum.Failed))
	for _, f := range sum.Failed {
		fails = append(fails, metrics.Object{{Key: "sample_id", Value: f.SampleID}, {Key: "split", Value: f.Split}, {Key: "error", Value: f.Error}})
	}
	var warns []any
	for _, w := range rep.Warnings {
		warns = append(warns, metrics.Object{{Key: "code", Value: w.Code}, {Key: "message", Value: w.Message}})
	}
	if warns == nil {
		warns = []any{}
	}
	res = append(res, metrics.Member{Key: "duplexscope", Value: metrics.Object{
		{Key: "version", Value: version},
		{Key: "url", Value: o.URL},
		{Key: "dataset", Value: o.Dataset},
		{Key: "dataset_name", Value: o.vllm.DatasetName},
		{Key: "started_at", Value: started.UTC().Format(time.RFC3339)},
		{Key: "request_id_prefix", Value: o.vllm.RequestIDPrefix},
		{Key: "pacing_mean_lag_s", Value: mean},
		{Key: "pacing_max_lag_s", Value: maxLag},
		{Key: "pacing_clock", Value: "client monotonic send clock"},
		{Key: "video_frames_sent", Value: sumFrames(ss)},
		{Key: "skipped", Value: sum.Skipped},
		{Key: "sessions", Value: sessions},
		{Key: "flat", Value: flat},
		{Key: "warnings", Value: warns},
		{Key: "failures", Value: fails},
		{Key: "out", Value: o.Out},
		{Key: "notes", Value: "total_input_tokens is 0 (prompts are audio, not tokenized); image/video generation figures are the reference's empty-modality values; omniinteract.artifacts_complete is false because duplexscope writes no official-eval artifacts (wire logs are in out/traces)"},
	}})
	if flat == nil {
		// keep "flat" an object
		for i := range res {
			if res[i].Key == "duplexscope" {
				ds := res[i].Value.(metrics.Object)
				for j := range ds {
					if ds[j].Key == "flat" {
						ds[j].Value = metrics.Object{}
					}
				}
			}
		}
	}
	b, err := res.MarshalJSON()
	if err != nil {
		return nil, err
	}
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, b, "", "  "); err != nil {
		return nil, err
	}
	return append(pretty.Bytes(), '\n'), nil
}

func sumFrames(ss []runSession) int {
	n := 0
	for _, s := range ss {
		n += s.extra.VideoFramesSent
	}
	return n
}
