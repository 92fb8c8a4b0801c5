package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/duplexscope/duplexscope/audio"
	"github.com/duplexscope/duplexscope/trace"
)

// pacingNote is the "local" wire-log entry recorded for every append.
type pacingNote struct {
	Type        string  `json:"type"` // "duplexscope.pacing"
	Frame       int     `json:"frame"`
	Bytes       int     `json:"bytes"`
	ScheduledMs float64 `json:"scheduled_ms"`
	LagMs       float64 `json:"lag_ms"`
}

// startStreamLocked marks stream start at the instant of the first append.
func (s *Session) startStreamLocked(at time.Duration) {
	if s.streamAt == nil {
		s.streamAt = &at
		// The metrics accumulator takes stream start from this entry
		// (metrics.LocalStreamStart); the trace meta carries it too.
		s.appendLocked(trace.Event{TMs: durMs(at), Dir: trace.DirLocal, Event: json.RawMessage(`{"type":"duplexscope.stream_start"}`)})
		s.disp.push(item{state: StateStreaming})
		s.state = StateStreaming
	}
}

// Stream sends pcm (16 kHz mono PCM16) in real time: Config.FrameMs chunks on
// an absolute schedule (chunk at byte offset off is due at stream start +
// off/32 000 s; the last chunk may be shorter), the final-commit tail rule
// applied first, playback acks after every append; then the final commit
// (or, with ServerVAD, 1.5 s of silence and no commit). It returns early with
// the session's error if the session fails.
func (s *Session) Stream(ctx context.Context, pcm []byte) error {
	if len(pcm) == 0 {
		return errors.New("session: empty input")
	}
	pcm = pcm[:len(pcm)&^1]
	if s.cfg.ServerVAD {
		pcm = append(append([]byte(nil), pcm...), make([]byte, 48000)...) // SERVER_VAD_TAIL_S = 1.5
	} else {
		pcm = ApplyTailRule(pcm, s.ChunkPeriodMs())
	}
	frame := audio.FrameBytes(audio.InputRate, s.cfg.FrameMs)
	var pacer Pacer
	for k, off := 0, 0; off < len(pcm); k++ {
		end := min(off+frame, len(pcm))
		var due, lag time.Duration
		if k > 0 {
			var err error
			due, lag, err = pacer.Wait(ctx, s.clock, s.cfg.Sleeper, off)
			if err != nil {
				return err
			}
		}
		if err := s.Err(); err != nil {
			return err
		}
		ev := appendEvent(pcm[off:end], end)
		s.attachVideo(ev)
		at, err := s.sendAt(ctx, ev, func(at time.Duration) {
			if k == 0 {
				s.startStreamLocked(at)
				pacer = Pacer{Start: at, Rate: audio.InputRate}
				due = at
			}
			lag = at - due
			s.lags = append(s.lags, lag)
			s.sentBytes = end
		})
		if err != nil {
			return s.errOr(err)
		}
		s.notePacing(k, end-off, due, at-due)
		if err := s.autoAck(ctx, false); err != nil {
			return s.errOr(err)
		}
		off = end
	}
	return s.endStream(ctx)
}

func (s *Session) notePacing(k, n int, due, lag time.Duration) {
	b, _ := json.Marshal(pacingNote{Type: "duplexscope.pacing", Frame: k, Bytes: n, ScheduledMs: durMs(due), LagMs: durMs(lag)})
	s.mu.Lock()
	s.appendLocked(trace.Event{TMs: durMs(due + lag), Dir: trace.DirLocal, Event: b})
	s.mu.Unlock()
}

