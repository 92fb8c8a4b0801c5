package app

import (
	"cmp"

	"github.com/duplexscope/duplexscope/chart"
	"github.com/duplexscope/duplexscope/metrics/turntaking"
	"github.com/duplexscope/duplexscope/session"
	"github.com/duplexscope/duplexscope/session/tracker"
	"github.com/duplexscope/duplexscope/trace"
	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

// onSnapshot takes the session worker's tracker snapshot (its "snapshot"
// message): the page draws the worker's session without reading its wire.
func (r *liveRun) onSnapshot(d tracker.Delta) {
	r.mu.Lock()
	m := r.wire.Merge(d)
	for _, rs := range m.FirstAudio {
		r.probeCreatedLocked(cmp.Or(rs.CreatedMs, rs.FirstAudioMs))
	}
	r.mu.Unlock()
	r.maybePublish(m.Boundary)
}

// onMedia takes what the worker decoded of a received event for the page:
// model audio it played (replay, the report) and the turn-taking inputs.
func (r *liveRun) onMedia(in turntaking.Input, played []byte) {
	if played != nil {
		r.mu.Lock()
		r.audio[in.ResponseID] = append(r.audio[in.ResponseID], timedPCM{TMs: in.TMs, PCM: played})
		r.mu.Unlock()
	}
	if in.Kind != "" {
		r.ttMu.Lock()
		r.ttRec.AddInput(in)
		r.ttMu.Unlock()
	}
}

// onState follows the session lifecycle.
func (r *liveRun) onState(st session.State, err error) {
	if st == session.StateFailed && err != nil {
		r.mu.Lock()
		if r.err == nil {
			r.err = err
		}
		r.mu.Unlock()
		r.stop()
	}
}

// onEvent gets every wire-log entry (observer goroutine).
func (r *liveRun) onEvent(ev trace.Event, rx *session.Received) {
	// The turn-taking channels take the session's decode of what arrived
	// (as the session worker's do); sent audio from the append itself.
	r.ttMu.Lock()
	if rx != nil {
		r.ttRec.AddInput(tracker.TurnInput(ev.TMs, rx))
	} else {
		r.ttRec.Add(ev)
	}
	r.ttMu.Unlock()
	r.mu.Lock()
	u := r.tracker.Add(ev, rx)
	r.wire.Merge(r.tracker.Delta(false)) // O(change); the metrics come when a snapshot is drawn
	if !u.OK {
		r.mu.Unlock()
		return
	}
	in := u.Received
	if u.Action == session.PlayPush {
		r.audio[in.ID] = append(r.audio[in.ID], timedPCM{TMs: ev.TMs, PCM: in.PCM()})
	}
	if u.FirstAudio {
		r.probeCreatedLocked(u.CreatedMs)
	}
	g := r.graph
	if r.worker != nil {
		g = nil // the session worker feeds the player itself
	}
	r.mu.Unlock()
	if g != nil {
		switch u.Action {
		case session.PlayPush:
			g.play(in.ID, in.PCM())
		case session.PlayClear:
			g.clear(in.ID)
		case session.PlayDone:
			g.done(in.ID)
		}
	}
	r.maybePublish(u.Boundary)
}

// playLocked returns id's playback state, creating it.
func (r *liveRun) playLocked(id string) *playState {
	p := r.play[id]
	if p == nil {
		p = &playState{}
		r.play[id] = p
	}
	return p
}

// respViewLocked is what the views and the report show of response id.
func (r *liveRun) respViewLocked(id string) respView {
	v := respView{ID: id}
	if rs := r.wire.Response(id); rs != nil {
		v.CreatedMs, v.Truncated, v.Transcript = rs.CreatedMs, rs.Truncated, rs.Transcript
	}
	if p := r.play[id]; p != nil {
		v.PlayStartMs, v.Underruns = p.StartMs, p.Under
	}
	return v
}

// onPlayback gets the playback worklet's messages (JS callback: no blocking).
// With the session in the worker, the worker gets the same messages and
// sends the acks and notes; the page only draws.
func (r *liveRun) onPlayback(m playbackMsg) {
	r.mu.Lock()
	s, ws := r.sess, r.worker
	var rs *playState
	if r.wire.Response(m.ID) != nil {
		rs = r.playLocked(m.ID)
	}
	ack, doAck := 0, false
	if rs != nil && ws == nil {
		ack, doAck = r.playAcks.Report(m.Type, m.ID, m.Played, 24000)
	}
	var note map[string]any
	switch m.Type {
	case "level":
		r.outLevel = m.RMS
	case "start":
		if rs != nil && rs.StartMs == 0 {
			rs.StartMs = m.PerfMs
			r.markers = append(r.markers, chart.Marker{TS: (m.PerfMs - r.wire.StreamStartMs()) / 1000, Kind: chart.MarkPlaybackStart, ResponseID: m.ID})
			note = map[string]any{"type": "duplexscope.playback", "event": "start", "response_id": m.ID, "played_at_ms": m.PerfMs, "clock": "playback"}
		}
	case "progress", "drained", "cleared":
		if rs != nil {
			rs.Played = m.Played
			ms := m.Played * 1000 / 24000
			if m.Type == "cleared" {
				note = map[string]any{"type": "duplexscope.playback", "event": "cleared", "response_id": m.ID, "played_ms": ms, "dropped_ms": m.Dropped * 1000 / 24000}
				r.probeStoppedLocked(m.ID, m.PerfMs, ms)
			}
			if m.Type == "drained" {
				rs.Drained = true
				r.probeDrainedLocked(m.ID)
			}
		}
	case "underrun":
		r.playbackUnder++
		if rs != nil {
			rs.Under++
		}
		note = map[string]any{"type": "duplexscope.playback", "event": "underrun", "response_id": m.ID, "count": m.Count}
	}
	r.mu.Unlock()
	if s != nil { // main thread: this page acks and notes
		if note != nil {
			_ = s.Note(note)
		}
		if doAck {
			select {
			case r.acks <- ackReq{id: m.ID, ms: ack}:
			default: // queue full: a later (cumulative) ack supersedes this one
			}
		}
	}
	if m.Type == "start" {
		r.maybePublish(true)
	}
}

// ackReq is one playback.ack to send.
type ackReq struct {
	id string
	ms int
}

// ackLoop sends playback acks in order, off the worklet callback.
func (r *liveRun) ackLoop(s *session.Session) {
	for {
		select {
		case <-r.ctx.Done():
			return
		case a := <-r.acks:
			_ = s.Played(r.ctx, a.id, a.ms)
		}
	}
}

// watchVisibility records whether the tab was hidden during the run.
func (r *liveRun) watchVisibility() {
	doc := app.Window().Get("document")
	r.visibilityFunc = app.FuncOf(func(app.Value, []app.Value) any {
		if doc.Get("hidden").Bool() {
			r.mu.Lock()
			if r.phase == phaseStreaming || r.phase == phaseFinishing {
				r.tabHidden = true
			}
			r.mu.Unlock()
		}
		return nil
	})
	doc.Call("addEventListener", "visibilitychange", r.visibilityFunc)
}
