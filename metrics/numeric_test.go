package metrics_test

import (
	"math"
	"slices"
	"testing"

	"github.com/duplexscope/duplexscope/metrics"
	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

func TestRound(t *testing.T) {
	t.Parallel()
	tests := []struct {
		x      float64
		digits int
		want   float64
	}{
		{0.0625, 3, 0.062}, // exact binary half → even
		{99.99999999999909, 3, 100.0},
		{99.99999999999964, 3, 100.0},
		{2.0005, 3, 2.001}, // stored slightly above the half
		{2.0000005, 6, 2.000001},
		{1.0005, 3, 1.0}, // stored slightly below the half; math.Round(x*1e3)/1e3 gives 1.001
		{-0.0004, 3, math.Copysign(0, -1)},
		{6451.612903225806, 6, 6451.612903},
	}
	for _, tc := range tests {
		if got := metrics.Round(tc.x, tc.digits); got != tc.want || math.Signbit(got) != math.Signbit(tc.want) {
			t.Errorf("Round(%v, %d) = %v, want %v", tc.x, tc.digits, got, tc.want)
		}
	}
}

func TestPercentileNearestRank(t *testing.T) {
	t.Parallel()
	seq := func(n int) []float64 {
		s := make([]float64, n)
		for i := range s {
			s[i] = float64(i + 1)
		}
		return s
	}
	tests := []struct {
		name   string
		sorted []float64
		p      float64
		want   float64
	}{
		{"p50 of even n is the lower middle", []float64{10, 10, 10, 50}, 0.5, 10},
		{"p99 of 4 is the max", []float64{10, 10, 10, 50}, 0.99, 50},
		{"0.99*3 = 2.9699999999999998 → index 2", []float64{1, 2, 3}, 0.99, 3},
		{"n=100 → index 98", seq(100), 0.99, 99},
		{"n=101: 0.99*101 = 99.99 → index 99", seq(101), 0.99, 100},
		{"n=200 → index 197", seq(200), 0.99, 198},
		{"p0 clamps to the first", seq(5), 0, 1},
		{"p10 of 10 is the first", seq(10), 0.1, 1},
		{"p11 of 10 is the second", seq(10), 0.11, 2},
		{"single value", []float64{7}, 0.99, 7},
		{"p50 of 3 is the middle", []float64{-1, 0, 4}, 0.5, 0},
	}
	for _, tc := range tests {
		if got := metrics.Percentile(tc.sorted, tc.p); got != tc.want {
			t.Errorf("%s: Percentile = %v, want %v", tc.name, got, tc.want)
		}
		if i := metrics.PercentileIndex(len(tc.sorted), tc.p); tc.sorted[i] != tc.want {
			t.Errorf("%s: PercentileIndex = %d (value %v), want value %v", tc.name, i, tc.sorted[i], tc.want)
		}
	}
	if i := metrics.PercentileIndex(0, 0.99); i != 0 {
		t.Errorf("PercentileIndex(0, 0.99) = %d, want 0", i)
	}
}

func TestSummarize(t *testing.T) {
	t.Parallel()
	seq13 := make([]float64, 13)
	for i := range seq13 {
		seq13[i] = float64(i + 1)
	}
	tests := []struct {
		name   string
		values []float64
		digits int
		want   *metrics.Summary
	}{
		{"empty is nil", nil, 3, nil},
		{"only non-finite is nil", []float64{math.NaN(), math.Inf(1)}, 3, nil},
		{"10 10 10 50", []float64{10, 10, 10, 50}, 3, &metrics.Summary{Count: 4, Mean: 20, P50: 10, P99: 50}},
		{"1..13", seq13, 3, &metrics.Summary{Count: 13, Mean: 7, P50: 7, P99: 13}},
		{"unsorted five", []float64{412.5, 388.25, 1020.0, 455.125, 501.0}, 3, &metrics.Summary{Count: 5, Mean: 555.375, P50: 455.125, P99: 1020}},
		{"negatives kept", []float64{-50, 150}, 3, &metrics.Summary{Count: 2, Mean: 50, P50: -50, P99: 150}},
		{"rtf digits 6", []float64{0.525, 0.9}, 6, &metrics.Summary{Count: 2, Mean: 0.7125, P50: 0.525, P99: 0.9}},
		{"NaN dropped", []float64{1, math.NaN(), 3}, 3, &metrics.Summary{Count: 2, Mean: 2, P50: 1, P99: 3}},
	}
	for _, tc := range tests {
		if diff := cmp.Diff(tc.want, metrics.Summarize(tc.values, tc.digits)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
}

func TestSummarizeIntervals(t *testing.T) {
	t.Parallel()
	got := metrics.SummarizeIntervals([]float64{13, 12, -1, math.Inf(1)})
	want := metrics.IntervalSummary{Count: 2, Mean: 12.5, P50: 12, P95: 13, Max: 13}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(metrics.IntervalSummary{}, metrics.SummarizeIntervals(nil)); diff != "" {
		t.Errorf("empty (-want +got):\n%s", diff)
	}
}

// Percentile laws: the result is an element, bounded by min/max, monotone
// in q; summaries have p50 ≤ p99 and min ≤ mean ≤ max (before rounding
// moves them by at most half a unit in the last place kept).
func TestPercentileProperties(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		vals := rapid.SliceOfN(rapid.Float64Range(-1e6, 1e6), 1, 300).Draw(t, "values")
		sorted := slices.Clone(vals)
		slices.Sort(sorted)
		q1 := rapid.Float64Range(0, 1).Draw(t, "q1")
		q2 := rapid.Float64Range(q1, 1).Draw(t, "q2")
		p1, p2 := metrics.Percentile(sorted, q1), metrics.Percentile(sorted, q2)
		if p1 > p2 {
			t.Fatalf("not monotone: P(%v)=%v > P(%v)=%v", q1, p1, q2, p2)
		}
		if !slices.Contains(sorted, p1) {
			t.Fatalf("P(%v)=%v is not an element", q1, p1)
		}
		s := metrics.Summarize(vals, 3)
		lo, hi := metrics.Round(sorted[0], 3), metrics.Round(sorted[len(sorted)-1], 3)
		if s.Count != len(vals) || s.P50 > s.P99 || s.Mean < lo || s.Mean > hi || s.P50 < lo || s.P99 > hi {
			t.Fatalf("summary %+v of %d values in [%v, %v]", s, len(vals), lo, hi)
		}
	})
}

// Round matches Python on random inputs: it equals the decimal string
// rounding and is idempotent.
func TestRoundProperties(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		x := rapid.Float64Range(-1e9, 1e9).Draw(t, "x")
		r := metrics.Round(x, 3)
		if metrics.Round(r, 3) != r {
			t.Fatalf("Round not idempotent at %v", x)
		}
		if math.Abs(r-x) > 0.0005+1e-9*math.Abs(x) {
			t.Fatalf("Round(%v,3) = %v moved too far", x, r)
		}
	})
}

// The fast Round path equals the decimal-string definition everywhere.
func TestRoundFastEqualsDefinition(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		digits := rapid.IntRange(0, 9).Draw(t, "digits")
		var x float64
		switch rapid.IntRange(0, 2).Draw(t, "shape") {
		case 0:
			x = rapid.Float64Range(-1e7, 1e7).Draw(t, "x")
		case 1: // exact halves and their neighbours
			k := rapid.Int64Range(-1e9, 1e9).Draw(t, "k")
			x = (float64(k) + 0.5) / []float64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9}[digits]
			x = math.Nextafter(x, []float64{math.Inf(-1), 0, math.Inf(1)}[rapid.IntRange(0, 2).Draw(t, "dir")])
		default:
			x = math.Float64frombits(rapid.Uint64().Draw(t, "bits"))
		}
		want := metrics.RoundDefinition(x, digits)
		got := metrics.Round(x, digits)
		if math.IsNaN(got) && math.IsNaN(want) {
			return
		}
		if got != want || math.Signbit(got) != math.Signbit(want) {
			t.Fatalf("Round(%v, %d) = %v, definition %v", x, digits, got, want)
		}
	})
}
