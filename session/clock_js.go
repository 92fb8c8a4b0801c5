package session

import (
	"context"
	"syscall/js"
	"time"
)

type perfClock struct{ perf js.Value }

// timelineOffset maps this JS realm's performance.now() onto the page's
// timeline: in a Worker, performance.now() counts from the worker's own
// timeOrigin, so every stamp adds (worker origin − page origin) and the
// stamps of page and worker compare directly. 0 on the page itself.
var timelineOffset time.Duration

// SetTimelineOffset sets the offset SystemClock and the browser transport's
// receive stamps add to performance.now() (a worker: its timeOrigin minus
// the page's, in ms). Call it before Dial; one realm has one timeline.
func SetTimelineOffset(ms float64) { timelineOffset = durFromMs(ms) }

// PerfNow is performance.now() on the page's timeline (see SetTimelineOffset).
func PerfNow() float64 {
	return js.Global().Get("performance").Call("now").Float() + durMs(timelineOffset)
}

// SystemClock is performance.now() (the page's monotonic clock, the same one
// AudioWorklet and onmessage stamps use). It also implements Sleeper (with Go
// timers, i.e. setTimeout: throttled in background tabs). Under Node,
// performance is a global too.
func SystemClock() Clock { return perfClock{perf: js.Global().Get("performance")} }

func (c perfClock) Now() time.Duration {
	return time.Duration(c.perf.Call("now").Float()*float64(time.Millisecond)) + timelineOffset
}

func (c perfClock) SleepUntil(ctx context.Context, t time.Duration) error {
	return timerSleep(ctx, c, t)
}
