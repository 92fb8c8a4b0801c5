//go:build !js

package sim

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestOutputQueueOrder: items leave by time, then by seq, whatever the
// order they were inserted in.
func TestOutputQueueOrder(t *testing.T) {
	t.Parallel()
	type in struct {
		at  time.Duration
		seq int
	}
	tests := []struct {
		name string
		ins  []in
		want []int // seqs in leaving order
	}{
		{"by time", []in{{30, 1}, {10, 2}, {20, 3}}, []int{2, 3, 1}},
		{"equal times by seq", []in{{10, 3}, {10, 1}, {10, 2}}, []int{1, 2, 3}},
		{"reserved seq slots between", []in{{10, 1}, {10, 4}, {10, 2}, {5, 9}}, []int{9, 1, 2, 4}},
		{"later time, lower seq", []in{{20, 1}, {10, 2}}, []int{2, 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var q outputQueue
			for _, x := range tc.ins {
				q.insert(&item{at: x.at, seq: x.seq})
			}
			var got []int
			for len(q) > 0 {
				got = append(got, q.take().seq)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("order (-want +got):\n%s", d)
			}
		})
	}
}

func TestOutputQueueDue(t *testing.T) {
	t.Parallel()
	var q outputQueue
	q.insert(&item{at: 20, seq: 1})
	tests := []struct {
		now  time.Duration
		want bool
	}{{10, false}, {19, false}, {20, true}, {30, true}}
	for _, tc := range tests {
		if got := q.due(tc.now) != nil; got != tc.want {
			t.Errorf("due(%v) = %v, want %v", tc.now, got, tc.want)
		}
	}
	if (outputQueue{}).due(100) != nil {
		t.Error("an empty queue has a due item")
	}
}

// TestOutputQueueDropCancellable: only the named response's cancellable
// items go; the rest keep their order.
func TestOutputQueueDropCancellable(t *testing.T) {
	t.Parallel()
	a, b := &response{id: "a"}, &response{id: "b"}
	tests := []struct {
		name  string
		items []*item
		drop  *response
		want  []int
	}{
		{"cancellable of a", []*item{{seq: 1, resp: a, cancellable: true}, {seq: 2, resp: b, cancellable: true}, {seq: 3, resp: a}, {seq: 4, resp: a, cancellable: true}}, a, []int{2, 3}},
		{"none of b", []*item{{seq: 1, resp: a, cancellable: true}, {seq: 2}}, b, []int{1, 2}},
		{"session items stay", []*item{{seq: 1}, {seq: 2, resp: a, cancellable: true}}, a, []int{1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q := outputQueue(tc.items)
			q.dropCancellable(tc.drop)
			var got []int
			for _, it := range q {
				got = append(got, it.seq)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("kept (-want +got):\n%s", d)
			}
		})
	}
}
