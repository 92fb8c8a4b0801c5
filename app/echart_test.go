package app

import "testing"

// TestDrawQueue: charts wait in mount order, those with points go first,
// a chart is in line once, a dismounted one leaves it, and the line
// reports when a new drawNext must start.
func TestDrawQueue(t *testing.T) {
	t.Parallel()
	var q drawQueue
	empty1, withPoints, empty2 := &echart{ID: "a"}, &echart{ID: "b", Points: 3}, &echart{ID: "c"}
	gone := &echart{ID: "d", Points: 1}
	if !q.add(empty1) {
		t.Fatal("the first chart in an idle line did not start the drawing")
	}
	for _, c := range []*echart{withPoints, empty2, gone, empty1} {
		if q.add(c) {
			t.Fatalf("chart %s started a second drawNext while one runs", c.ID)
		}
	}
	q.remove(gone)
	var order string
	for !q.idle() {
		order += q.next().ID
	}
	if order != "bac" {
		t.Errorf("draw order %q, want %q (points first, then mount order, each once, the dismounted one never)", order, "bac")
	}
	if q.next() != nil {
		t.Error("next on an empty line returned a chart")
	}
	if !q.add(empty2) {
		t.Error("after the line went idle, a new chart did not start the drawing again")
	}
}