// errOr prefers the session's own error (the cause) over a write error. A
// failed write usually means the socket went away: the receive side is given
// a moment to deliver what explains it (an error event, session.closed, the
// close frame) before the write error is reported as a transport drop.
func (s *Session) errOr(err error) error {
	if se := s.Err(); se != nil {
		return se
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = s.waitFor(ctx, func() bool { return s.fatal != nil || s.readErr != nil })
	if se := s.Err(); se != nil {
		return se
	}
	return fmt.Errorf("%w: %v", ErrTransportDropped, err)
}

// SendFrame sends one externally clocked input frame (the browser's
// AudioWorklet delivers them on the audio clock; no Go timer is involved).
// The first call sets stream start. To apply the final-commit tail rule
// without knowing the stream's length, the last sample of the stream so far
// is held back and sent with the next frame (Commit drops it when the total
// is a whole number of model units, else sends it). Pacing lag is recorded
// against the ideal schedule stream start + bytes/32 000 s.
func (s *Session) SendFrame(ctx context.Context, pcm []byte) error {
	if err := s.Err(); err != nil {
		return err
	}
	pcm = pcm[:len(pcm)&^1]
	s.mu.Lock()
	buf := append(append([]byte(nil), s.holdback...), pcm...)
	if len(buf) < 2 {
		s.holdback = buf
		s.mu.Unlock()
		return nil
	}
	s.holdback = append(s.holdback[:0], buf[len(buf)-2:]...)
	chunk := buf[:len(buf)-2]
	start := s.sentBytes
	s.mu.Unlock()
	if len(chunk) == 0 {
		return nil
	}
	var due, lag time.Duration
	k := 0
	ev := appendEvent(chunk, start+len(chunk))
	s.attachVideo(ev)
	at, err := s.sendAt(ctx, ev, func(at time.Duration) {
		s.startStreamLocked(at)
		due = *s.streamAt + audio.BytesToDuration(start, audio.InputRate)
		lag = at - due
		k = len(s.lags)
		s.lags = append(s.lags, lag)
		s.sentBytes = start + len(chunk)
	})
	if err != nil {
		return s.errOr(err)
	}
	s.notePacing(k, len(chunk), due, at-due)
	if !s.cfg.ExternalPlayback {
		return s.autoAck(ctx, false)
	}
	return nil
}

// Commit ends an externally clocked stream: the held-back sample is sent
// unless the tail rule drops it, then the final commit (none with ServerVAD,
// which appends 1.5 s of silence instead).
func (s *Session) Commit(ctx context.Context) error {
	s.mu.Lock()
	hold := s.holdback
	s.holdback = nil
	total := s.sentBytes + len(hold)
	unit := tailUnitBytes(s.chunkMs)
	start := s.sentBytes
	s.mu.Unlock()
	tail := hold
	if s.cfg.ServerVAD {
		tail = append(append([]byte(nil), hold...), make([]byte, 48000)...)
	} else if total%unit == 0 {
		tail = nil // the tail rule: drop the last sample of a whole number of units
	}
	if len(tail) > 0 {
		ev := appendEvent(tail, start+len(tail))
		s.attachVideo(ev)
		if _, err := s.sendAt(ctx, ev, func(at time.Duration) {
			s.startStreamLocked(at)
			s.sentBytes = start + len(tail)
		}); err != nil {
			return s.errOr(err)
		}
	}
	return s.endStream(ctx)
}

// endStream marks the input finished and sends the final commit (none with
// ServerVAD: its silence tail lets the server's VAD end the turn).
func (s *Session) endStream(ctx context.Context) error {
	s.mu.Lock()
	s.streamDone = true
	s.mu.Unlock()
	if s.cfg.ServerVAD {
		return nil
	}
	return s.commit(ctx)
}

func (s *Session) commit(ctx context.Context) error {
	s.mu.Lock()
	if s.commitSent {
		s.mu.Unlock()
		return errors.New("session: final commit already sent")
	}
	s.commitSent = true
	s.mu.Unlock()
	if err := s.send(ctx, commitEvent()); err != nil {
		return s.errOr(err)
	}
	s.setState(StateCommitted, nil)
	return nil
}

// autoAck sends the simulated playback clock's due acks (headless mode).
func (s *Session) autoAck(ctx context.Context, final bool) error {
	if s.cfg.ExternalPlayback {
		return nil
	}
	s.mu.Lock()
	acks := s.player.acks(s.clock.Now(), final)
	s.mu.Unlock()
	for _, a := range acks {
		if err := s.send(ctx, ackEvent(a.id, a.playedMs)); err != nil {
			return err
		}
	}
	return nil
}

// Played reports real playback progress of a response (browser: frames the
// playback worklet actually rendered, in ms, cumulative) and sends the
// playback.ack. Negative values are rejected.
func (s *Session) Played(ctx context.Context, responseID string, playedMs int) error {
	if playedMs < 0 {
		return fmt.Errorf("session: negative played_ms %d", playedMs)
	}
	return s.send(ctx, ackEvent(responseID, playedMs))
}

// Complete reports whether the completion rule holds now (docs/protocol.md#completion-rule):
// model-native — committed event received, every response.created has its
// response.done, a post-commit decision seen, and no event for Settle;
// server VAD — the stream ended, no response open, and no event for Settle.
func (s *Session) Complete() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.completeLocked(s.clock.Now())
}

