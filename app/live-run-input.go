package app

import (
	"math"

	"github.com/duplexscope/duplexscope/chart"
	"github.com/duplexscope/duplexscope/metrics/turntaking"
)

// onSent follows a frame the worker sent (its "sent" message).
func (r *liveRun) onSent(f inputFrame, sentMs float64) {
	r.turns.addInput(turntaking.Input{TMs: sentMs, Kind: turntaking.InputUser, PCM: f.PCM, Rate: 16000})
	r.afterSendAt(f, sentMs)
}

// sendLoop forwards worklet frames to the session until stopped.
func (r *liveRun) sendLoop() {
	for {
		select {
		case <-r.life.stopped:
			return
		case <-r.ctx.Done():
			return
		case f := <-r.frames:
			if err := r.sess.SendFrame(r.ctx, f.PCM); err != nil {
				r.life.setErr(err, false)
				r.stop()
				return
			}
			r.afterSend(f)
		}
	}
}

func (r *liveRun) afterSend(f inputFrame) { r.afterSendAt(f, perfNow()) }

// afterSendAt is the page's bookkeeping of a sent frame (levels, probes,
// the input kept for the report, the end of input).
func (r *liveRun) afterSendAt(f inputFrame, sentAt float64) {
	r.mu.Lock()
	r.probeSentLocked(f.Seq, sentAt)
	due := r.probes.due(r.input.sentMs)
	notes := r.notes
	r.notes = nil
	s, ws := r.sess, r.worker
	ms := r.input.count(f)
	r.inputPCM = append(r.inputPCM, f.PCM...)
	r.inLevel = f.RMS
	r.userLevels = append(r.userLevels, chart.Level{TS: (r.input.sentMs - ms) / 1000, Level: math.Min(1, f.RMS*4)})
	done := r.input.done(r.settings.DurationS)
	r.mu.Unlock()
	for _, n := range notes {
		r.note(s, ws, n)
	}
	if due != "" {
		go r.injectProbe(due)
	}
	r.maybeScoreTT(sentAt)
	if done {
		r.stop()
	}
	r.maybePublish(false)
}

// onFrame runs in the worklet's message callback: never block.
func (r *liveRun) onFrame(f inputFrame) {
	r.mu.Lock()
	ok := r.input.admit(f)
	r.mu.Unlock()
	if !ok {
		return
	}
	select {
	case r.frames <- f:
	default:
		r.mu.Lock()
		r.input.dropped++
		r.mu.Unlock()
	}
}

func (r *liveRun) onClipStart(seq int) {
	r.mu.Lock()
	r.input.clipStart(seq)
	r.mu.Unlock()
}

func (r *liveRun) onClipEnd() {
	r.mu.Lock()
	r.input.clipEnd()
	r.mu.Unlock()
}

// stop ends input (Stop button, duration_s, end of clip); idempotent.
func (r *liveRun) stop() {
	r.life.stopOnce.Do(func() {
		r.mu.Lock()
		r.input.ready = false
		ws := r.worker
		r.mu.Unlock()
		if ws != nil {
			ws.StopInput()
		}
		close(r.life.stopped)
	})
}
