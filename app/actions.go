package app

import (
	"context"
	"fmt"
	"sync"

	"github.com/duplexscope/duplexscope/session/probe"
	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

// Actions (go-app action names) and the states they set.
const (
	actionStart        = "/session/start"  // value: Settings
	actionStop         = "/session/stop"   //
	actionPlayMoment   = "/timeline/play"  // value: moment
	actionRetryPending = "/uploads/retry"  //
	actionProbe        = "/probe/inject"   // value: probe kind (string); a probe now
	stateLive          = "live"            // liveSnapshot
	statePending       = "pending-uploads" // string (human sentence)
)

// moment is a click on the timeline.
type moment struct {
	Lane int     // chart.LaneUser or chart.LaneModel
	TS   float64 // seconds since stream start
}

// runSlot holds the page's current run of one kind: the action handlers
// run on go-app's goroutines, so it is read and replaced under a lock.
type runSlot[R any] struct {
	mu  sync.Mutex
	cur *R
}

// get returns the current run, nil before the first.
func (s *runSlot[R]) get() *R {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cur
}

// replace makes next(old) the current run, atomically with the look at
// the old one; next returns nil to keep the old run. It returns the new
// run, or nil.
func (s *runSlot[R]) replace(next func(old *R) *R) *R {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := next(s.cur)
	if r != nil {
		s.cur = r
	}
	return r
}

// publisher returns the func a run posts its snapshots to, from its own
// goroutine. go-app's SetState is safe there (its states are locked) and
// hands each observer the value on the UI goroutine, so only the observers
// render. Wrapped in ctx.Dispatch, as it was, it also flagged ctx's
// component, which could render in the frame between the two dispatches
// with the old snapshot: at start-up that put a whole dashboard render
// before the first chart's draw (paired cold loads of ?demo=1: 28 ms
// sooner at the median with it gone, 28 of 40 rounds).
func publisher[T any](ctx app.Context, state string) func(*T) {
	return func(snap *T) {
		ctx.SetState(state, *snap)
	}
}

// The measure page's run and the load page's.
var (
	liveSlot runSlot[liveRun]
	loadSlot runSlot[loadRun]
)

func handleStart(ctx app.Context, a app.Action) {
	s, ok := a.Value.(Settings)
	if !ok {
		return
	}
	r := liveSlot.replace(func(old *liveRun) *liveRun {
		if old != nil && old.active() {
			return nil // one run at a time
		}
		if old != nil {
			old.release()
		}
		return newLiveRun(s, publisher[liveSnapshot](ctx, stateLive))
	})
	if r == nil {
		return
	}
	u := app.Window().URL()
	ctx.Async(func() { r.run(u.Host, u.Scheme == "https") })
}

func handleStop(ctx app.Context, a app.Action) {
	if r := liveSlot.get(); r != nil {
		r.stop()
	}
}

func handlePlayMoment(ctx app.Context, a app.Action) {
	m, ok := a.Value.(moment)
	if !ok {
		return
	}
	if r := liveSlot.get(); r != nil {
		r.playMoment(m)
	}
}

func handleRetryPending(ctx app.Context, a app.Action) {
	ctx.Async(func() {
		d, left, signIn := retryPending(context.Background())
		if d == 0 && left == 0 {
			return
		}
		msg := fmt.Sprintf("Delivered %d saved run(s) that had failed to upload.", d)
		switch {
		case left > 0 && signIn:
			msg = fmt.Sprintf("%d saved run(s) wait for sign-in: this archive needs sign-in to save; sign in at /signin (your runs are kept in this browser).", left)
			if d > 0 {
				msg = fmt.Sprintf("Delivered %d saved run(s); %s", d, msg)
			}
		case left > 0:
			msg += fmt.Sprintf(" %d still waiting (will retry on the next visit).", left)
		}
		ctx.Dispatch(func(ctx app.Context) { ctx.SetState(statePending, msg) })
	})
}

func handleProbe(ctx app.Context, a app.Action) {
	r := liveSlot.get()
	kind, _ := a.Value.(string)
	if _, ok := probeKinds[kind]; !ok {
		kind = probe.KindInterruption
	}
	if r != nil {
		ctx.Async(func() { r.injectProbe(kind) })
	}
}
