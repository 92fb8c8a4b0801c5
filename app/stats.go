package app

import (
	"sort"

	"github.com/duplexscope/duplexscope/metrics"
)

// percentile99 is the nearest-rank p99 (metrics.Percentile) of xs, in any
// order; 0 when xs is empty (the live pacing meter before its first frame).
func percentile99(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return metrics.Percentile(s, 0.99)
}
