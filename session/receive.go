package session

// The receive side: the read loop that only reads and stamps, the
// processing loop, and the state machine each decoded event advances.

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/duplexscope/duplexscope/protocol"
	"github.com/duplexscope/duplexscope/trace"
)

// readLoop only reads and stamps (the stamp is taken by the transport), so
// processing never delays the next receive stamp. The read error travels
// through the same queue, so it is seen after every message before it.
func (s *Session) readLoop(ctx context.Context) {
	defer close(s.readDone)
	defer close(s.msgs)
	for {
		m, err := s.conn.Read(ctx)
		s.msgs <- inMsg{m: m, err: err}
		if err != nil {
			return
		}
	}
}

func (s *Session) procLoop() {
	defer close(s.procDone)
	for in := range s.msgs {
		if in.err != nil {
			s.mu.Lock()
			s.readErr = in.err
			s.changedLocked()
			s.mu.Unlock()
			continue
		}
		s.handle(in.m)
	}
}

// handle logs one received message and updates the state machine. The
// one decode happens before the lock: a second of audio is tens of kB of
// JSON, and the send path must not wait for it.
func (s *Session) handle(m Message) {
	var (
		in inbound
		ok bool
	)
	if !m.Binary {
		in, ok = parseInbound(m.Data)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	defer s.changedLocked()
	s.handled++
	if m.Binary {
		s.warnings = append(s.warnings, fmt.Sprintf("ignored a binary frame of %d bytes", len(m.Data)))
		note, _ := json.Marshal(map[string]any{"type": "duplexscope.binary_frame", "bytes": len(m.Data)})
		s.appendLocked(trace.Event{TMs: durMs(m.At), Dir: trace.DirLocal, Event: note})
		return
	}
	raw := json.RawMessage(m.Data)
	// Unmarshal validated the whole message when it succeeded; a second
	// scan of every (audio-sized) message is only needed when it failed.
	if !ok && !json.Valid(m.Data) {
		raw, _ = json.Marshal(string(m.Data)) // kept as a JSON string: not an object, metrics skip it
		s.warnings = append(s.warnings, "received a frame that is not valid JSON")
	}
	var rx *Received
	if ok && len(s.disp.obs) > 0 {
		rx = in.received()
	}
	s.appendReceivedLocked(trace.Event{TMs: durMs(m.At), Dir: trace.DirRecv, Event: raw}, rx)
	s.lastRecv = m.At
	if !ok || in.Type == "" {
		return
	}
	if seq, isInt := in.seq(); isInt {
		if s.haveSeq && seq <= s.lastSeq {
			return // resume replay duplicate
		}
		s.lastSeq, s.haveSeq = seq, true
	}
	s.applyLocked(m, &in)
}

// applyLocked advances the state machine by one parsed event (handle
// logged it already); s.mu must be held.
func (s *Session) applyLocked(m Message, in *inbound) {
	id := in.responseID()
	switch in.Type {
	case protocol.TypeSessionCreated:
		if !s.created {
			s.created = true
			if in.Session != nil {
				s.id = in.Session.ID
				if s.id == "" {
					s.id = in.Session.SessionID
				}
				if c := in.Session.Capabilities; c != nil && c.ChunkPeriodMs != nil && *c.ChunkPeriodMs > 0 {
					s.chunkMs = *c.ChunkPeriodMs
					s.tickSeen = true
				}
			}
		}
	case protocol.TypeResponseCreated:
		if id != "" && s.resp[id] == nil {
			s.resp[id] = &respState{created: true}
			s.respOrder = append(s.respOrder, id)
		}
	case protocol.TypeResponseDone:
		r := s.resp[id]
		if r == nil || r.done {
			s.warnings = append(s.warnings, fmt.Sprintf("response.done for %q without an open response.created", id))
			if r == nil {
				break
			}
		}
		r.done = true
		s.player.end(m.At, id)
		if in.failed() {
			s.failLocked(&ResponseFailedError{ResponseID: id})
		}
		if s.committed && !r.openAtCommit && !in.cancelled() {
			s.decision = true
		}
	case protocol.TypeResponseListen:
		if s.committed && in.Response != nil && in.Response.Metadata != nil &&
			in.Response.Metadata.ModelListen && !in.Response.Metadata.Buffering {
			s.decision = true
		}
	case protocol.TypeResponseOutputAudioDelta, protocol.TypeLegacyAudioDelta:
		if in.Type == protocol.TypeLegacyAudioDelta && !s.warnedLegacy() {
			s.warnings = append(s.warnings, "legacy response.audio.delta received: played, not counted by metrics")
		}
		if r := in.rate(); r > 0 && in.Type == protocol.TypeResponseOutputAudioDelta {
			s.player.rate = r
		}
		if n := in.audioLen(); n > 0 && id != "" {
			s.player.add(m.At, id, n)
		}
	case protocol.TypeResponseOutputAudioDone, protocol.TypeLegacyAudioDone:
		s.player.end(m.At, id)
	case protocol.TypeOutputAudioBufferCleared:
		s.player.clear(m.At, id)
	case protocol.TypeInputAudioBufferCommitted:
		if !s.committed {
			s.committed = true
			for _, r := range s.resp {
				r.openAtCommit = !r.done
			}
		}
	case protocol.TypeError:
		code, typ, msg := in.errorInfo(m.Data)
		if tolerated(code) {
			s.warnings = append(s.warnings, fmt.Sprintf("tolerated server error %s: %s", code, msg))
			break
		}
		s.failLocked(&ServerError{Code: code, Type: typ, Message: msg})
	case protocol.TypeSessionClosed:
		if s.closeSent {
			s.closedOK = true
			break
		}
		s.failLocked(&UnexpectedCloseError{Type: in.Type, Reason: in.closeReason()})
	case protocol.TypeSessionExpired:
		s.failLocked(&UnexpectedCloseError{Type: in.Type, Reason: in.closeReason()})
	}
}
