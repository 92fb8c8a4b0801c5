//go:build !js

package sim

import (
	"fmt"
	"time"

	"github.com/duplexscope/duplexscope/protocol"
)

// turnClock counts what the input clock passes besides speech: the turn
// ends of a fixed schedule (turns_ms) or a period (period_ms), and the
// chunk-unit boundaries of listen beats.
type turnClock struct {
	schedule     []int // turns_ms, input-clock ms; replaces the period
	scheduled    int   // schedule entries reached
	periodMs     int64 // 0: no period
	nextPeriodMs int64
	unitMs       int64 // listen-beat unit (chunk_period_ms)
	beat         int64 // units counted
}

func newTurnClock(sc *Scenario) turnClock {
	return turnClock{schedule: sc.TurnsMs, periodMs: int64(sc.PeriodMs), nextPeriodMs: int64(sc.PeriodMs), unitMs: int64(sc.ChunkPeriodMs)}
}

// turnEnds returns how many turn ends the input clock reached at afterMs
// since the last call.
func (c *turnClock) turnEnds(afterMs int64) int {
	n := 0
	if len(c.schedule) > 0 {
		for c.scheduled < len(c.schedule) && int64(c.schedule[c.scheduled]) <= afterMs {
			c.scheduled++
			n++
		}
	} else if c.periodMs > 0 {
		for c.nextPeriodMs <= afterMs {
			c.nextPeriodMs += c.periodMs
			n++
		}
	}
	return n
}

// beats returns how many unit boundaries an append from beforeMs to
// afterMs crossed, each counted once.
func (c *turnClock) beats(beforeMs, afterMs int64) int {
	n := 0
	for c.beat = max(c.beat, beforeMs/c.unitMs); (c.beat+1)*c.unitMs <= afterMs; c.beat++ {
		n++
	}
	return n
}

// hear runs the turn detector over an append's samples (input clock
// beforeMs → afterMs, accepted at now): speech onsets and ends, a barge-in
// held back for backchannels, scheduled or periodic turn ends, listen beats.
func (e *engine) hear(now time.Duration, samples []int16, beforeMs, afterMs int64) {
	for _, v := range e.vad.feed(samples) {
		switch v.kind {
		case vadStart:
			e.onSpeechStart(now, v)
		case vadEnd:
			e.bargeArmed = false
			e.onSpeechEnd(now, v)
		}
	}
	if e.bargeArmed && e.vad.inSpeech && e.vad.spokenMs >= backchannelMs {
		e.bargeArmed = false
		if r := e.active; r != nil && r.kind == "speak" {
			e.cancel(now, r, "barge_in")
		}
	}
	for range e.turns.turnEnds(afterMs) {
		e.turnEnd(now)
	}
	if e.sc.ListenBeats {
		for range e.turns.beats(beforeMs, afterMs) {
			if e.active == nil && !e.pending {
				reason := "silence"
				if e.vad.inSpeech {
					reason = "speech"
				}
				e.listenBeat(now, reason)
			}
		}
	}
}

// onSpeechStart reports an onset (server VAD) and truncates a speaking
// response when barge-in truncates.
func (e *engine) onSpeechStart(now time.Duration, v vadEvent) {
	if e.serverVAD {
		e.speechItems++
		id := fmt.Sprintf("item_in_%s_%d", e.idHex[:8], e.speechItems)
		ms := int64(v.atMs)
		e.sendNow(now, func(t time.Duration) []byte {
			return e.emit(t, &protocol.SpeechEvent{ServerHeader: e.header(protocol.TypeInputAudioBufferSpeechStarted), AudioStartMs: &ms, ItemID: id}, "")
		})
	}
	if r := e.active; r != nil && r.kind == "speak" && e.sc.BargeIn == "truncate" {
		if e.cfg.behaviors[BehaviorIgnoresBackchannels] {
			e.bargeArmed = true // truncate only once the speech outlasts a backchannel
			return
		}
		e.cancel(now, r, "barge_in")
	}
}

// backchannelMs is the speech length below which a user turn counts as a
// backchannel for the ignores_backchannels behaviour (Full-Duplex-Bench: < 1 s).
const backchannelMs = 1000

// onSpeechEnd reports a speech end (server VAD) and ends the user turn,
// unless a fixed schedule decides turns or the turn was a backchannel the
// behaviour ignores.
func (e *engine) onSpeechEnd(now time.Duration, v vadEvent) {
	if e.serverVAD {
		ms := int64(v.atMs)
		e.sendNow(now, func(t time.Duration) []byte {
			return e.emit(t, &protocol.SpeechEvent{ServerHeader: e.header(protocol.TypeInputAudioBufferSpeechStopped), AudioEndMs: &ms}, "")
		})
	}
	if len(e.sc.TurnsMs) > 0 {
		return // fixed schedule decides turns
	}
	if e.cfg.behaviors[BehaviorIgnoresBackchannels] && v.spokenMs < backchannelMs {
		return
	}
	e.turnEnd(now)
}

// turnEnd answers a user turn now, or after the active response.
func (e *engine) turnEnd(now time.Duration) {
	if e.active != nil {
		e.pending = true
		return
	}
	e.startSpeak(now)
}

// listenBeat sends an id-less response.listen: the model keeps listening.
func (e *engine) listenBeat(now time.Duration, reason string) {
	e.sendNow(now, func(t time.Duration) []byte {
		ml, ep := true, 0
		return e.emit(t, &protocol.ResponseListen{ServerHeader: e.header(protocol.TypeResponseListen), SessionID: e.id, Epoch: &ep,
			Response: &protocol.ResponseObject{Object: "realtime.response", Status: "listening",
				Metadata: &protocol.ResponseMetadata{Reason: reason, ModelListen: &ml}}}, "")
	})
}
