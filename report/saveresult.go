package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"sort"
	"strings"
	"time"

	"github.com/duplexscope/duplexscope/metrics"
)

// FormatVLLMResult is the export format (GET …/export?format=vllm-result)
// of the `vllm bench serve --omni --save-result` file.
const FormatVLLMResult = "vllm-result"

// SaveResultKeys are the top-level keys `vllm bench serve --omni
// --save-result` writes for an OmniInteract run (without --save-detailed),
// in its order: vllm/benchmarks/serve.py main_async (setup and traffic
// keys, then the benchmark result; per-request lists dropped) and
// vllm_omni/benchmarks/patch/patch.py benchmark() (the
// MultiModalsBenchmarkMetrics result, the duplex lists and summaries,
// "omniinteract", then the selected percentile metrics). The keys in
// SaveResultConditional appear only when they apply; duplexscope's own keys
// live under one "duplexscope" object after them.
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
// for OmniInteract datasets, each percentile metric when it has samples.
var SaveResultConditional = map[string]bool{
	"duplex_request_metrics": true, "duplex_session_metrics": true,
	"duplex_stream_ttft_ms": true, "duplex_stream_ttfp_ms": true, "duplex_stream_rtf": true,
	"omniinteract": true,
	"mean_ttft_ms": true, "median_ttft_ms": true, "p99_ttft_ms": true,
	"mean_tpot_ms": true, "median_tpot_ms": true, "p99_tpot_ms": true,
}

// SaveResultOptions are the run facts a report does not hold.
type SaveResultOptions struct {
	Date         string   // "20060102-150405"; "" → from Run.StartedAt
	Backend      string   // "" → openai-realtime-duplex
	Label        string   // "" → null
	NumPrompts   int      // 0 → the number of sessions
	Metadata     []string // KEY=VALUE, after num_prompts as vLLM places them
	DurationS    float64  // 0 → Run.EndedAt − Run.StartedAt
	OmniInteract bool     // add the "omniinteract" summary
	// DuplexScope is the "duplexscope" object (nil: a default one from the report).
	DuplexScope metrics.Object
}

