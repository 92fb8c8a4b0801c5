//go:build !js

package sim

import (
	"sort"
	"sync"
	"time"
)

// Clock is the simulator's server-monotonic clock. Now is the time since the
// clock's origin; After returns a channel that is closed once Now ≥ t (or
// immediately when t has passed) and a stop function releasing the waiter.
type Clock interface {
	Now() time.Duration
	After(t time.Duration) (<-chan struct{}, func())
}

// SystemClock returns a monotonic Clock whose origin is the call time.
func SystemClock() Clock { return &systemClock{origin: time.Now()} }

type systemClock struct{ origin time.Time }

func (c *systemClock) Now() time.Duration { return time.Since(c.origin) }

func (c *systemClock) After(t time.Duration) (<-chan struct{}, func()) {
	ch := make(chan struct{})
	d := t - c.Now()
	if d <= 0 {
		close(ch)
		return ch, func() {}
	}
	tm := time.AfterFunc(d, func() { close(ch) })
	return ch, func() { tm.Stop() }
}

// ManualClock is a Clock that only moves when Advance or Set is called, for
// tests. The zero value starts at 0.
type ManualClock struct {
	mu      sync.Mutex
	now     time.Duration
	waiters []*waiter
	changed chan struct{} // closed and replaced whenever the waiter set changes
}

type waiter struct {
	at time.Duration
	ch chan struct{}
}

// NewManualClock returns a ManualClock at time start.
func NewManualClock(start time.Duration) *ManualClock { return &ManualClock{now: start} }

// Now returns the manual time.
func (c *ManualClock) Now() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// After implements Clock.
func (c *ManualClock) After(t time.Duration) (<-chan struct{}, func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := make(chan struct{})
	if t <= c.now {
		close(ch)
		return ch, func() {}
	}
	w := &waiter{at: t, ch: ch}
	c.waiters = append(c.waiters, w)
	c.notifyLocked()
	return ch, func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		for i, x := range c.waiters {
			if x == w {
				c.waiters = append(c.waiters[:i], c.waiters[i+1:]...)
				c.notifyLocked()
				return
			}
		}
	}
}

// Advance moves time forward by d, releasing due waiters in time order.
func (c *ManualClock) Advance(d time.Duration) { c.Set(c.Now() + d) }

// Set moves time to t (never backwards) and releases due waiters.
func (c *ManualClock) Set(t time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if t < c.now {
		return
	}
	c.now = t
	sort.SliceStable(c.waiters, func(i, j int) bool { return c.waiters[i].at < c.waiters[j].at })
	kept := c.waiters[:0]
	for _, w := range c.waiters {
		if w.at <= t {
			close(w.ch)
		} else {
			kept = append(kept, w)
		}
	}
	c.waiters = kept
	c.notifyLocked()
}

// Waiters returns the number of pending After waiters and a channel closed
// when that number next changes, so tests can wait for a goroutine to block
// on the clock without sleeping.
func (c *ManualClock) Waiters() (int, <-chan struct{}) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.changed == nil {
		c.changed = make(chan struct{})
	}
	return len(c.waiters), c.changed
}

// WaiterTimes returns the pending wake-up times, sorted.
func (c *ManualClock) WaiterTimes() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]time.Duration, 0, len(c.waiters))
	for _, w := range c.waiters {
		out = append(out, w.at)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// NextWaiter returns the earliest pending wake-up time.
func (c *ManualClock) NextWaiter() (time.Duration, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.waiters) == 0 {
		return 0, false
	}
	min := c.waiters[0].at
	for _, w := range c.waiters {
		if w.at < min {
			min = w.at
		}
	}
	return min, true
}

func (c *ManualClock) notifyLocked() {
	if c.changed != nil {
		close(c.changed)
	}
	c.changed = make(chan struct{})
}

// msOf converts a server-monotonic duration to milliseconds.
func msOf(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
