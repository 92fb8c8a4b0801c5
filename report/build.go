package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
)

// ParseMetrics decodes a duplex_metrics.json payload (or any object holding
// duplex_request_metrics / duplex_session_metrics with vLLM keys, such as the
// metrics package's run output) into Metrics. Rows keep their exact JSON.
// The run-level keys are recomputed from the rows and session entries.
func ParseMetrics(b []byte) (Metrics, error) {
	var in struct {
		Requests []Row          `json:"duplex_request_metrics"`
		Sessions []SessionEntry `json:"duplex_session_metrics"`
	}
	if err := json.Unmarshal(b, &in); err != nil {
		return Metrics{}, fmt.Errorf("parse duplex metrics: %w", jsonError(err))
	}
	m := Metrics{Requests: in.Requests, Sessions: in.Sessions}
	if m.Requests == nil {
		m.Requests = []Row{}
	}
	if m.Sessions == nil {
		m.Sessions = []SessionEntry{}
	}
	m.RunKeys = ComputeRunKeys(m.Requests, m.Sessions)
	return m, nil
}

// New builds a report for run from a duplex_metrics.json payload (the metrics
// package's run output marshalled to JSON). The caller adds extras,
// warnings and attachments, then calls Finish.
func New(run Run, duplexMetrics []byte) (*Report, error) {
	m, err := ParseMetrics(duplexMetrics)
	if err != nil {
		return nil, err
	}
	return &Report{Schema: Schema, Complete: true, Run: run, Metrics: m}, nil
}

// Finish recomputes the run-level keys and adds the warnings that follow
// from the rows themselves (server metrics missing, RTF ≥ 1, negative
// latency, incomplete sessions), each code once per report, without
// duplicating warnings already present.
func Finish(r *Report) {
	r.Metrics.RunKeys = ComputeRunKeys(r.Metrics.Requests, r.Metrics.Sessions)
	r.SpeechEndToHeard = speechEndSummary(r)
	have := map[string]bool{}
	for _, w := range r.Warnings {
		have[w.Code] = true
	}
	add := func(code, msg string) {
		if !have[code] {
			have[code] = true
			r.Warnings = append(r.Warnings, Warning{Code: code, Message: msg})
		}
	}
	var client, slow, neg int
	for _, row := range r.Metrics.Requests {
		if row.Source == SourceClient {
			client++
		}
		if row.RTF != nil && *row.RTF >= 1 {
			slow++
		}
		if row.TTFTMs != nil && *row.TTFTMs < 0 {
			neg++
		}
	}
	if client > 0 {
		add(WarnServerMetricsMissing, fmt.Sprintf("%d of %d responses had no server response_request_metrics; their TTFT/TTFP come from the client receive clock.", client, len(r.Metrics.Requests)))
	}
	if slow > 0 {
		add(WarnRTF, fmt.Sprintf("%d of %d responses had RTF ≥ 1 (audio generated slower than real time).", slow, len(r.Metrics.Requests)))
	}
	if neg > 0 {
		add(WarnNegativeLatency, fmt.Sprintf("%d responses had a negative TTFT (text received before response.created).", neg))
	}
	incomplete := 0
	for _, s := range r.Sessions {
		if !s.Complete {
			incomplete++
		}
	}
	if incomplete > 0 {
		r.Complete = false
		add(WarnIncompleteSession, fmt.Sprintf("%d of %d sessions ended early; metrics cover what arrived.", incomplete, len(r.Sessions)))
	}
}

// ErrUnknownImport is returned by Import for JSON that is neither a
// duplex_metrics.json nor a --save-result file.
var ErrUnknownImport = errors.New("not a vLLM duplex_metrics.json (no duplex_request_metrics key) nor a --save-result JSON (no duplex_session_metrics key)")

// ImportOptions fill in what vLLM files do not record.
type ImportOptions struct {
	Model     string // else the file's model_id / model, else "unknown"
	TargetURL string
	Dataset   string
	Version   string // duplexscope version doing the import
}

