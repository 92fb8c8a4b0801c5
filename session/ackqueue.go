package session

import "context"

// AckQueue carries playback acks from a player's callback, which must
// never block (an AudioWorklet port's onmessage), to one goroutine that
// sends them in order (Run). A full queue drops the ack instead of
// blocking: acks are cumulative, so a later one supersedes it.
type AckQueue struct{ c chan queuedAck }

type queuedAck struct {
	id string
	ms int
}

// NewAckQueue returns a queue that holds up to n acks.
func NewAckQueue(n int) *AckQueue { return &AckQueue{c: make(chan queuedAck, n)} }

// Cap is how many acks the queue holds.
func (q *AckQueue) Cap() int { return cap(q.c) }

// Queue adds the ack played_ms = ms for response id; it never blocks.
func (q *AckQueue) Queue(id string, ms int) {
	select {
	case q.c <- queuedAck{id: id, ms: ms}:
	default: // full: a later (cumulative) ack supersedes this one
	}
}

// Acker sends one playback.ack (*Session does).
type Acker interface {
	Played(ctx context.Context, id string, ms int) error
}

// Run sends the queued acks in order through s until ctx ends. A failed
// send is not retried: the session reports its own failure.
func (q *AckQueue) Run(ctx context.Context, s Acker) {
	for {
		select {
		case <-ctx.Done():
			return
		case a := <-q.c:
			_ = s.Played(ctx, a.id, a.ms)
		}
	}
}
