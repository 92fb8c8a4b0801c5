//go:build !js

package bench

import (
	"fmt"
	"math"
	"sort"

	"github.com/duplexscope/duplexscope/metrics"
)

// Dist summarises a sample: count, p50, p99, max and mean (nearest-rank
// percentiles, metrics.Percentile).
type Dist struct {
	N                   int
	P50, P99, Max, Mean float64
}

// Summarize returns the Dist of xs (NaN fields when empty). It does not
// modify xs.
func Summarize(xs []float64) Dist {
	if len(xs) == 0 {
		nan := math.NaN()
		return Dist{P50: nan, P99: nan, Max: nan, Mean: nan}
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	var sum float64
	for _, x := range s {
		sum += x
	}
	return Dist{N: len(s), P50: metrics.Percentile(s, 0.5), P99: metrics.Percentile(s, 0.99), Max: s[len(s)-1], Mean: sum / float64(len(s))}
}

// Abs returns |x| for every x (interval errors are summarised by magnitude).
func Abs(xs []float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = math.Abs(x)
	}
	return out
}

// Drift is how far a paced sender's lateness grew over a run: the median
// lag of the last w frames minus the median lag of the first w frames,
// with w = min(50, n/4) (at least 1). lags are actual − scheduled send
// instants against an absolute schedule (frame k due at start + k·frame),
// in order. A sender that accumulates lateness (sleep(frame) after each
// send) drifts by the accumulated amount; one that keeps an absolute
// schedule drifts by ≈ 0 whatever its jitter. NaN when lags is empty.
func Drift(lags []float64) float64 {
	n := len(lags)
	if n == 0 {
		return math.NaN()
	}
	w := max(1, min(50, n/4))
	return median(lags[n-w:]) - median(lags[:w])
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return metrics.Percentile(s, 0.5)
}

// Ratio is a/b, NaN when b is 0 or either is NaN.
func Ratio(a, b float64) float64 {
	if b == 0 || math.IsNaN(a) || math.IsNaN(b) {
		return math.NaN()
	}
	return a / b
}

// fmtMs formats a millisecond figure with 3 significant decimals.
func fmtMs(x float64) string {
	if math.IsNaN(x) {
		return "n/a"
	}
	return fmt.Sprintf("%.3f", x)
}

// fmtX formats a ratio as "1.23×".
func fmtX(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "n/a"
	}
	return fmt.Sprintf("%.2f×", x)
}

func nan() float64 { return math.NaN() }
