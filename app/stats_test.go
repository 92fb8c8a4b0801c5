package app

import "testing"

// TestPercentile99: the live pacing meter's p99 is the nearest-rank p99 of
// its lags in any order, 0 before the first frame, and leaves the lags as
// they were.
func TestPercentile99(t *testing.T) {
	seq := make([]float64, 200)
	for i := range seq {
		seq[i] = float64(200 - i) // descending: the function must sort
	}
	tests := []struct {
		name string
		in   []float64
		want float64
	}{
		{"empty", nil, 0},
		{"one", []float64{7}, 7},
		{"three: 0.99·3 = 2.97 → the max", []float64{3, 1, 2}, 3},
		{"200: index 197", seq, 198},
	}
	for _, tc := range tests {
		before := append([]float64(nil), tc.in...)
		if got := percentile99(tc.in); got != tc.want {
			t.Errorf("%s: percentile99 = %v, want %v", tc.name, got, tc.want)
		}
		for i := range before {
			if tc.in[i] != before[i] {
				t.Fatalf("%s: percentile99 reordered its input", tc.name)
			}
		}
	}
}
