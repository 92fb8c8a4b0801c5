package app

import "testing"

// TestDrawQueue: charts wait in mount order, those with points go first,
// a chart is in line once, a dismounted one leaves it, and the line
// reports when a new drawNext must start.
func TestDrawQueue(t *testing.T) {
	t.Parallel()
	var q drawQueue
	empty1, withPoints, empty2 := &echart{ID: "a", Option: "{}"}, &echart{ID: "b", Option: "{}", Points: 3}, &echart{ID: "c", Option: "{}"}
	gone := &echart{ID: "d", Option: "{}", Points: 1}
	if !q.add(empty1) {
		t.Fatal("the first chart in an idle line did not start the drawing")
	}
	for _, c := range []*echart{withPoints, empty2, gone, empty1} {
		if q.add(c) {
			t.Fatalf("chart %s started a second drawNext while one runs", c.ID)
		}
	}
	q.remove(gone)
	if order := drain(&q); order != "bac" {
		t.Errorf("draw order %q, want %q (points first, then mount order, each once, the dismounted one never)", order, "bac")
	}
	if q.next() != nil {
		t.Error("next on an empty line returned a chart")
	}
	if !q.add(empty2) {
		t.Error("after the line went idle, a new chart did not start the drawing again")
	}
}

// TestDrawQueueWaitsForOptions: a chart mounted before the page had any
// option for it keeps its place in line, so when the first snapshot gives
// every chart points they are drawn in mount order (the headline chart
// first), and the line idles while nothing has an option.
func TestDrawQueueWaitsForOptions(t *testing.T) {
	t.Parallel()
	var q drawQueue
	charts := []*echart{{ID: "ttfp"}, {ID: "heard"}, {ID: "ttft"}}
	for _, c := range charts {
		q.add(c)
	}
	// echarts is ready before the first snapshot: nothing to draw yet.
	if c := q.next(); c != nil {
		t.Fatalf("next gave %s, which has no option", c.ID)
	}
	if !q.idle() {
		t.Fatal("a line with nothing to draw did not go idle")
	}
	for _, c := range charts {
		c.Option, c.Points = "{}", 1
	}
	if !q.add(charts[2]) {
		t.Fatal("an option for a chart already in the idle line did not start the drawing again")
	}
	if q.add(charts[0]) {
		t.Fatal("a second update started a second drawNext")
	}
	if order := drain(&q); order != "ttfpheardttft" {
		t.Errorf("draw order %q, want mount order ttfp, heard, ttft", order)
	}
}

// drain takes every drawable chart off q, as drawNext does frame by frame,
// and returns their ids in order.
func drain(q *drawQueue) string {
	var order string
	for !q.idle() {
		order += q.next().ID
	}
	return order
}
