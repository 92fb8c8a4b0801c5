package report

import (
	"encoding/json"
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
	b, err := mr.MarshalJSON()
	if err != nil {
		return RunKeys{}
	}
	var k RunKeys
	_ = json.Unmarshal(b, &k)
	return k
}

// metricsReport hands the lists to metrics.ParseReport, which recomputes
// the run-level keys from them.
func metricsReport(rows []Row, sessions []SessionEntry) (*metrics.Report, error) {
	if rows == nil {
		rows = []Row{}
	}
	if sessions == nil {
		sessions = []SessionEntry{}
	}
	b, err := json.Marshal(struct {
		Requests []Row          `json:"duplex_request_metrics"`
		Sessions []SessionEntry `json:"duplex_session_metrics"`
	}{rows, sessions})
	if err != nil {
		return nil, err
	}
	return metrics.ParseReport(b)
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
