package metrics_test

import (
	"testing"

	"github.com/duplexscope/duplexscope/metrics"
	"github.com/duplexscope/duplexscope/trace"
	"github.com/google/go-cmp/cmp"
)

// TestResultComparable: other packages compare results with cmp.Diff,
// which panics on unexported fields (regression: RawMetric and
// ResponseTiming once held their backing arrays in unexported fields).
func TestResultComparable(t *testing.T) {
	t.Parallel()
	r := metrics.ScoreSession(trace.Session{Events: []trace.Event{created(1, "a"), text(2, "a", "x"), audio(3, "a", "")}})
	if diff := cmp.Diff(r, metrics.ScoreSession(trace.Session{Events: []trace.Event{created(1, "a"), text(2, "a", "x"), audio(3, "a", "")}})); diff != "" {
		t.Errorf("two scores of one session differ:\n%s", diff)
	}
}
