//go:build !js

package bench

import (
	"math"
	"testing"
)

func TestSummarize(t *testing.T) {
	t.Parallel()
	in := []float64{5, 1, 4, 2, 3}
	got := Summarize(in)
	want := Dist{N: 5, P50: 3, P99: 5, Max: 5, Mean: 3}
	if got != want {
		t.Errorf("Summarize = %+v, want %+v", got, want)
	}
	if in[0] != 5 {
		t.Errorf("Summarize sorted its input in place: %v", in)
	}
	if e := Summarize(nil); e.N != 0 || !math.IsNaN(e.P99) {
		t.Errorf("Summarize(nil) = %+v, want N 0 and NaN", e)
	}
}

func TestDrift(t *testing.T) {
	t.Parallel()
	const frame = 200.0
	// relative: sleep(frame) after each send, each frame 0.1 ms late on
	// the previous one → lag k·0.1 ms against the absolute schedule.
	relative := make([]float64, 3000)
	for k := range relative {
		relative[k] = float64(k) * 0.1
	}
	// absolute: jitter in [0, 1.8] ms around the schedule (period 10 frames),
	// no accumulation.
	absolute := make([]float64, 3000)
	for k := range absolute {
		absolute[k] = float64((k*7)%10) / 5
	}
	// one dropped tick half-way: everything after is a frame late.
	dropped := make([]float64, 400)
	for k := 200; k < 400; k++ {
		dropped[k] = frame
	}
	cases := []struct {
		name string
		lags []float64
		want float64
		tol  float64
	}{
		// median of the last 50 (k 2950..2999) − median of the first 50 (0..49)
		{"relative sleep accumulates", relative, (2974 - 24) * 0.1, 1e-9},
		{"absolute schedule does not drift", absolute, 0, 0},
		{"a dropped tick is one frame of drift", dropped, frame, 1e-9},
		{"constant lateness is not drift", []float64{3, 3, 3, 3, 3, 3, 3, 3}, 0, 0},
		{"short run uses w=1", []float64{0, 1, 2}, 2, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := Drift(tc.lags); math.Abs(got-tc.want) > tc.tol {
				t.Errorf("Drift = %v, want %v ± %v", got, tc.want, tc.tol)
			}
		})
	}
	if got := Drift(nil); !math.IsNaN(got) {
		t.Errorf("Drift(nil) = %v, want NaN", got)
	}
}

func TestRatio(t *testing.T) {
	t.Parallel()
	if got := Ratio(3, 2); got != 1.5 {
		t.Errorf("Ratio(3,2) = %v", got)
	}
	for _, c := range [][2]float64{{1, 0}, {math.NaN(), 1}, {1, math.NaN()}} {
		if got := Ratio(c[0], c[1]); !math.IsNaN(got) {
			t.Errorf("Ratio(%v,%v) = %v, want NaN", c[0], c[1], got)
		}
	}
}
