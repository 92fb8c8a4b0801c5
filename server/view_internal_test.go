//go:build !js

package server

import (
	"math"
	"testing"
)

// TestFmtMs: the share page's millisecond cells (six per row, 500 rows in
// the bench) cost one allocation each, and say "—" for no value.
func TestFmtMs(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	for _, tc := range []struct {
		in   *float64
		want string
	}{
		{nil, "—"},
		{f(math.NaN()), "—"},
		{f(math.Inf(1)), "—"},
		{f(412.345), "412.3 ms"},
		{f(-0.04), "-0.0 ms"},
		{f(1e40), "10000000000000000303786028427003666890752.0 ms"},
	} {
		if got := fmtMs(tc.in); got != tc.want {
			t.Errorf("fmtMs(%v) = %q, want %q", tc.in, got, tc.want)
		}
	}
	v := 412.345
	if n := testing.AllocsPerRun(100, func() { _ = fmtMs(&v) }); n > 1 {
		t.Errorf("fmtMs allocates %v times, want 1", n)
	}
}
