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
	var due string
	if len(r.probeSchedule) > 0 && r.sentMs >= r.probeSchedule[0].OffsetS*1000 {
		due, r.probeSchedule = r.probeSchedule[0].Kind, r.probeSchedule[1:]
	}
	notes := r.notes
	r.notes = nil
	s, ws := r.sess, r.worker
	ms := float64(len(f.PCM)) * 1000 / 32000
	r.framesSent++
	r.sentMs += ms
	r.inputPCM = append(r.inputPCM, f.PCM...)
	r.inLevel = f.RMS
	r.userLevels = append(r.userLevels, chart.Level{TS: (r.sentMs - ms) / 1000, Level: math.Min(1, f.RMS*4)})
	sent := r.sentMs
	dur := r.settings.DurationS
	clipDone := r.clipEnded && sent-r.clipEndSentMs >= clipTailMs
	r.mu.Unlock()
	for _, n := range notes {
		r.note(s, ws, n)
	}
	if due != "" {
		go r.injectProbe(due)
	}
	r.maybeScoreTT(sentAt)
	if (dur > 0 && sent >= dur*1000) || (dur <= 0 && clipDone) {
		r.stop()
	}
	r.maybePublish(false)
}

// clipTailMs of silence follows a clip so the server can answer its last turn.
const clipTailMs = 3000

// onFrame runs in the worklet's message callback: never block.
func (r *liveRun) onFrame(f inputFrame) {
	r.mu.Lock()
	var ready bool
	if r.clipMode {
		// Silence before the clip is not sent: the first append is the
		// clip's first frame, so stream ms = clip ms (labels, captions).
		// The clip is posted only once r.ready holds, so every frame from
		// its clip-start on is fresh; the audio-clock test below must not
		// judge them: ctxTime is the start of the render quantum that
		// completes a frame, so the first sample's estimate falls up to
		// one quantum (2.7 ms at 48 kHz) early — before readyCtxTime when
		// the clip starts in the quantum readyCtxTime was read in (≈ 1 run
		// in 150) — and dropping the clip's first frame moved every label
		// a frame (200 ms) off its audio.
		ready = r.ready && r.clipStarted && f.Seq >= r.clipStartSeq
	} else {
		ready = r.ready && f.CtxTime-float64(len(f.PCM))/32000 >= r.readyCtxTime
	}
	r.mu.Unlock()
	if !ready {
		return
	}
	select {
	case r.frames <- f:
	default:
		r.mu.Lock()
		r.framesDropped++
		r.mu.Unlock()
	}
}

func (r *liveRun) onClipStart(seq int) {
	r.mu.Lock()
	r.clipStarted, r.clipStartSeq = true, seq
	r.mu.Unlock()
}

func (r *liveRun) onClipEnd() {
	r.mu.Lock()
	if r.ready && !r.clipEnded {
		r.clipEnded = true
		r.clipEndSentMs = r.sentMs
	}
	r.mu.Unlock()
}

// stop ends input (Stop button, duration_s, end of clip); idempotent.
func (r *liveRun) stop() {
	r.life.stopOnce.Do(func() {
		r.mu.Lock()
		r.ready = false
		ws := r.worker
		r.mu.Unlock()
		if ws != nil {
			ws.StopInput()
		}
		close(r.life.stopped)
	})
}
