//go:build !js

package sim

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/duplexscope/duplexscope/protocol"
)

// handle processes one client text frame accepted at now. It returns how
// long the reader must stop reading (stalled_reader), usually 0.
func (e *engine) handle(now time.Duration, data []byte) time.Duration {
	if e.state == stClosed || e.closing {
		return 0
	}
	e.lastInput = now
	ev, err := protocol.Decode(data)
	if err != nil {
		code := protocol.CodeInvalidJSON
		var de *protocol.DecodeError
		if errors.As(err, &de) {
			code = protocol.CodeBadEvent
		}
		e.sendError(now, code, err.Error(), clientEventID(data))
		return 0
	}
	typ := protocol.ClientAlias(ev.EventType())
	if e.state == stAwaiting && typ != protocol.TypeSessionUpdate {
		e.sendError(now, protocol.CodeBadEvent, "the first message must be session.update, got "+ev.EventType(), clientEventID(data))
		return 0
	}
	if err := ev.Validate(); err != nil {
		e.sendError(now, protocol.CodeBadEvent, err.Error(), clientEventID(data))
		return 0
	}
	switch typ {
	case protocol.TypeSessionUpdate:
		e.onSessionUpdate(now, ev.(*protocol.SessionUpdate))
	case protocol.TypeInputAudioBufferAppend:
		e.onAppend(now, ev.(*protocol.InputAudioBufferAppend))
	case protocol.TypeInputAudioBufferCommit:
		e.onCommit(now, ev.(*protocol.InputAudioBufferCommit))
	case protocol.TypePlaybackAck:
		e.onAck(now, ev.(*protocol.PlaybackAck))
	case protocol.TypeSessionClose:
		e.onClose(now)
	case protocol.TypeSessionHeartbeat:
		e.sendNow(now, func(t time.Duration) []byte {
			return e.emit(t, &protocol.SessionStatus{ServerHeader: e.header(protocol.TypeSessionHeartbeatAck), SessionID: e.id}, "")
		})
	case protocol.TypeInputAudioBufferClear:
		e.sinceCommit = 0
		e.sendNow(now, func(t time.Duration) []byte {
			return e.emit(t, &protocol.SessionStatus{ServerHeader: e.header(protocol.TypeInputAudioBufferCleared)}, "")
		})
	case protocol.TypeResponseCancel, protocol.TypeOutputAudioBufferClear:
		if e.active == nil || e.active.kind != "speak" {
			e.sendError(now, protocol.CodeResponseNotActive, "no active response", clientEventID(data))
			break
		}
		e.cancel(now, e.active, "client_cancelled")
	case protocol.TypeResponseCreate:
		e.turnEnd(now)
	case protocol.TypeSessionResume:
		e.sendError(now, "unsupported_session_resume", "the simulator does not resume sessions", clientEventID(data))
	case protocol.TypeSessionEventAck, protocol.TypeConversationItemCreate, protocol.TypeConversationItemDelete, protocol.TypeConversationItemTrunc:
		// accepted, nothing to do
	default:
		e.sendError(now, protocol.CodeUnknownEvent, "unknown event type "+ev.EventType(), clientEventID(data))
	}
	stall := e.stall
	e.stall = 0
	return stall
}

// onClose drops every queued output: only session.closed follows.
func (e *engine) onClose(now time.Duration) {
	e.closing = true
	e.queue, e.active, e.pending = nil, nil, false
	e.schedule(now, nil, false, func(t time.Duration) ([]byte, action) {
		f := e.emit(t, &protocol.SessionClosed{ServerHeader: e.header(protocol.TypeSessionClosed), SessionID: e.id,
			Reason: protocol.ReasonClientClose, Event: &protocol.InternalEvent{Type: protocol.TypeSessionClosed}}, "")
		e.end(t, "client_close")
		e.state = stClosed
		return f, actClose
	})
}

// clientEventID reads a frame's event_id for error echoes, even from a
// frame that did not decode as an event.
func clientEventID(data []byte) string {
	var p struct {
		EventID json.RawMessage `json:"event_id"`
	}
	var s string
	if json.Unmarshal(data, &p) == nil && json.Unmarshal(p.EventID, &s) == nil {
		return s
	}
	return ""
}

