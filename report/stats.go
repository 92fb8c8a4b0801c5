package report

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/duplexscope/duplexscope/metrics"
)

// ComputeRunKeys recomputes the run-level keys (docs/metrics.md#run-level) from rows
// and session entries with the metrics package's run builder: every
// response counts once, pooled across sessions and shards (never a mean of
// means).
func ComputeRunKeys(rows []Row, sessions []SessionEntry) RunKeys {
	mr, err := metricsReport(rows, sessions)
	if err != nil {
		return RunKeys{}
	}
	return runKeysOf(*mr)
}

// metricsReport hands the lists to metrics.NewReport, which recomputes the
// run-level keys from them: the objects FromMetrics kept, else each
// entry's JSON read as metrics.ParseReport reads a file.
func metricsReport(rows []Row, sessions []SessionEntry) (*metrics.Report, error) {
	req, ses := make([]metrics.Object, len(rows)), make([]metrics.Object, len(sessions))
	var err error
	for i := range rows {
		if req[i], err = metricsObject(rows[i].obj, rows[i], "duplex_request_metrics"); err != nil {
			return nil, err
		}
	}
	for i := range sessions {
		if ses[i], err = metricsObject(sessions[i].obj, sessions[i], "duplex_session_metrics"); err != nil {
			return nil, err
		}
	}
	mr := metrics.NewReport(req, ses)
	return &mr, nil
}

// metricsObject is an entry as the metrics package reads it.
func metricsObject(kept metrics.Object, entry json.Marshaler, list string) (metrics.Object, error) {
	if kept != nil {
		return kept, nil
	}
	b, err := json.Marshal(entry)
	if err != nil {
		return nil, err
	}
	v, err := metrics.ParseValue(b)
	if err != nil {
		return nil, fmt.Errorf("duplex_metrics.json: %w", err)
	}
	o, ok := v.(metrics.Object)
	if !ok {
		return nil, fmt.Errorf("%s entries must be JSON objects", list)
	}
	return o, nil
}

// Values returns the finite values of one row metric ("ttft_ms", "ttfp_ms",
// "rtf", "tpot_ms", "client_ttft_ms", "client_ttfp_ms",
// "audio_generation_ms", "audio_duration_ms") in row order.
func Values(rows []Row, metric string) []float64 {
	out := make([]float64, 0, len(rows))
	for _, r := range rows {
		if v := r.Metric(metric); v != nil && !math.IsNaN(*v) && !math.IsInf(*v, 0) {
			out = append(out, *v)
		}
	}
	return out
}

// Metric returns the named row metric or nil.
func (r Row) Metric(name string) *float64 {
	switch name {
	case "ttft_ms":
		return r.TTFTMs
	case "ttfp_ms":
		return r.TTFPMs
	case "rtf":
		return r.RTF
	case "tpot_ms":
		return r.TPOTMs
	case "client_ttft_ms":
		return r.ClientTTFTMs
	case "client_ttfp_ms":
		return r.ClientTTFPMs
	case "audio_generation_ms":
		return r.AudioGenerationMs
	case "audio_duration_ms":
		return r.AudioDurationMs
	}
	return nil
}

// Summarize is docs/metrics.md#summaries (metrics.Summarize): nil when no finite values.
func Summarize(values []float64, digits int) *Summary { return metrics.Summarize(values, digits) }
