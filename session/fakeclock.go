package session

import (
	"context"
	"sync"
	"time"
)

// FakeClock is a manual Clock and Sleeper for tests. Time moves only with
// Advance, or — when AutoAdvance is set — whenever a sleeper waits: the clock
// then jumps to the wake-up instant plus Jitter(k) (k counts sleeps from 0),
// so a paced loop runs at full speed with a chosen, deterministic lateness.
type FakeClock struct {
	mu      sync.Mutex
	now     time.Duration
	waiters []fakeWaiter
	sleeps  int

	// AutoAdvance makes SleepUntil move the clock itself instead of blocking.
	AutoAdvance bool
	// Jitter, with AutoAdvance, is the lateness of the k-th wake-up.
	Jitter func(k int) time.Duration
	// Settle, with AutoAdvance, is called before each jump (without the
	// clock's lock held): tests use it to let in-flight work finish first,
	// as it would in the real time the jump stands for.
	Settle func()
}

type fakeWaiter struct {
	t  time.Duration
	ch chan struct{}
}

// NewFakeClock returns a FakeClock reading 0.
func NewFakeClock() *FakeClock { return &FakeClock{} }

// Now is the current fake time.
func (c *FakeClock) Now() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock forward by d and wakes the sleepers now due.
func (c *FakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now += d
	c.wakeLocked()
	c.mu.Unlock()
}

// Set moves the clock to t (never backwards) and wakes the sleepers now due.
func (c *FakeClock) Set(t time.Duration) {
	c.mu.Lock()
	if t > c.now {
		c.now = t
	}
	c.wakeLocked()
	c.mu.Unlock()
}

// Sleepers is the number of goroutines blocked in SleepUntil.
func (c *FakeClock) Sleepers() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.waiters)
}

func (c *FakeClock) wakeLocked() {
	kept := c.waiters[:0]
	for _, w := range c.waiters {
		if w.t <= c.now {
			close(w.ch)
		} else {
			kept = append(kept, w)
		}
	}
	c.waiters = kept
}

// SleepUntil implements Sleeper.
func (c *FakeClock) SleepUntil(ctx context.Context, t time.Duration) error {
	if c.AutoAdvance && c.Settle != nil {
		c.Settle()
	}
	c.mu.Lock()
	if c.AutoAdvance {
		k := c.sleeps
		c.sleeps++
		if t > c.now {
			c.now = t
		}
		if c.Jitter != nil {
			c.now += c.Jitter(k)
		}
		c.wakeLocked()
		c.mu.Unlock()
		return ctx.Err()
	}
	if t <= c.now {
		c.mu.Unlock()
		return ctx.Err()
	}
	w := fakeWaiter{t: t, ch: make(chan struct{})}
	c.waiters = append(c.waiters, w)
	c.mu.Unlock()
	select {
	case <-w.ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