// onSessionUpdate opens the session on the first session.update; a later
// one may not change what the session was opened with.
func (e *engine) onSessionUpdate(now time.Duration, ev *protocol.SessionUpdate) {
	c := ev.Session
	if e.handshaken {
		if code, msg := e.updateRefusal(c); code != "" {
			e.sendError(now, code, msg, ev.EventID)
		}
		return
	}
	if msg := audioFormatRefusal(c); msg != "" {
		e.sendError(now, protocol.CodeUnsupportedAudioFormat, msg, ev.EventID)
		return
	}
	e.applySession(c)
	e.handshaken = true
	e.state = stOpen
	at := now
	if e.fault(FaultSlowHandshake) {
		at = now + time.Duration(e.sc.HandshakeDelay)*time.Millisecond
		e.lastInput = at
	}
	voice := c.Voice
	if voice == "" {
		voice = "default"
	}
	e.schedule(at, nil, false, func(t time.Duration) ([]byte, action) {
		return e.emit(t, &protocol.SessionCreated{ServerHeader: e.header(protocol.TypeSessionCreated), Session: e.sessionInfo(voice, true)}, ""), actNone
	})
	e.schedule(at, nil, false, func(t time.Duration) ([]byte, action) {
		return e.emit(t, &protocol.SessionUpdated{ServerHeader: e.header(protocol.TypeSessionUpdated), Session: e.sessionInfo(voice, false)}, ""), actNone
	})
}

// updateRefusal returns the error code and message for a later
// session.update that changes an immutable field, or "" when it is
// accepted silently (session.updated is sent once), as the reference
// server does.
func (e *engine) updateRefusal(c *protocol.SessionConfig) (code, msg string) {
	switch {
	case c.Model != "" && c.Model != e.model:
		return "model_update_unsupported", "the model cannot change within a session"
	case c.RefAudio != "":
		return "ref_audio_update_unsupported", "ref_audio cannot change within a session"
	case c.Voice != "" && e.inBytes > 0:
		return "voice_update_after_audio_unsupported", "voice cannot change after audio was appended"
	}
	return "", ""
}

// audioFormatRefusal returns the unsupported_audio_format message for a
// session's formats and rates, or "" when the simulator can serve them.
func audioFormatRefusal(c *protocol.SessionConfig) string {
	if !protocol.IsPCM16Format(c.InputAudioFormat) {
		return "Unsupported input_audio_format: " + c.InputAudioFormat
	}
	if !protocol.IsPCM16Format(c.OutputAudioFormat) {
		return "Unsupported output_audio_format: " + c.OutputAudioFormat
	}
	if r := c.InputRateHz(); r != 0 && r != protocol.DefaultInputRateHz {
		return fmt.Sprintf("Unsupported input sample_rate_hz %d (16000 only)", r)
	}
	if r := c.OutputRateHz(); r != 0 && (r < 8000 || r > 48000) {
		return fmt.Sprintf("Unsupported output sample_rate_hz %d", r)
	}
	return ""
}

// applySession takes an accepted first session.update's settings.
func (e *engine) applySession(c *protocol.SessionConfig) {
	if r := c.OutputRateHz(); r != 0 {
		e.outRate = r
	}
	if c.Model != "" {
		e.model = c.Model
	}
	if c.IdleTimeoutS != nil && *c.IdleTimeoutS > 0 {
		e.idle = time.Duration(min(*c.IdleTimeoutS, MaxIdleTimeout.Seconds()) * float64(time.Second))
	}
	e.serverVAD = c.ServerVAD()
	switch e.sc.StageMetrics {
	case "always":
		e.stageMetrics = true
	case "never":
		e.stageMetrics = false
	default:
		e.stageMetrics = c.ExtraBody != nil && c.ExtraBody.ReturnStageMetrics != nil && *c.ExtraBody.ReturnStageMetrics
	}
}

// sessionInfo is the session object of session.created (full) and
// session.updated.
func (e *engine) sessionInfo(voice string, full bool) *protocol.SessionInfo {
	si := &protocol.SessionInfo{ID: e.id, Model: e.model, Voice: voice, InputAudioFormat: protocol.FormatPCM16, OutputAudioFormat: protocol.FormatPCM16}
	if full {
		chunk := e.sc.ChunkPeriodMs
		barge := e.sc.BargeIn == "truncate"
		t, f := true, false
		si.Object = "realtime.session"
		si.Modalities = []string{"audio", "text"}
		si.Capabilities = &protocol.Capabilities{ImplementationLevel: "model_native_duplex", SupportsBargeIn: &barge,
			SupportsPlaybackAck: &t, SupportsInputAppend: &t, SupportsSessionResume: &f, ChunkPeriodMs: &chunk,
			InputModes: []string{"append_audio_chunk"}}
	}
	return si
}

// inputMs is the input clock: decoded bytes at the input rate, never the
// client's duration_ms.
func (e *engine) inputMs() int64 { return e.inBytes * 1000 / int64(2*e.inRate) }

