package app

import (
	"errors"
	"sync/atomic"

	"github.com/duplexscope/duplexscope/chart"
	"github.com/duplexscope/duplexscope/session/tracker"
)

// currentTab is the dashboard tab on screen (set on the UI goroutine, read
// by the run's goroutines to skip charts nobody sees).
var currentTab atomic.Value

func shownTab() string {
	t, _ := currentTab.Load().(string)
	return t
}

// snapshotLocked builds the views' snapshot; r.mu is held.
func (r *liveRun) snapshotLocked() *liveSnapshot {
	life := r.life.state()
	err := life.err
	played, outLevel := r.playback.started()
	in := viewInput{
		Phase: life.phase, Status: life.status, SessionID: r.sessionID,
		Resp: make(map[string]respView, len(r.wire.Order())),
		User: r.userLevels, Model: modelLevels(r.wire.Levels()), Markers: r.allMarkersLocked(), Captions: r.captionsLocked(),
		InLevel: r.inLevel, OutLevel: outLevel, Share: life.share, SentS: r.input.sentMs / 1000,
		InputRate: r.inputRate, OutputRate: r.outputRate,
	}
	tab := shownTab()
	in.SkipTimeline = tab != "timeline" && r.final == nil
	in.SkipWaterfall = tab != "live" && r.final == nil
	if err != nil {
		in.Error = errorWords(err)
	}
	if r.final != nil {
		in.Result, in.Final = *r.final, true
	} else {
		if r.worker == nil { // the session runs on this thread: bring its metrics up to date
			r.wire.Merge(r.tracker.Delta(true))
		}
		in.Result = r.wire.Result()
		in.Reuse = r.cache.reuse(viewKey{accepted: in.Result.Counts.Accepted, responses: len(r.wire.Order()), played: played})
	}
	for _, id := range r.wire.Order() {
		in.Resp[id] = r.respViewLocked(id)
	}
	p := pacingView{Frames: r.input.sent, Dropped: r.input.dropped, FrameMs: r.settings.FrameMs}
	if lags := r.wire.PacingLagsMs(); len(lags) > 0 {
		p.LastMs = lags[len(lags)-1]
		for _, v := range lags {
			p.MaxMs = max(p.MaxMs, v)
		}
		p.P99Ms = percentile99(lags)
	}
	if r.result != nil {
		p.P99Ms, p.MaxMs = r.result.Pacing.P99Ms, r.result.Pacing.MaxMs
	}
	in.Pacing = p
	in.Warn = warnInput{
		TabHidden: r.tabHidden, PacingMaxMs: p.MaxMs, FrameMs: r.settings.FrameMs,
		InputRate: r.inputRate, OutputRate: r.outputRate, LegacyNames: r.wire.Legacy(),
		FramesDropped: r.input.dropped, Incomplete: r.result != nil && r.result.Incomplete,
		FrameTick: r.tickWarn, StallMs: r.settings.StallMs, StallEveryMs: r.settings.StallEveryMs,
		WorkerFallback: r.workerFallback,
	}
	if r.cam != nil || r.clipVideo != nil {
		in.Camera = "Camera"
		if r.cam == nil {
			in.Camera = "Video clip"
		}
		if r.sess != nil {
			in.VideoFrames = r.sess.VideoFramesSent()
		}
	}
	in.Log = r.wire.LogRows(1000)
	in.Probes = r.probeViewsLocked()
	var labels *streamLabels
	labels, in.TurnTaking, in.UserSpeech = r.turns.current()
	if labels != nil {
		in.TTLabelled = len(labels.Labels)
	}
	snap := buildView(in)
	if ae, ok := errors.AsType[*actionError](err); ok {
		snap.ErrorKind = ae.Kind
	}
	if r.final == nil && in.Reuse == nil {
		r.cache.snap = snap
	}
	return snap
}

// viewCache is the last snapshot whose charts were built, and what they
// showed. Frames and levels arrive five times a second: rebuilding every
// chart for them is wasted main-thread work.
type viewCache struct {
	snap *liveSnapshot
	key  viewKey
}

// viewKey is what the charts are built from: accepted responses, responses
// seen, responses whose playback started.
type viewKey struct{ accepted, responses, played int }

// reuse returns the cached snapshot when its charts show k, else nil; k
// is then what the next snapshot kept is built from.
func (c *viewCache) reuse(k viewKey) *liveSnapshot {
	if c.snap != nil && c.key == k {
		return c.snap
	}
	c.key = k
	return nil
}

// allMarkersLocked is the model lane's marks: the wire's (tracker) and
// the page's own (probes, playback starts).
func (r *liveRun) allMarkersLocked() []chart.Marker {
	wire := r.wire.Marks()
	out := make([]chart.Marker, 0, len(wire)+len(r.markers))
	for _, m := range wire {
		out = append(out, chart.Marker{TS: m.TS, Kind: m.Kind, ResponseID: m.ResponseID})
	}
	return append(out, r.markers...)
}

// captionsLocked is a dataset's captions, then the model's.
func (r *liveRun) captionsLocked() []chart.Caption {
	model := r.wire.Captions()
	out := make([]chart.Caption, 0, len(r.userCaptions)+len(model))
	out = append(out, r.userCaptions...)
	for _, c := range model {
		out = append(out, chart.Caption{TS: c.TS, Lane: chart.LaneModel, Text: c.Text})
	}
	return out
}

// modelLevels converts the tracker's levels for the timeline.
func modelLevels(in []tracker.Level) []chart.Level {
	out := make([]chart.Level, len(in))
	for i, l := range in {
		out[i] = chart.Level{TS: l.TS, Level: l.Level}
	}
	return out
}

// publishEveryMs spaces routine view updates (levels, pacing, log); new
// rows and phase changes publish at once. Every update costs main-thread
// time, which delays the receive stamps taken in onmessage.
const publishEveryMs = 500

// maybePublish sends a snapshot to the page at most every publishEveryMs
// unless forced (response done, first audio, phase change).
func (r *liveRun) maybePublish(force bool) {
	now := perfNow()
	r.mu.Lock()
	if !force && now-r.lastPublishMs < publishEveryMs {
		r.mu.Unlock()
		return
	}
	if phase := r.life.state().phase; r.worker == nil && r.awaitingAudioLocked(now) && phase == phaseStreaming {
		// A response was created and its first audio is due: keep the main
		// thread free so onmessage stamps that audio on time (a redraw here
		// would delay the receive stamp and shorten the measured interval).
		// A session in the worker is stamped there: draw at will.
		r.mu.Unlock()
		return
	}
	r.lastPublishMs = now
	snap := r.snapshotLocked()
	r.mu.Unlock()
	if r.publish != nil {
		r.publish(snap)
	}
}

// quietWindowMs bounds how long publishing waits for a first audio packet.
const quietWindowMs = 1500

// awaitingAudioLocked reports whether a response created less than
// quietWindowMs ago has no audio yet.
func (r *liveRun) awaitingAudioLocked(now float64) bool {
	order := r.wire.Order()
	for i := len(order) - 1; i >= 0 && i >= len(order)-3; i-- {
		rs := r.wire.Response(order[i])
		if rs.CreatedMs > 0 && rs.FirstAudioMs == 0 && !rs.Done && now-rs.CreatedMs < quietWindowMs {
			return true
		}
	}
	return false
}
