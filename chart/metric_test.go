package chart

import (
	"testing"

	"github.com/duplexscope/duplexscope/report"
)

// TestHeardBandMarks: the heard-latency chart marks every finite goal band
// of report.LatencyBands, in order, named the short way.
func TestHeardBandMarks(t *testing.T) {
	var want []float64
	for _, b := range report.LatencyBands {
		if b.UpToMs < 1e9 {
			want = append(want, b.UpToMs)
		}
	}
	marks := specs[Heard].marks
	if len(marks) != len(want) || len(want) == 0 {
		t.Fatalf("heard marks %v, want one per finite band %v", marks, want)
	}
	for i, m := range marks {
		if m.YAxis != want[i] {
			t.Errorf("mark %d at %v, want %v", i, m.YAxis, want[i])
		}
	}
	for _, tc := range []struct {
		ms   float64
		want string
	}{{300, "300 ms"}, {800, "800 ms"}, {999, "999 ms"}, {1000, "1 s"}, {1500, "1.5 s"}, {2250, "2.25 s"}} {
		if got := heardMarkName(report.LatencyBand{UpToMs: tc.ms}); got != tc.want {
			t.Errorf("heardMarkName(%v) = %q, want %q", tc.ms, got, tc.want)
		}
	}
}
