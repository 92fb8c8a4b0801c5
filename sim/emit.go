//go:build !js

package sim

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/duplexscope/duplexscope/protocol"
)

// header stamps a server event: a session-unique event_id and, under
// replayed_events, the next server_event_seq.
func (e *engine) header(typ string) protocol.ServerHeader {
	e.eventSeq++
	h := protocol.ServerHeader{Header: protocol.Header{Type: typ, EventID: fmt.Sprintf("event_%s%016x", e.idHex, e.eventSeq)}}
	if e.fault(FaultReplayedEvents) {
		e.replay.seq++
		h.ServerEventSeq = json.RawMessage(strconv.FormatInt(e.replay.seq, 10))
	}
	return h
}

// replayCount is how many recent frames replayed_events sends again.
const replayCount = 3

// replayLog is replayed_events' state: a resuming server numbers its events
// and, after a reconnect, sends the last ones again.
type replayLog struct {
	seq    int64      // server_event_seq of the last event
	recent []replayed // the last replayCount frames
	due    bool       // replay with the next frame kept (the current one)
}

type replayed struct {
	frame []byte
	ev    TruthEvent
}

// keep remembers a frame; when a replay is due it returns the frames to
// send again, oldest first.
func (l *replayLog) keep(r replayed) []replayed {
	l.recent = append(l.recent, r)
	if len(l.recent) > replayCount {
		l.recent = l.recent[1:]
	}
	if !l.due {
		return nil
	}
	l.due = false
	return l.recent
}

// remember keeps the last frames for replayed_events and, once the first
// response is done, queues them again with their original sequence numbers.
func (e *engine) remember(now time.Duration, frame []byte) {
	e.truth.mu.Lock()
	var last TruthEvent
	if n := len(e.truth.t.Events); n > 0 {
		last = e.truth.t.Events[n-1]
	}
	e.truth.mu.Unlock()
	for _, r := range e.replay.keep(replayed{frame: frame, ev: last}) {
		it := e.schedule(now, nil, false, func(t time.Duration) ([]byte, action) {
			ev := r.ev
			ev.TMs, ev.Replay = msOf(t), true
			e.truth.mu.Lock()
			e.truth.t.addEvent(ev)
			e.truth.mu.Unlock()
			return r.frame, actNone
		})
		it.replay = true
	}
}

// emit marshals ev and records it in the truth at now.
func (e *engine) emit(now time.Duration, ev protocol.Event, respID string) []byte {
	b, err := protocol.Marshal(ev)
	if err != nil {
		panic(fmt.Sprintf("sim: marshal %s: %v", ev.EventType(), err)) // our own types: cannot fail
	}
	e.truth.mu.Lock()
	e.truth.t.addEvent(TruthEvent{Type: ev.EventType(), ResponseID: respID, TMs: msOf(now)})
	e.truth.mu.Unlock()
	return b
}

// errorFrame renders an error in the nested shape, or the flat one under
// flat_error.
func (e *engine) errorFrame(now time.Duration, code, msg, clientEventID string) []byte {
	var ev *protocol.ErrorEvent
	if e.fault(FaultFlatError) {
		ev = protocol.NewFlatError(code, msg)
	} else {
		ev = protocol.NewError(code, msg, clientEventID)
	}
	ev.ServerHeader = e.header(protocol.TypeError)
	return e.emit(now, ev, "")
}

// sendNow schedules a frame due now, built at its emit time.
func (e *engine) sendNow(now time.Duration, build func(now time.Duration) []byte) {
	e.schedule(now, nil, false, func(t time.Duration) ([]byte, action) { return build(t), actNone })
}

// sendError schedules an error due now.
func (e *engine) sendError(now time.Duration, code, msg, clientEventID string) {
	e.sendNow(now, func(t time.Duration) []byte { return e.errorFrame(t, code, msg, clientEventID) })
}
