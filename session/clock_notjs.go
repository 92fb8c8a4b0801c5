//go:build !js

package session

import (
	"context"
	"time"
)

// origin is the process-wide origin of SystemClock, so sessions of one run
// share one time axis.
var origin = time.Now()

type systemClock struct{}

// SystemClock is the process's monotonic clock (Go's monotonic time since
// process start). It also implements Sleeper.
func SystemClock() Clock { return systemClock{} }

func (systemClock) Now() time.Duration { return time.Since(origin) }

func (c systemClock) SleepUntil(ctx context.Context, t time.Duration) error {
	return timerSleep(ctx, c, t)
}
