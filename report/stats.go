package report

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"

	"github.com/duplexscope/duplexscope/metrics"
)

// round returns x rounded to n decimals the way Python's round does
// (correctly rounded from the exact binary value, METRICS.md §10.1).
func round(x float64, n int) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'f', n, 64), 64)
	return v
}

// summarize is METRICS.md §4.1: nil for no finite values.
func summarize(values []float64, digits int) *Summary {
	clean := make([]float64, 0, len(values))
	for _, v := range values {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			clean = append(clean, v)
		}
	}
	if len(clean) == 0 {
		return nil
	}
	slices.Sort(clean)
	sum := 0.0
	for _, v := range clean {
		sum += v
	}
	return &Summary{
		Count: len(clean),
		Mean:  round(sum/float64(len(clean)), digits),
		P50:   round(nearestRank(clean, 0.50), digits),
		P99:   round(nearestRank(clean, 0.99), digits),
	}
}

// nearestRank is METRICS.md §4.2 on an ascending, non-empty slice.
func nearestRank(sorted []float64, p float64) float64 {
	n := len(sorted)
	i := int(math.Ceil(p*float64(n))) - 1
	return sorted[min(max(0, i), n-1)]
}

// ComputeRunKeys recomputes the run-level keys of METRICS.md §6 from rows
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

// Summarize is the exported METRICS.md §4.1 summary (nil when empty).
func Summarize(values []float64, digits int) *Summary { return summarize(values, digits) }
