package app

// inputGate decides which captured frames a live run sends and when its
// input ends, and counts what went. The run's lock (liveRun.mu) guards it.
type inputGate struct {
	ready        bool    // the session takes input (false again once stopped)
	readyCtxTime float64 // input AudioContext time when the session opened (mic)
	clipMode     bool    // streaming a clip (dataset, dropped WAV), not the mic
	clipStarted  bool
	clipStartSeq int // first frame of the clip (frames before it are not sent)
	clipEnded    bool
	clipEndMs    float64 // sentMs when the clip ended
	sentMs       float64 // input sent so far, by its length
	sent         int     // frames sent
	dropped      int     // frames the send queue had no room for
}

// clipTailMs of silence follows a clip so the server can answer its last turn.
const clipTailMs = 3000

// admit reports whether frame f is to be sent.
func (g *inputGate) admit(f inputFrame) bool {
	if g.clipMode {
		// Silence before the clip is not sent: the first append is the
		// clip's first frame, so stream ms = clip ms (labels, captions).
		// The clip is posted only once ready holds, so every frame from
		// its clip-start on is fresh; the audio-clock test below must not
		// judge them: ctxTime is the start of the render quantum that
		// completes a frame, so the first sample's estimate falls up to
		// one quantum (2.7 ms at 48 kHz) early — before readyCtxTime when
		// the clip starts in the quantum readyCtxTime was read in (≈ 1 run
		// in 150) — and dropping the clip's first frame moved every label
		// a frame (200 ms) off its audio.
		return g.ready && g.clipStarted && f.Seq >= g.clipStartSeq
	}
	// Mic: frames captured before the session opened (queued in the
	// worklet's port while it dialed) are not sent, so the first append is
	// not already late.
	return g.ready && f.CtxTime-float64(len(f.PCM))/32000 >= g.readyCtxTime
}

func (g *inputGate) clipStart(seq int) { g.clipStarted, g.clipStartSeq = true, seq }

func (g *inputGate) clipEnd() {
	if g.ready && !g.clipEnded {
		g.clipEnded, g.clipEndMs = true, g.sentMs
	}
}

// count adds a sent frame; ms is its length.
func (g *inputGate) count(f inputFrame) (ms float64) {
	ms = float64(len(f.PCM)) * 1000 / 32000
	g.sent++
	g.sentMs += ms
	return ms
}

// done reports whether input is over: durationS of it sent, or (no
// duration) the clip's tail of silence after its end.
func (g *inputGate) done(durationS float64) bool {
	if durationS > 0 {
		return g.sentMs >= durationS*1000
	}
	return g.clipEnded && g.sentMs-g.clipEndMs >= clipTailMs
}
