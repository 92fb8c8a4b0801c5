package metrics_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/duplexscope/duplexscope/metrics"
)

// TestFirstChanged: on generated sessions cut anywhere, with the meta set
// before, between or after (re-windowing), the listed responses before
// FirstChanged have the same timing and row in a later Snapshot as in the
// Snapshot taken at the Mark: what a live view may skip resending.
func TestFirstChanged(t *testing.T) {
	t.Parallel()
	var skipped, kept int // non-vacuous: some cuts skip a prefix, some keep changes
	rapid.Check(t, func(t *rapid.T) {
		s := genSession(t)
		var a metrics.Accumulator
		metaAt := rapid.IntRange(0, 2).Draw(t, "metaAt") // before, between, after the cut
		if metaAt == 0 {
			a.SetMeta(s.Session)
		}
		cut := rapid.IntRange(0, len(s.Events)).Draw(t, "cut")
		for _, ev := range s.Events[:cut] {
			a.Add(ev)
		}
		before, mark := a.Snapshot(), a.Mark()
		if metaAt == 1 {
			a.SetMeta(s.Session)
		}
		for _, ev := range s.Events[cut:] {
			a.Add(ev)
		}
		if metaAt == 2 {
			a.SetMeta(s.Session)
		}
		after, k := a.Snapshot(), a.FirstChanged(mark)
		if k > len(before.Responses) || k > len(after.Responses) {
			t.Fatalf("FirstChanged %d beyond the %d / %d listed", k, len(before.Responses), len(after.Responses))
		}
		if diff := cmp.Diff(before.Responses[:k], after.Responses[:k]); diff != "" {
			t.Fatalf("a timing before FirstChanged %d changed (-before +after):\n%s", k, diff)
		}
		if diff := cmp.Diff(rowsBefore(before.Rows, k), rowsBefore(after.Rows, k)); diff != "" {
			t.Fatalf("a row before FirstChanged %d changed (-before +after):\n%s", k, diff)
		}
		if k > 0 {
			skipped++
		}
		if k < len(after.Responses) {
			kept++
		}
	})
	if skipped == 0 || kept == 0 {
		t.Errorf("FirstChanged skipped a prefix in %d cases and kept changes in %d: the property was not exercised", skipped, kept)
	}
}

// rowsBefore is the rows of the responses listed before position k.
func rowsBefore(rows []metrics.Row, k int) []metrics.Row {
	n := 0
	for n < len(rows) && rows[n].RequestIndex < k {
		n++
	}
	return rows[:n]
}