func (s *Session) completeLocked(now time.Duration) bool {
	for _, id := range s.respOrder {
		if !s.resp[id].done {
			return false
		}
	}
	if now-s.lastRecv < s.cfg.Settle {
		return false
	}
	if s.cfg.ServerVAD {
		return s.streamDone
	}
	return s.committed && s.decision
}

// Wait polls (every PollInterval on the session clock, sending due playback
// acks) until the completion rule holds, the session fails, or
// CompletionTimeout passes (ErrCompletionTimeout).
func (s *Session) Wait(ctx context.Context) error {
	deadline := s.clock.Now() + s.cfg.CompletionTimeout
	for {
		if err := s.Err(); err != nil {
			return err
		}
		if err := s.autoAck(ctx, false); err != nil {
			return s.errOr(err)
		}
		now := s.clock.Now()
		if s.Complete() {
			return nil
		}
		if now >= deadline {
			return fmt.Errorf("session %s: %w (%v): %s", s.ID(), ErrCompletionTimeout, s.cfg.CompletionTimeout, s.pending())
		}
		if err := s.cfg.Sleeper.SleepUntil(ctx, now+s.cfg.PollInterval); err != nil {
			return err
		}
	}
}

// pending describes what the completion rule still waits for.
func (s *Session) pending() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var open []string
	for _, id := range s.respOrder {
		if !s.resp[id].done {
			open = append(open, id)
		}
	}
	var why []string
	if len(open) > 0 {
		why = append(why, fmt.Sprintf("responses without response.done: %s", strings.Join(open, ", ")))
	}
	if !s.cfg.ServerVAD && !s.committed {
		why = append(why, "no input_audio_buffer.committed")
	}
	if !s.cfg.ServerVAD && s.committed && !s.decision {
		why = append(why, "no post-commit decision (response.done or model listen)")
	}
	if len(why) == 0 {
		why = append(why, "events kept arriving within the settle time")
	}
	return strings.Join(why, "; ")
}

// Close ends the session: final playback acks, session.close (best-effort
// even after an error), a wait of up to CloseTimeout for session.closed, the
// websocket close (1000), and the end of the session's goroutines. The
// Result holds the wire log; its Err is the session's first error (also
// returned). Close is idempotent.
func (s *Session) Close(ctx context.Context) (*Result, error) {
	s.closeMu.Lock()
	defer s.closeMu.Unlock()
	s.mu.Lock()
	if s.result != nil {
		r := s.result
		s.mu.Unlock()
		return r, r.Err
	}
	healthy := s.errLocked() == nil
	s.mu.Unlock()
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.cfg.CloseTimeout)
	defer cancel()
	if healthy {
		_ = s.autoAck(cctx, true)
	}
	s.mu.Lock()
	s.closeSent = true
	dropped := s.readErr != nil
	s.mu.Unlock()
	s.setState(StateClosing, nil)
	if !dropped {
		if err := s.send(cctx, closeEvent()); err == nil {
			_ = s.waitFor(cctx, func() bool { return s.closedOK || s.readErr != nil })
		}
	}
	s.mu.Lock()
	err := s.errLocked()
	if err == nil && !s.closedOK {
		s.warnings = append(s.warnings, "no session.closed after session.close")
	}
	s.closed = true
	s.mu.Unlock()
	_ = s.conn.Close(1000, "client stop")
	s.cancel()
	<-s.readDone
	<-s.procDone
	s.mu.Lock()
	wireLog := s.traceLocked()
	res := &Result{
		SessionID: s.id, Trace: wireLog, PacingLag: append([]time.Duration(nil), s.lags...),
		Pacing: SummarizeLag(s.lags), Incomplete: err != nil, Warnings: append([]string(nil), s.warnings...), Err: err,
	}
	s.result = res
	s.mu.Unlock()
	if err != nil {
		s.setState(StateFailed, err)
	} else {
		s.setState(StateDone, nil)
	}
	s.disp.close()
	return res, err
}

// Fail marks the session failed with err (e.g. the caller's own timeout);
// the wire log is then flagged incomplete.
func (s *Session) Fail(err error) {
	s.mu.Lock()
	s.failLocked(err)
	s.changedLocked()
	s.mu.Unlock()
}

// Run is the headless flow: Dial, Stream pcm, Wait for completion, Close.
// A non-nil Result is returned whenever the session opened, with the wire
// log so far and Incomplete set on failure.
func Run(ctx context.Context, cfg *Config, pcm []byte) (*Result, error) {
	s, err := Dial(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if err := s.Stream(ctx, pcm); err != nil {
		s.Fail(err)
	} else if err := s.Wait(ctx); err != nil {
		s.Fail(err)
	}
	return s.Close(ctx)
}
