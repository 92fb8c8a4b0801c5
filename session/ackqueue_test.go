package session

import (
	"context"
	"testing"
)

type ackFunc func(id string, ms int)

func (f ackFunc) Played(_ context.Context, id string, ms int) error {
	f(id, ms)
	return nil
}

// TestAckQueue: queued acks go out in order; a full queue drops (a
// later, cumulative ack supersedes) instead of blocking the player's
// callback; Run ends with its context.
func TestAckQueue(t *testing.T) {
	t.Parallel()
	q := NewAckQueue(8)
	for i := range q.Cap() + 5 { // never blocks; the last 5 are dropped
		q.Queue("r1", i)
	}
	ctx, cancel := context.WithCancel(context.Background())
	sent := make(chan int)
	ended := make(chan struct{})
	go func() {
		q.Run(ctx, ackFunc(func(id string, ms int) {
			if id != "r1" {
				t.Errorf("ack for %q, want r1", id)
			}
			sent <- ms
		}))
		close(ended)
	}()
	for want := range q.Cap() {
		if got := <-sent; got != want {
			t.Fatalf("ack %d sent played_ms %d, want %d", want, got, want)
		}
	}
	cancel()
	<-ended
	select {
	case ms := <-sent:
		t.Fatalf("ack played_ms %d sent after the queue was full", ms)
	default:
	}
}
