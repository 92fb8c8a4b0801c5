//go:build !js

package sim

import "math"

// vadFrameMs is the detector's analysis frame.
const vadFrameMs = 20

// vad is an energy detector on the 16 kHz input: a 20 ms frame is speech
// when its RMS is at least VAD.ThresholdDBFS; MinSpeechMs of consecutive
// speech starts a user turn, SilenceMs of consecutive silence ends it, and
// MaxTurnMs ends an over-long turn (the detector then waits for the next
// speech onset).
type vad struct {
	cfg      VAD
	rate     int
	buf      []int16 // partial frame
	inSpeech bool
	speechMs int // consecutive speech (before onset) or speech in turn
	silentMs int
	turnMs   int // ms since onset
	clockMs  int // input ms analysed
	startMs  int // onset of the current turn, input clock
	spokenMs int // speech frames in the current turn
}

type vadEvent struct {
	kind     int // vadStart, vadEnd
	atMs     int // input clock of the onset / of the speech end
	spokenMs int // speech in the ended turn
}

const (
	vadStart = iota + 1
	vadEnd
)

// frameDBFS returns the RMS of s in dB re full scale (−inf for zeros).
func frameDBFS(s []int16) float64 {
	var sum float64
	for _, x := range s {
		f := float64(x) / 32768
		sum += f * f
	}
	if sum == 0 {
		return math.Inf(-1)
	}
	return 10 * math.Log10(sum/float64(len(s)))
}

// feed analyses samples and returns the turn events they complete.
func (v *vad) feed(samples []int16) []vadEvent {
	frame := v.rate * vadFrameMs / 1000
	var out []vadEvent
	v.buf = append(v.buf, samples...)
	for len(v.buf) >= frame {
		f := v.buf[:frame]
		v.buf = v.buf[frame:]
		v.clockMs += vadFrameMs
		speech := frameDBFS(f) >= v.cfg.ThresholdDBFS
		if !v.inSpeech {
			if speech {
				v.speechMs += vadFrameMs
			} else {
				v.speechMs = 0
			}
			if v.speechMs >= v.cfg.MinSpeechMs && v.speechMs > 0 {
				v.inSpeech = true
				v.startMs = v.clockMs - v.speechMs
				v.spokenMs, v.silentMs = v.speechMs, 0
				v.turnMs = v.speechMs
				out = append(out, vadEvent{kind: vadStart, atMs: v.startMs})
			}
			continue
		}
		v.turnMs += vadFrameMs
		if speech {
			v.silentMs = 0
			v.spokenMs += vadFrameMs
		} else {
			v.silentMs += vadFrameMs
		}
		long := v.cfg.MaxTurnMs > 0 && v.turnMs >= v.cfg.MaxTurnMs
		if v.silentMs >= v.cfg.SilenceMs || long {
			out = append(out, vadEvent{kind: vadEnd, atMs: v.clockMs - v.silentMs, spokenMs: v.spokenMs})
			v.inSpeech, v.speechMs, v.silentMs = false, 0, 0
		}
	}
	return out
}