// Import converts a vLLM-Omni file, unchanged, into a Report. The format is
// told by its keys: duplex_request_metrics → duplex_metrics.json
// (Omni-DuplexEval); only duplex_session_metrics → a `vllm bench serve
// --save-result` JSON (OmniInteract), whose other keys are kept in
// Imported.Extra.
func Import(b []byte, lim Limits, opt ImportOptions) (*Report, error) {
	b, valueWarns := importNonFinite(b, lim)
	if err := checkJSON(b, lim, importExempt); err != nil {
		return nil, err
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(b, &top); err != nil || top == nil {
		return nil, invalid("", "top level must be a JSON object")
	}
	format := ""
	switch {
	case top["duplex_session_metrics"] != nil && (top["backend"] != nil || top["endpoint_type"] != nil):
		// vllm bench serve --save-result: its setup keys mark it, rows or not
		format = FormatSaveResult
	case top["duplex_request_metrics"] != nil:
		format = FormatDuplexMetrics
	case top["duplex_session_metrics"] != nil:
		format = FormatSaveResult
	default:
		return nil, invalid("", "%v", ErrUnknownImport)
	}
	for _, k := range []string{"duplex_request_metrics", "duplex_session_metrics"} {
		if v, ok := top[k]; ok && !bytes.Equal(bytes.TrimSpace(v), []byte("null")) && !bytes.HasPrefix(bytes.TrimSpace(v), []byte("[")) {
			return nil, invalid(k, "must be a JSON list")
		}
	}
	m, err := ParseMetrics(b)
	if err != nil {
		return nil, err
	}
	model := opt.Model
	if model == "" {
		for _, k := range []string{"model_id", "model"} {
			var s string
			if json.Unmarshal(top[k], &s) == nil && s != "" {
				model = s
				break
			}
		}
	}
	if model == "" {
		model = "unknown"
	}
	dataset := opt.Dataset
	if dataset == "" {
		dataset = "imported"
	}
	imp := &Imported{Format: format}
	if format == FormatSaveResult {
		for k, v := range top {
			if k == "duplex_session_metrics" || k == "duplex_request_metrics" || isRunKey(k) {
				continue
			}
			if imp.Extra == nil {
				imp.Extra = map[string]json.RawMessage{}
			}
			imp.Extra[k] = v
		}
	}
	r := &Report{
		Schema:   Schema,
		Complete: true,
		Run: Run{
			TargetURL: opt.TargetURL,
			Model:     model,
			Version:   opt.Version,
			Client:    ClientImport,
			Source:    Source{Kind: SourceImport, Dataset: dataset},
		},
		Metrics:  m,
		Imported: imp,
		Warnings: valueWarns,
	}
	Finish(r)
	if err := Validate(r, lim); err != nil {
		return nil, err
	}
	return r, nil
}

func isRunKey(k string) bool {
	switch k {
	case "duplex_stream_ttft_ms", "duplex_stream_ttfp_ms", "duplex_stream_rtf":
		return true
	}
	for _, x := range []string{"response_ttft_ms", "response_ttfp_ms", "client_ttft_ms", "client_ttfp_ms"} {
		if k == "num_duplex_"+x+"_samples" || k == "mean_duplex_"+x || k == "median_duplex_"+x || k == "p99_duplex_"+x {
			return true
		}
	}
	return false
}

// MergeShards merges the shards of one run (all with the same Run.RunID)
// into one report: rows and session entries concatenated in shard order,
// extras, warnings and attachments kept, and the run-level keys recomputed
// from the pooled per-response rows (never averaged averages). The merged
// report is Complete only when every shard 1…n is present and complete.
// It returns the merged report and the shard indexes received.
func MergeShards(shards []*Report) (*Report, []int, error) {
	if len(shards) == 0 {
		return nil, nil, errors.New("merge shards: no shards")
	}
	sorted := append([]*Report(nil), shards...)
	sort.SliceStable(sorted, func(i, j int) bool { return shardIndex(sorted[i]) < shardIndex(sorted[j]) })
	first := sorted[0]
	out := &Report{Schema: Schema, Run: first.Run, Complete: true}
	out.Run.Shard = nil
	count := 0
	if first.Run.Shard != nil {
		count = first.Run.Shard.Count
	}
	var received []int
	seen := map[int]bool{}
	for _, s := range sorted {
		if s.Run.RunID != first.Run.RunID {
			return nil, nil, fmt.Errorf("merge shards: run ids differ (%q, %q)", first.Run.RunID, s.Run.RunID)
		}
		idx := shardIndex(s)
		if s.Run.Shard != nil && s.Run.Shard.Count != count {
			return nil, nil, fmt.Errorf("merge shards: shard %d says %d shards, shard %d says %d", idx, s.Run.Shard.Count, shardIndex(first), count)
		}
		if seen[idx] {
			continue // a re-upload of the same shard: the first one stored wins
		}
		seen[idx] = true
		received = append(received, idx)
		out.Metrics.Requests = append(out.Metrics.Requests, s.Metrics.Requests...)
		out.Metrics.Sessions = append(out.Metrics.Sessions, s.Metrics.Sessions...)
		out.Responses = append(out.Responses, s.Responses...)
		out.Sessions = append(out.Sessions, s.Sessions...)
		out.Warnings = append(out.Warnings, s.Warnings...)
		out.Attachments = append(out.Attachments, s.Attachments...)
		mergeBeyond(out, s)
		out.Run.Concurrency += s.Run.Concurrency
		if s.Run.StartedAt != "" && (out.Run.StartedAt == "" || s.Run.StartedAt < out.Run.StartedAt) {
			out.Run.StartedAt = s.Run.StartedAt
		}
		if s.Run.EndedAt > out.Run.EndedAt {
			out.Run.EndedAt = s.Run.EndedAt
		}
		if !s.Complete {
			out.Complete = false
		}
	}
	if count > 0 && len(received) < count {
		out.Complete = false
	}
	if out.Metrics.Requests == nil {
		out.Metrics.Requests = []Row{}
	}
	if out.Metrics.Sessions == nil {
		out.Metrics.Sessions = []SessionEntry{}
	}
	out.Metrics.RunKeys = ComputeRunKeys(out.Metrics.Requests, out.Metrics.Sessions)
	return out, received, nil
}

func shardIndex(r *Report) int {
	if r.Run.Shard == nil {
		return 1
	}
	return r.Run.Shard.Index
}
