package session

import (
	"context"
	"syscall/js"
	"time"
)

type perfClock struct{ perf js.Value }

// SystemClock is performance.now() (the page's monotonic clock, the same one
// AudioWorklet and onmessage stamps use). It also implements Sleeper (with Go
// timers, i.e. setTimeout: throttled in background tabs). Under Node,
// performance is a global too.
func SystemClock() Clock { return perfClock{perf: js.Global().Get("performance")} }

func (c perfClock) Now() time.Duration {
	return time.Duration(c.perf.Call("now").Float() * float64(time.Millisecond))
}

func (c perfClock) SleepUntil(ctx context.Context, t time.Duration) error {
	return timerSleep(ctx, c, t)
}
