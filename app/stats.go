package app

import (
	"math"
	"sort"
)

// percentile99 is the nearest-rank p99 (docs/metrics.md#nearest-rank-percentile) of xs.
func percentile99(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	i := int(math.Ceil(0.99*float64(len(s)))) - 1
	return s[min(max(0, i), len(s)-1)]
}
