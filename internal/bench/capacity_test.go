//go:build !js

package bench

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// A capacity step is measured again only when it failed on its lag: a pass
// stands, and a failed session (an error) would fail again.
func TestCapacityAttempts(t *testing.T) {
	t.Parallel()
	lag := func(p99 float64) stepCost { return stepCost{Lag: Dist{N: 100, P99: p99}} }
	for _, tc := range []struct {
		name    string
		results []stepCost // what successive measurements give
		calls   int
		verdict string // of the deciding attempt (prefix)
	}{
		{"pass", []stepCost{lag(2)}, 1, "pass"},
		{"lag fails, then passes", []stepCost{lag(8.9), lag(3)}, 2, "pass"},
		{"lag fails twice", []stepCost{lag(8.9), lag(7)}, 2, "fail: lag p99 7.000 ms"},
		{"no samples (NaN) is a failure", []stepCost{lag(math.NaN()), lag(1)}, 2, "pass"},
		{"a failed session is not retried", []stepCost{{Err: errors.New("dial: refused")}, lag(1)}, 1, "fail: dial: refused"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			calls := 0
			got := attempts(func() stepCost { calls++; return tc.results[calls-1] })
			if calls != tc.calls || len(got) != tc.calls {
				t.Fatalf("measured %d times, %d attempts; want %d", calls, len(got), tc.calls)
			}
			if v := stepVerdict(got[len(got)-1]); !strings.HasPrefix(v, tc.verdict) {
				t.Errorf("verdict %q, want %q…", v, tc.verdict)
			}
		})
	}
}
