package metrics

import (
	"math"
	"strconv"
)

// Round returns x rounded to digits decimal places exactly as Python's
// round(x, digits) on a float64 does: the float64 nearest to the exact decimal
// value of x rounded (ties to even on the exact binary value). It is not
// math.Round(x*1e3)/1e3 (docs/metrics.md#rounding).
//
// Digits 0–9 take an exact fast path (fused multiply-add decides the
// rounding direction from the exact binary value); other cases use the
// decimal string route, which is the definition.
func Round(x float64, digits int) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return x
	}
	if digits >= 0 && digits < len(pow10) {
		p := pow10[digits]
		if y := x * p; math.Abs(y) < 1<<51 {
			return roundFast(x, p, y)
		}
	}
	return roundString(x, digits)
}

var pow10 = [...]float64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9}

// roundString is the reference definition: correctly rounded decimal
// formatting, parsed back.
func roundString(x float64, digits int) float64 {
	f, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'f', digits, 64), 64)
	return f
}

// roundFast rounds x to the nearest multiple of 1/p (ties to even on the
// exact value of x·p), returning the float64 nearest to n/p. All FMA
// results have the sign of the exact x·p − c.
func roundFast(x, p, y float64) float64 {
	k := math.Floor(y)
	if math.FMA(x, p, -k) < 0 { // exact x·p < k
		k--
	} else if math.FMA(x, p, -(k+1)) >= 0 { // exact x·p ≥ k+1
		k++
	}
	n := k
	switch d := math.FMA(x, p, -(k + 0.5)); {
	case d > 0:
		n = k + 1
	case d == 0 && math.Mod(k, 2) != 0:
		n = k + 1
	}
	if n == 0 {
		return math.Copysign(0, x)
	}
	return n / p
}

func round3(x float64) float64 { return Round(x, 3) }
func round6(x float64) float64 { return Round(x, 6) }

// Percentile returns the nearest-rank percentile p (0..1) of sorted, an
// ascending slice: sorted[min(max(0, ceil(p·n)−1), n−1)] with p·n a float64
// product (docs/metrics.md#nearest-rank-percentile). It is always an element of sorted; it panics on
// an empty slice.
func Percentile(sorted []float64, p float64) float64 {
	return sorted[PercentileIndex(len(sorted), p)]
}

// PercentileIndex is the position Percentile reads in n sorted values
// (0 when n is 0), for callers that hold counts per sorted position
// rather than the values in order (the compare page's bootstrap).
func PercentileIndex(n int, p float64) int {
	i := int(math.Ceil(p*float64(n))) - 1
	return max(0, min(i, n-1))
}

// Summary is a {count, mean, p50, p99} distribution (docs/metrics.md#summaries).
type Summary struct {
	Count int     `json:"count"`
	Mean  float64 `json:"mean"`
	P50   float64 `json:"p50"`
	P99   float64 `json:"p99"`
}

// Summarize returns the summary (docs/metrics.md#summaries) of the finite values, with mean, p50 and
// p99 rounded to digits (3, or 6 for RTF), or nil when no finite value
// remains. The mean is the left-to-right float64 sum of the sorted values
// divided by their count.
func Summarize(values []float64, digits int) *Summary {
	clean := make([]float64, 0, len(values))
	for _, v := range values {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			clean = append(clean, v)
		}
	}
	return summarizeOwned(clean, digits)
}

// summarizeOwned is Summarize on finite values it may sort in place.
func summarizeOwned(clean []float64, digits int) *Summary {
	if len(clean) == 0 {
		return nil
	}
	sortFloats(clean)
	sum := 0.0
	for _, v := range clean {
		sum += v
	}
	return &Summary{
		Count: len(clean),
		Mean:  Round(sum/float64(len(clean)), digits),
		P50:   Round(Percentile(clean, 0.50), digits),
		P99:   Round(Percentile(clean, 0.99), digits),
	}
}

// IntervalSummary is stage0_tokens.inter_token_interval_ms.
type IntervalSummary struct {
	Count int     `json:"count"`
	Mean  float64 `json:"mean"`
	P50   float64 `json:"p50"`
	P95   float64 `json:"p95"`
	Max   float64 `json:"max"`
}

// SummarizeIntervals is the reference interval_summary: round3 of every
// finite value ≥ 0, sorted; mean round3'd; p50/p95 nearest rank; zeros when
// empty (docs/metrics.md#stage-0-tokens).
func SummarizeIntervals(values []float64) IntervalSummary {
	clean := make([]float64, 0, len(values))
	for _, v := range values {
		if !math.IsNaN(v) && !math.IsInf(v, 0) && v >= 0 {
			clean = append(clean, round3(v))
		}
	}
	if len(clean) == 0 {
		return IntervalSummary{}
	}
	sortFloats(clean)
	sum := 0.0
	for _, v := range clean {
		sum += v
	}
	return IntervalSummary{
		Count: len(clean),
		Mean:  round3(sum / float64(len(clean))),
		P50:   Percentile(clean, 0.50),
		P95:   Percentile(clean, 0.95),
		Max:   clean[len(clean)-1],
	}
}
