package session

import (
	"context"
	"time"
)

// Clock is a monotonic clock: Now is the time since an arbitrary fixed origin.
type Clock interface{ Now() time.Duration }

// Sleeper blocks until a clock reaches an instant.
type Sleeper interface {
	// SleepUntil returns when the clock reads ≥ t (immediately if it already
	// does), or with ctx's error when ctx ends first.
	SleepUntil(ctx context.Context, t time.Duration) error
}

// durMs converts a duration to float milliseconds (the wire log's unit).
func durMs(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// timerSleep is SleepUntil for a clock whose time passes with the Go runtime's
// timers (the system clocks).
func timerSleep(ctx context.Context, c Clock, t time.Duration) error {
	d := t - c.Now()
	if d <= 0 {
		return ctx.Err()
	}
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-tm.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// durFromMs converts float milliseconds to a duration.
func durFromMs(ms float64) time.Duration { return time.Duration(ms * float64(time.Millisecond)) }