// onAppend takes an append's audio onto the input clock and lets the turn
// detector see it; a refused append (format, rate, payload, video) is not
// taken at all.
func (e *engine) onAppend(now time.Duration, ev *protocol.InputAudioBufferAppend) {
	samples, ok := e.decodeAppend(now, ev)
	if !ok || !e.checkVideo(now, ev) {
		return
	}
	before := e.inputMs()
	e.inBytes += int64(2 * len(samples))
	e.sinceCommit += int64(2 * len(samples))
	e.noteAppend(ev)
	e.hear(now, samples, before, e.inputMs())
}

// decodeAppend returns an append's PCM16 samples, or sends the error that
// refuses it.
func (e *engine) decodeAppend(now time.Duration, ev *protocol.InputAudioBufferAppend) ([]int16, bool) {
	if !protocol.IsPCM16Format(ev.AudioFormatName()) {
		e.sendError(now, protocol.CodeUnsupportedAudioFormat, "Unsupported input_audio_format: "+ev.AudioFormatName(), ev.EventID)
		return nil, false
	}
	if r := ev.RateHz(); r != 0 && r != e.inRate {
		e.sendError(now, protocol.CodeUnsupportedAudioFormat, fmt.Sprintf("Unsupported sample_rate_hz %d (session input is %d)", r, e.inRate), ev.EventID)
		return nil, false
	}
	b, err := protocol.DecodeAudioBase64(ev.Payload())
	if err != nil {
		e.sendError(now, protocol.CodeBadAudio, "input_audio_buffer.append: audio is not valid base64", ev.EventID)
		return nil, false
	}
	samples, err := protocol.PCM16Samples(b)
	if err != nil {
		e.sendError(now, protocol.CodeBadAudio, fmt.Sprintf("input_audio_buffer.append: %d bytes is not whole PCM16 samples", len(b)), ev.EventID)
		return nil, false
	}
	return samples, true
}

// onCommit acknowledges a commit and makes the final decision for the
// input so far.
func (e *engine) onCommit(now time.Duration, ev *protocol.InputAudioBufferCommit) {
	if e.sinceCommit == 0 {
		e.sendError(now, protocol.CodeInputAudioBufferEmpty, "input_audio_buffer.commit requires a non-empty input audio buffer", ev.EventID)
		return
	}
	e.sinceCommit = 0
	e.commitSeq++
	seq := e.commitSeq
	prev := e.lastItemID
	id := fmt.Sprintf("item_in_%s_c%d", e.idHex[:8], seq)
	e.lastItemID = &id
	var deferred *bool
	if e.active != nil {
		t := true
		deferred = &t
	}
	e.sendNow(now, func(t time.Duration) []byte {
		return e.emit(t, &protocol.InputAudioBufferCommitted{ServerHeader: e.header(protocol.TypeInputAudioBufferCommitted),
			PreviousItemID: prev, ItemID: id, Event: &protocol.CommitInfo{Type: "input.committed", InputCommitSeq: &seq, OverlapDeferred: deferred}}, "")
	})
	// Final decision: the residual unit is flushed; an unanswered user turn
	// (speech in progress, or pending behind the active response) or an
	// explicit response_create gets a spoken response, anything else a
	// terminal listen.
	speak := e.vad.inSpeech || e.pending || (ev.ResponseCreate != nil && *ev.ResponseCreate)
	if e.vad.inSpeech {
		e.vad.inSpeech, e.vad.speechMs, e.vad.silentMs = false, 0, 0
	}
	switch {
	case speak && e.active != nil:
		e.pending = true
	case speak:
		e.startSpeak(now)
	case e.active != nil:
		e.pending = false
		e.startListen(now) // a decision that does not wait for the open response
	default:
		e.startListen(now)
	}
}

// onAck acknowledges a playback.ack for a known response.
func (e *engine) onAck(now time.Duration, ev *protocol.PlaybackAck) {
	r, ok := e.responses[ev.ResponseID]
	if !ok {
		e.sendError(now, protocol.CodePlaybackItemNotFound, "playback.ack for unknown response "+ev.ResponseID, ev.EventID)
		return
	}
	played := *ev.PlayedMs
	committed := played
	if ev.CommittedMs != nil {
		committed = *ev.CommittedMs
	}
	t := true
	rid := r.id
	e.sendNow(now, func(tt time.Duration) []byte {
		return e.emit(tt, &protocol.PlaybackAcknowledged{ServerHeader: e.header(protocol.TypePlaybackAcknowledged),
			Event: &protocol.PlaybackAckInfo{Type: protocol.TypePlaybackAck, ResponseID: rid, PlayedMs: &played, CommittedMs: &committed, HistoryCommitted: &t}}, "")
	})
}