// SaveResult writes r as a `vllm bench serve --omni --save-result` file:
// SaveResultKeys filled where they apply to a duplex run (figures a
// realtime session does not have — input tokens, image/video generation,
// peak memory — are the reference's empty-modality values: 0, [] or null),
// then "duplexscope".
func SaveResult(r *Report, opt SaveResultOptions) ([]byte, error) {
	mr, err := metricsReport(r.Metrics.Requests, r.Metrics.Sessions)
	if err != nil {
		return nil, fmt.Errorf("export vllm-result: %w", err)
	}
	sessions, completed := sessionCounts(r)
	opt = opt.withDefaults(r, sessions)
	tot := sumRequests(r.Metrics.Requests)
	res := setupKeys(r, opt)
	res = append(res, resultKeys(r, opt.DurationS, sessions, completed, tot)...)
	res, flat := duplexKeys(res, mr.Object())
	if opt.OmniInteract {
		res = append(res, omniInteract(sessions, completed))
	}
	res = percentileKeys(res, "ttft", tot.ttfts)
	res = percentileKeys(res, "tpot", tot.tpots)
	ds := opt.DuplexScope
	if ds == nil {
		ds = metrics.Object{{Key: "report_id_source", Value: r.Run.Client}, {Key: "target_url", Value: r.Run.TargetURL},
			{Key: "sessions", Value: sessionObjects(r)}}
	}
	if flat == nil {
		flat = metrics.Object{}
	}
	ds = append(ds, metrics.Member{Key: "flat", Value: flat})
	res = append(res, metrics.Member{Key: "duplexscope", Value: ds})
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

// withDefaults fills the options left zero from the report: the date and
// duration from the run's clock, the number of prompts from its sessions.
func (opt SaveResultOptions) withDefaults(r *Report, sessions int) SaveResultOptions {
	started, _ := time.Parse(time.RFC3339, r.Run.StartedAt)
	ended, _ := time.Parse(time.RFC3339, r.Run.EndedAt)
	if opt.Date == "" {
		opt.Date = started.UTC().Format("20060102-150405")
	}
	if opt.Backend == "" {
		opt.Backend = "openai-realtime-duplex"
	}
	if opt.DurationS == 0 && !started.IsZero() && ended.After(started) {
		opt.DurationS = ended.Sub(started).Seconds()
	}
	if opt.NumPrompts == 0 {
		opt.NumPrompts = sessions
	}
	return opt
}

// sessionCounts is how many sessions the run had and how many completed:
// the report's own sessions when it lists them, else the metrics' entries,
// each counted as completed.
func sessionCounts(r *Report) (sessions, completed int) {
	if len(r.Sessions) == 0 {
		return len(r.Metrics.Sessions), len(r.Metrics.Sessions)
	}
	for _, s := range r.Sessions {
		if s.Complete {
			completed++
		}
	}
	return len(r.Sessions), completed
}

// requestTotals are the sums and samples over the rows that vLLM's
// result derives from its per-request list.
type requestTotals struct {
	outTokens    *big.Int // Python ints: exact at any size
	audioS       float64
	ttfts, tpots []float64
}

// sumRequests totals the rows; a row without a value adds nothing.
func sumRequests(rows []Row) requestTotals {
	t := requestTotals{outTokens: new(big.Int)}
	for _, row := range rows {
		if row.Stage0 != nil {
			if n, ok := new(big.Int).SetString(row.Stage0.OutputTokenCount.String(), 10); ok {
				t.outTokens.Add(t.outTokens, n)
			}
		}
		if row.AudioDurationMs != nil {
			t.audioS += *row.AudioDurationMs / 1000
		}
		if row.TTFTMs != nil {
			t.ttfts = append(t.ttfts, *row.TTFTMs)
		}
		if row.TPOTMs != nil {
			t.tpots = append(t.tpots, *row.TPOTMs)
		}
	}
	return t
}

// setupKeys are serve.py's setup keys, with the --metadata pairs after
// num_prompts as vLLM places them.
func setupKeys(r *Report, opt SaveResultOptions) metrics.Object {
	var label any
	if opt.Label != "" {
		label = opt.Label
	}
	res := metrics.Object{
		{Key: "date", Value: opt.Date},
		{Key: "endpoint_type", Value: opt.Backend},
		{Key: "backend", Value: opt.Backend},
		{Key: "label", Value: label},
		{Key: "model_id", Value: r.Run.Model},
		{Key: "tokenizer_id", Value: r.Run.Model},
		{Key: "num_prompts", Value: opt.NumPrompts},
	}
	for _, m := range opt.Metadata {
		k, v, _ := strings.Cut(m, "=")
		res = append(res, metrics.Member{Key: strings.TrimSpace(k), Value: strings.TrimSpace(v)})
	}
	return res
}

// resultKeys are the traffic keys and the benchmark result over dur
// seconds (throughputs are 0 without a duration).
func resultKeys(r *Report, dur float64, sessions, completed int, t requestTotals) metrics.Object {
	per := func(x float64) float64 {
		if dur <= 0 {
			return 0
		}
		return x / dur
	}
	conc := max(r.Run.Concurrency, 1)
	return metrics.Object{
		{Key: "request_rate", Value: "inf"},
		{Key: "burstiness", Value: 1.0},
		{Key: "max_concurrency", Value: conc},
		{Key: "duration", Value: dur},
		{Key: "completed", Value: completed},
		{Key: "failed", Value: sessions - completed},
		{Key: "total_input_tokens", Value: 0},
		{Key: "total_output_tokens", Value: tokenTotal(t.outTokens)},
		{Key: "request_throughput", Value: per(float64(completed))},
		{Key: "request_goodput", Value: nil},
		{Key: "output_throughput", Value: per(bigFloat(t.outTokens))},
		{Key: "total_token_throughput", Value: per(bigFloat(t.outTokens))},
		{Key: "total_audio_duration_s", Value: t.audioS},
		{Key: "total_audio_frames", Value: int(math.Round(t.audioS * 24000))},
		{Key: "audio_throughput", Value: per(t.audioS)},
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
		{Key: "max_concurrent_requests", Value: min(conc, sessions)},
		{Key: "rtfx", Value: 0.0},
	}
}

// duplexKeys appends the metrics report's duplex lists (when not empty)
// and stream summaries to res; the rest, the pooled per-response keys
// that vLLM's file does not have, is returned as flat for "duplexscope".
func duplexKeys(res, report metrics.Object) (out, flat metrics.Object) {
	for _, m := range report {
		switch {
		case m.Key == "duplex_request_metrics" || m.Key == "duplex_session_metrics":
			if len(m.Value.([]any)) > 0 {
				res = append(res, m)
			}
		case strings.HasPrefix(m.Key, "duplex_stream_"):
			res = append(res, m)
		default: // the pooled per-response keys: not in vLLM's file, kept under duplexscope
			flat = append(flat, m)
		}
	}
	return res, flat
}

// omniInteract is the reference's OmniInteract summary of the sessions
// (none counted eligible for the official evaluation).
func omniInteract(sessions, completed int) metrics.Member {
	return metrics.Member{Key: "omniinteract", Value: metrics.Object{
		{Key: "total", Value: sessions},
		{Key: "success", Value: completed},
		{Key: "failed", Value: sessions - completed},
		{Key: "eligible_for_official_eval", Value: 0},
		{Key: "successful_but_ineligible", Value: completed},
		{Key: "audio_clipped_bytes", Value: 0},
		{Key: "artifacts_complete", Value: false},
	}}
}

// percentileKeys adds vLLM's mean_/median_/p99_<name>_ms over vals (none
// when there are no samples, as the reference skips a metric without them).
func percentileKeys(o metrics.Object, name string, vals []float64) metrics.Object {
	if len(vals) == 0 {
		return o
	}
	vals = append([]float64(nil), vals...)
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

// sessionObjects lists the report's sessions for the duplexscope object.
func sessionObjects(r *Report) []any {
	out := make([]any, 0, len(r.Sessions))
	for _, s := range r.Sessions {
		out = append(out, s.SaveResultObject(nil, nil))
	}
	return out
}

// SaveResultObject is e as an entry of the save-result file's
// duplexscope.sessions: its identity and outcome, video_frames_sent and
// wire_log, with a writer's own keys before and after video_frames_sent
// (`duplexscope run` adds its input chunks and pacing there).
func (e SessionExtra) SaveResultObject(before, after metrics.Object) metrics.Object {
	o := make(metrics.Object, 0, 8+len(before)+len(after))
	o = append(o,
		metrics.Member{Key: "session_id", Value: e.SessionID},
		metrics.Member{Key: "server_session_id", Value: e.ServerSessionID},
		metrics.Member{Key: "sample_id", Value: e.SampleID},
		metrics.Member{Key: "split", Value: e.Split},
		metrics.Member{Key: "complete", Value: e.Complete},
		metrics.Member{Key: "error", Value: e.Error})
	o = append(append(o, before...), metrics.Member{Key: "video_frames_sent", Value: e.VideoFramesSent})
	return append(append(o, after...), metrics.Member{Key: "wire_log", Value: e.WireLog})
}

// VLLMResult is the export format=vllm-result: SaveResult of the report
// (the "omniinteract" summary when its sessions carry OmniInteract ids).
// For a report imported from a --save-result file the file's own values
// win for every key it had, and its other keys follow, so an import
// exports back what was imported.
func VLLMResult(r *Report) ([]byte, error) {
	opt := SaveResultOptions{}
	for _, s := range r.Sessions {
		opt.OmniInteract = opt.OmniInteract || strings.HasPrefix(s.SessionID, "omniinteract:")
	}
	for _, s := range r.Metrics.Sessions {
		opt.OmniInteract = opt.OmniInteract || (s.SessionID != nil && strings.HasPrefix(*s.SessionID, "omniinteract:"))
	}
	b, err := SaveResult(r, opt)
	if err != nil || r.Imported == nil || r.Imported.Format != FormatSaveResult || len(r.Imported.Extra) == 0 {
		return b, err
	}
	keys, vals, err := orderedTop(b)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for i, k := range keys {
		seen[k] = true
		if v, ok := r.Imported.Extra[k]; ok {
			vals[i] = v
		}
	}
	var extra []string
	for k := range r.Imported.Extra {
		if !seen[k] {
			extra = append(extra, k)
		}
	}
	sort.Strings(extra)
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, k := range append(keys, extra...) {
		if i > 0 {
			buf.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		buf.Write(kb)
		buf.WriteByte(':')
		if i < len(keys) {
			buf.Write(vals[i])
		} else {
			buf.Write(r.Imported.Extra[k])
		}
	}
	buf.WriteByte('}')
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, buf.Bytes(), "", "  "); err != nil {
		return nil, err
	}
	return append(pretty.Bytes(), '\n'), nil
}

// orderedTop splits a JSON object into its keys and raw values, in order.
func orderedTop(b []byte) ([]string, []json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, nil, fmt.Errorf("not a JSON object")
	}
	var keys []string
	var vals []json.RawMessage
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, nil, err
		}
		keys, vals = append(keys, tok.(string)), append(vals, v)
	}
	return keys, vals, nil
}

// bigFloat is an exact token count as a float for throughputs.
func bigFloat(n *big.Int) float64 {
	f, _ := new(big.Float).SetInt(n).Float64()
	return f
}

// tokenTotal is n as an int64 when it fits (always, for real runs), else
// its nearest float: the metrics writer has no arbitrary-size literal here.
func tokenTotal(n *big.Int) any {
	if n.IsInt64() {
		return n.Int64()
	}
	return bigFloat(n)
}
