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
func (r *liveRun) onSnapshot(d tracker.Delta) (lost bool) {
	r.mu.Lock()
	m := r.wire.Merge(d)
	for _, rs := range m.FirstAudio {
		r.probes.created(cmp.Or(rs.CreatedMs, rs.FirstAudioMs))
	}
	r.mu.Unlock()
	r.maybePublish(m.Boundary)
	return m.Lost
}

// onMedia takes what the worker decoded of a received event for the page:
// model audio it played (replay, the report) and the turn-taking inputs.
func (r *liveRun) onMedia(in turntaking.Input, played []byte) {
	if played != nil { // the worker played it: kept here, not queued
		r.playback.route(nil, session.PlayPush, in.ResponseID, in.TMs, played)
	}
	if in.Kind != "" {
		r.turns.addInput(in)
	}
}

// onState follows the session lifecycle.
func (r *liveRun) onState(st session.State, err error) {
	if st == session.StateFailed && err != nil {
		r.life.setErr(err, true)
		r.stop()
	}
}

// onEvent gets every wire-log entry (observer goroutine).
func (r *liveRun) onEvent(ev trace.Event, rx *session.Received) {
	// The turn-taking channels take the session's decode of what arrived
	// (as the session worker's do); sent audio from the append itself.
	r.turns.addEvent(ev, rx)
	r.mu.Lock()
	u := r.tracker.Add(ev, rx)
	r.wire.Merge(r.tracker.Delta(false)) // O(change); the metrics come when a snapshot is drawn
	if !u.OK {
		r.mu.Unlock()
		return
	}
	if u.FirstAudio {
		r.probes.created(u.CreatedMs)
	}
	var to player
	if r.graph != nil && r.worker == nil { // the session worker feeds the player itself
		to = r.graph
	}
	r.mu.Unlock()
	in := u.Received
	var pcm []byte
	if u.Action == session.PlayPush {
		pcm = in.PCM()
	}
	r.playback.route(to, u.Action, in.ID, ev.TMs, pcm)
	r.maybePublish(u.Boundary)
}

// respViewLocked is what the views and the report show of response id.
func (r *liveRun) respViewLocked(id string) respView {
	v := respView{ID: id}
	if rs := r.wire.Response(id); rs != nil {
		v.CreatedMs, v.Truncated, v.Transcript = rs.CreatedMs, rs.Truncated, rs.Transcript
	}
	v.PlayStartMs, v.Underruns, _ = r.playback.heard(id)
	return v
}

// onPlayback gets the playback worklet's messages (JS callback: no blocking).
// With the session in the worker, the worker gets the same messages and
// sends the acks and notes; the page only draws.
func (r *liveRun) onPlayback(m playbackMsg) {
	r.mu.Lock()
	s, ws := r.sess, r.worker
	out := r.playback.report(m, r.wire.Response(m.ID) != nil, ws == nil)
	switch {
	case out.started:
		r.markers = append(r.markers, chart.Marker{TS: (m.PerfMs - r.wire.StreamStartMs()) / 1000, Kind: chart.MarkPlaybackStart, ResponseID: m.ID})
	case out.cleared:
		r.probeStoppedLocked(m.ID, m.PerfMs, out.playedMs)
	case out.drained:
		r.probes.drained(m.ID)
	}
	r.mu.Unlock()
	if s != nil { // main thread: this page acks and notes
		if out.note != nil {
			_ = s.Note(out.note)
		}
		if out.doAck {
			r.playback.ackQueue.Queue(m.ID, out.ack)
		}
	}
	if m.Type == "start" {
		r.maybePublish(true)
	}
}

// watchVisibility records whether the tab was hidden during the run.
func (r *liveRun) watchVisibility() {
	doc := app.Window().Get("document")
	r.visibilityFunc = app.FuncOf(func(app.Value, []app.Value) any {
		if doc.Get("hidden").Bool() {
			if phase := r.life.state().phase; phase == phaseStreaming || phase == phaseFinishing {
				r.mu.Lock()
				r.tabHidden = true
				r.mu.Unlock()
			}
		}
		return nil
	})
	doc.Call("addEventListener", "visibilitychange", r.visibilityFunc)
}
