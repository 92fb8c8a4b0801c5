package app

import (
	"errors"
	"sync/atomic"
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
	in := viewInput{
		Phase: r.phase, Status: r.status, SessionID: r.sessionID,
		Resp: make(map[string]respView, len(r.resp)),
		User: r.userLevels, Model: r.modelLevels, Markers: r.markers, Captions: r.captions,
		InLevel: r.inLevel, OutLevel: r.outLevel, Share: r.share, SentS: r.sentMs / 1000,
		InputRate: r.inputRate, OutputRate: r.outputRate,
	}
	tab := shownTab()
	in.SkipTimeline = tab != "timeline" && r.final == nil
	in.SkipWaterfall = tab != "live" && r.final == nil
	if r.err != nil {
		in.Error = errorWords(r.err)
	}
	if r.final != nil {
		in.Result, in.Final = *r.final, true
	} else {
		in.Result = r.acc.Snapshot()
		c := in.Result.Counts
		if r.cache != nil && c.Accepted == r.cacheAccepted && len(r.resp) == r.cacheResp && r.cachePlayed == r.playedStarts() {
			// Nothing the charts show changed: reuse them (frames and
			// levels arrive five times a second; rebuilding every chart is
			// wasted main-thread work).
			in.Reuse = r.cache.snap
		} else {
			r.cacheAccepted, r.cacheResp, r.cachePlayed = c.Accepted, len(r.resp), r.playedStarts()
		}
	}
	for id, rs := range r.resp {
		in.Resp[id] = respView{ID: id, CreatedMs: rs.CreatedMs, PlayStartMs: rs.PlayStartMs,
			Underruns: rs.Underruns, Truncated: rs.Truncated, Transcript: rs.Transcript.String()}
	}
	p := pacingView{Frames: r.framesSent, Dropped: r.framesDropped, FrameMs: r.settings.FrameMs}
	if n := len(r.pacingLagMs); n > 0 {
		p.LastMs = r.pacingLagMs[n-1]
		for _, v := range r.pacingLagMs {
			p.MaxMs = max(p.MaxMs, v)
		}
		p.P99Ms = percentile99(r.pacingLagMs)
	}
	if r.result != nil {
		p.P99Ms, p.MaxMs = r.result.Pacing.P99Ms, r.result.Pacing.MaxMs
	}
	in.Pacing = p
	in.Warn = warnInput{
		TabHidden: r.tabHidden, PacingMaxMs: p.MaxMs, FrameMs: r.settings.FrameMs,
		InputRate: r.inputRate, OutputRate: r.outputRate, LegacyNames: r.legacySeen,
		FramesDropped: r.framesDropped, Incomplete: r.result != nil && r.result.Incomplete,
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
	rows := r.log.rows
	if len(rows) > 1000 {
		rows = rows[len(rows)-1000:]
	}
	in.Log = append([]logRow(nil), rows...)
	in.Probes = r.probeViewsLocked()
	in.TurnTaking = r.tt
	in.UserSpeech = r.userSpeech
	if r.labels != nil {
		in.TTLabelled = len(r.labels.Labels)
	}
	snap := buildView(in)
	var ae *actionError
	if errors.As(r.err, &ae) {
		snap.ErrorKind = ae.Kind
	}
	if r.final == nil && in.Reuse == nil {
		r.cache = &viewCache{snap: snap}
	}
	return snap
}

// viewCache is the last snapshot whose charts were built.
type viewCache struct {
	snap *liveSnapshot
}

// playedStarts counts responses whose playback started (heard chart input).
func (r *liveRun) playedStarts() int {
	n := 0
	for _, rs := range r.resp {
		if rs.PlayStartMs > 0 {
			n++
		}
	}
	return n
}
