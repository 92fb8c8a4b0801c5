//go:build !js

package sim

import (
	"sort"
	"time"
)

type action int

const (
	actNone        action = iota
	actClose              // close 1000 after the frame
	actClosePolicy        // close 1008 after the frame
	actDisconnect         // drop TCP without a close frame
)

// output is one frame (or action) ready to write.
type output struct {
	frame []byte
	act   action
	slow  bool // slow_writer: write in fragments
}

// item is a scheduled output; render builds it at the true emit time and
// may return a nil frame to skip it.
type item struct {
	at          time.Duration
	seq         int
	resp        *response
	cancellable bool
	render      func(now time.Duration) ([]byte, action)

	// prepare, when set, does the item's heavy, time-independent work; it
	// runs on the writer goroutine outside the session lock and may only
	// touch writer-owned state (the response's voice) and the item.
	replay   bool // replayed_events: a frame sent again
	prepare  func()
	prepared bool
	pcm      []int16
	b64      string
}

// runPrepare runs it.prepare once.
func (it *item) runPrepare() {
	if it.prepare != nil && !it.prepared {
		it.prepared = true
		it.prepare()
	}
}

// outputQueue holds a session's scheduled outputs in (at, seq) order: equal
// times leave in the order they were scheduled (or their seq reserved).
type outputQueue []*item

// insert places it after every item due before it or at its time with a
// lower seq.
func (q *outputQueue) insert(it *item) {
	s := *q
	i := sort.Search(len(s), func(i int) bool {
		return s[i].at > it.at || (s[i].at == it.at && s[i].seq > it.seq)
	})
	s = append(s, nil)
	copy(s[i+1:], s[i:])
	s[i] = it
	*q = s
}

// due returns the head item when it is due at now, else nil.
func (q outputQueue) due(now time.Duration) *item {
	if len(q) == 0 || q[0].at > now {
		return nil
	}
	return q[0]
}

// take removes and returns the head item.
func (q *outputQueue) take() *item {
	it := (*q)[0]
	*q = (*q)[1:]
	return it
}

// dropCancellable removes r's cancellable items (a truncated response's
// remaining audio and text), keeping the order of the rest.
func (q *outputQueue) dropCancellable(r *response) {
	kept := (*q)[:0]
	for _, it := range *q {
		if it.resp == r && it.cancellable {
			continue
		}
		kept = append(kept, it)
	}
	*q = kept
}
