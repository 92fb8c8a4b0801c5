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

var (
	currentMu  sync.Mutex
	currentRun *liveRun
)

func handleStart(ctx app.Context, a app.Action) {
	s, ok := a.Value.(Settings)
	if !ok {
		return
	}
	currentMu.Lock()
	if currentRun != nil && currentRun.active() {
		currentMu.Unlock()
		return
	}
	if currentRun != nil {
		currentRun.release()
	}
	r := newLiveRun(s, func(snap *liveSnapshot) {
		ctx.Dispatch(func(ctx app.Context) { ctx.SetState(stateLive, *snap) })
	})
	currentRun = r
	currentMu.Unlock()
	u := app.Window().URL()
	ctx.Async(func() { r.run(u.Host, u.Scheme == "https") })
}

func handleStop(ctx app.Context, a app.Action) {
	currentMu.Lock()
	r := currentRun
	currentMu.Unlock()
	if r != nil {
		r.stop()
	}
}

func handlePlayMoment(ctx app.Context, a app.Action) {
	m, ok := a.Value.(moment)
	if !ok {
		return
	}
	currentMu.Lock()
	r := currentRun
	currentMu.Unlock()
	if r != nil {
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
	currentMu.Lock()
	r := currentRun
	currentMu.Unlock()
	kind, _ := a.Value.(string)
	if _, ok := probeKinds[kind]; !ok {
		kind = probe.KindInterruption
	}
	if r != nil {
		ctx.Async(func() { r.injectProbe(kind) })
	}
}
