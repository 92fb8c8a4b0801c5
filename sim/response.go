//go:build !js

package sim

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/duplexscope/duplexscope/metrics"
	"github.com/duplexscope/duplexscope/protocol"
)

// BurstDelay is how long after the last packet's normal time the
// delayed_burst fault sends the held-back audio of a response.
const BurstDelay = time.Second

type responseState int

const (
	responseActive responseState = iota
	responseDone
	responseCancelled
)

// response is one model decision: a spoken answer (audio packets with a
// transcript) or a listen.
type response struct {
	id, itemID       string
	idx              int
	kind             string // "speak" | "listen"
	start            time.Duration
	state            responseState
	voice            *voice
	samples          int // total audio samples to generate
	generatedSamples int // generated (incl. dropped)
	sentBytes        int64
	packets          int
	text             transcript
	tokens           []int      // per output, the first tokenAhead
	tokenRand        *rand.Rand // draws the token counts after tokenAhead
	seqBase          int        // packet k's items have seq seqBase+2k+1, +2k+2
	timing           speakTiming
	outputs          []metrics.EngineOutput
	ttftMs           *float64
	ttfpMs           *float64
	tpotMs           *float64
}

// ref locates r's one content part (output 0, content 0), as its output
// events carry it.
func (r *response) ref() protocol.ContentRef {
	zero := 0
	return protocol.ContentRef{ResponseID: r.id, ItemID: r.itemID, OutputIndex: &zero, ContentIndex: &zero}
}

// transcript is a spoken response's words, sent in pieces.
type transcript struct {
	words    []string
	sent     int
	perPiece int // words per piece after an audio packet
}

// newTranscript spreads words over the opening piece and one piece per
// audio packet.
func newTranscript(words []string, packets int) transcript {
	return transcript{words: words, perPiece: (len(words) + packets) / (packets + 1)}
}

// next returns the next piece of n words (ok false when nothing goes now).
// Before the opening piece (first) only the opening or the last piece may
// go; the last piece carries every remaining word.
func (t *transcript) next(n int, opening, last, first bool) (string, bool) {
	if t.sent >= len(t.words) || (first && !opening && !last) {
		return "", false
	}
	end := min(len(t.words), t.sent+max(1, n))
	if last {
		end = len(t.words)
	}
	if end <= t.sent {
		return "", false
	}
	text := strings.Join(t.words[t.sent:end], " ")
	if t.sent > 0 {
		text = " " + text
	}
	t.sent = end
	return text, true
}

// full is the whole transcript, as the done frames carry it.
func (t *transcript) full() string { return strings.Join(t.words, " ") }

// speakTiming is when a spoken response's frames are due.
type speakTiming struct {
	textAt     time.Duration // the opening transcript piece
	firstAudio time.Duration // packet 0 (with response.speak)
	step       time.Duration // between packets: packet_ms × rtf
	burst      bool          // delayed_burst: packets 1…N-1 all go at burstAt
	burstAt    time.Duration
	doneAt     time.Duration // the done frames and response.done
}

// newSpeakTiming places packets of packetMs audio rtf × packetMs apart
// from TTFP; the opening text goes at TTFT, but never after the last
// packet.
func newSpeakTiming(now time.Duration, ttfpMs, ttftMs float64, packets, packetMs int, rtf float64, burst bool) speakTiming {
	ms := func(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }
	s := speakTiming{step: time.Duration(float64(packetMs) * rtf * float64(time.Millisecond)), firstAudio: now + ms(ttfpMs)}
	lastAudio := s.firstAudio + time.Duration(packets-1)*s.step
	s.textAt = min(now+ms(ttftMs), lastAudio)
	s.doneAt = lastAudio
	if burst && packets > 1 {
		s.burst, s.burstAt = true, lastAudio+BurstDelay
		s.doneAt = s.burstAt
	}
	return s
}

// packetAt is when packet k is due.
func (s speakTiming) packetAt(k int) time.Duration {
	if k > 0 && s.burst {
		return s.burstAt
	}
	return s.firstAudio + time.Duration(k)*s.step
}

// pktAt is when r's packet k is due.
func (r *response) pktAt(k int) time.Duration { return r.timing.packetAt(k) }

// newResponse opens a response (the model is busy with it) and lists it in
// the truth.
func (e *engine) newResponse(now time.Duration, kind string) *response {
	e.responseCount++
	id := fmt.Sprintf("resp_%s_%d", e.idHex[:8], e.responseCount)
	r := &response{id: id, itemID: "item_" + id, idx: e.responseCount - 1, kind: kind, start: now}
	e.responses[id] = r
	e.active = r
	e.truth.mu.Lock()
	e.truth.t.Responses = append(e.truth.t.Responses, TruthResponse{ResponseID: id, Kind: kind, Status: "in_progress", StartMs: msOf(now)})
	e.truth.mu.Unlock()
	return r
}

// updateTruth runs f on r's truth row under the truth lock.
func (e *engine) updateTruth(r *response, f func(t *TruthResponse)) {
	e.truth.mu.Lock()
	defer e.truth.mu.Unlock()
	f(&e.truth.t.Responses[r.idx])
}

// startListen answers with a listen decision: created, listen, done.
func (e *engine) startListen(now time.Duration) {
	prevActive := e.active
	r := e.newResponse(now, "listen")
	e.active = prevActive // a listen decision never blocks speaking responses
	e.schedule(now, r, false, func(t time.Duration) ([]byte, action) { return e.createdFrame(t, r), actNone })
	e.schedule(now, r, false, func(t time.Duration) ([]byte, action) {
		ml, ep := true, 0
		return e.emit(t, &protocol.ResponseListen{ServerHeader: e.header(protocol.TypeResponseListen), SessionID: e.id, Epoch: &ep, ResponseID: r.id,
			Response: &protocol.ResponseObject{ID: r.id, Object: "realtime.response", Status: "listening",
				Metadata: &protocol.ResponseMetadata{ModelListen: &ml}}}, r.id), actNone
	})
	e.schedule(now, r, false, func(t time.Duration) ([]byte, action) {
		ml := true
		r.state = responseDone
		ms := msOf(t)
		e.updateTruth(r, func(truth *TruthResponse) { truth.Status, truth.DoneMs = "completed", &ms })
		return e.emit(t, &protocol.ResponseDone{ServerHeader: e.header(protocol.TypeResponseDone), ResponseID: r.id,
			Response: &protocol.ResponseObject{ID: r.id, Object: "realtime.response", Status: "completed", StatusDetails: json.RawMessage("null"),
				Output: []protocol.OutputItem{}, Metadata: &protocol.ResponseMetadata{ModelListen: &ml}}}, r.id), actNone
	})
}

// sentences are what spoken responses say.
var sentences = []string{
	"Sure, the red cup is on the left side of the table.",
	"I think that sounds like a good plan for the afternoon.",
	"Let me check that for you, it should only take a moment.",
	"The weather tomorrow looks mostly sunny with a light breeze.",
	"That is an interesting question, and the short answer is yes.",
	"You can find the station two blocks north of the museum.",
	"Okay, I have noted that down and will remind you later.",
	"Honestly, I would pick the second option, it is simpler.",
}

// startSpeak answers a user turn now with a spoken response.
func (e *engine) startSpeak(now time.Duration) {
	r := e.newResponse(now, "speak")
	ttfp, ttft := e.drawLatency()
	e.drawSpeech(r)
	r.timing = newSpeakTiming(now, ttfp, ttft, r.packets, e.sc.PacketMs, e.sc.RTF, e.fault(FaultDelayedBurst))
	e.scheduleOpening(now, r)
	e.schedule(r.timing.textAt, r, true, func(t time.Duration) ([]byte, action) {
		return e.textFrame(t, r, r.text.perPiece, true, false), actNone
	})
	e.schedule(r.timing.firstAudio, r, true, func(t time.Duration) ([]byte, action) { return e.speakFrame(t, r), actNone })
	// Packets are scheduled one at a time (packet k queues k+1 when it
	// renders), with sequence numbers reserved now: the order of equal-time
	// items is the one scheduling them all up front would give, and the
	// queue holds O(1) items whatever the response length.
	r.seqBase = e.seq
	e.seq += 2 * r.packets
	e.schedulePacket(r, 0)
	e.scheduleDone(r.timing.doneAt, r)
}

// drawLatency draws a spoken response's TTFP and TTFT (ms after the
// request start) with what behaviours and video frames add.
func (e *engine) drawLatency() (ttfp, ttft float64) {
	sc := e.sc
	ttfp = clampMs(sc.TTFPMs.Sample(e.rng), MaxTTFPMs)
	if sc.TTFTMs != nil {
		ttft = clampMs(sc.TTFTMs.Sample(e.rng), MaxTTFPMs)
	} else {
		ttft = clampMs(ttfp-sc.TextLeadMs.Sample(e.rng), MaxTTFPMs)
	}
	if e.cfg.behaviors[BehaviorSlowTakeover] {
		ttfp, ttft = ttfp+1500, ttft+1500
	}
	if e.cfg.behaviors[BehaviorContended] && e.others != nil {
		extra := float64(ContendedMsPerSession * e.others())
		ttfp, ttft = ttfp+extra, ttft+extra
	}
	if v := e.takeVideoCost(); v > 0 {
		ttfp, ttft = ttfp+v, ttft+v
	}
	return ttfp, ttft
}

// drawSpeech draws r's length, voice, sentence and token counts, in the
// order the session's generator always drew them.
func (e *engine) drawSpeech(r *response) {
	sc := e.sc
	lengthMs := math.Max(10, math.Round(clampMs(sc.ResponseMs.Sample(e.rng), MaxResponseMs)/10)*10)
	r.samples = int(lengthMs) * e.outRate / 1000
	packetSamples := sc.PacketMs * e.outRate / 1000
	r.packets = (r.samples + packetSamples - 1) / packetSamples
	r.voice = newVoice(e.outRate, rand.New(rand.NewPCG(e.rng.Uint64(), e.rng.Uint64())))
	r.text = newTranscript(strings.Fields(sentences[e.rng.IntN(len(sentences))]), r.packets)
	// Token counts of the first tokenAhead packets are drawn now (as the
	// scenario's stream always did); a longer response draws the rest from
	// its own generator, so memory stays flat whatever the length.
	for k := 0; k < min(r.packets, tokenAhead); k++ {
		r.tokens = append(r.tokens, max(1, int(math.Round(sc.TokensPerOut.Sample(e.rng)))))
	}
	if r.packets > tokenAhead {
		r.tokenRand = rand.New(rand.NewPCG(e.rng.Uint64(), e.rng.Uint64()))
	}
}

// scheduleOpening queues the frames at the request start (created, the
// output item and content part) and arms the first-response faults.
func (e *engine) scheduleOpening(now time.Duration, r *response) {
	e.schedule(now, r, false, func(t time.Duration) ([]byte, action) {
		return e.createdFrame(t, r), actNone
	})
	first := e.firstSpeak == nil
	if first {
		e.firstSpeak = r
	}
	if first && e.fault(FaultMalformedJSON) {
		e.schedule(now, r, false, func(time.Duration) ([]byte, action) {
			return []byte(`{"type":"response.output_audio.delta","response_id":"` + r.id + `","delta":"AAAA`), actNone
		})
	}
	if first && e.fault(FaultStalledReader) {
		e.stall = time.Duration(e.sc.StallMs) * time.Millisecond
	}
	item := func(status string, content []protocol.ContentPart) *protocol.OutputItem {
		return &protocol.OutputItem{ID: r.itemID, Type: "message", Role: "assistant", Status: status, Content: content}
	}
	zero := 0
	e.schedule(now, r, false, func(t time.Duration) ([]byte, action) {
		return e.emit(t, &protocol.ConversationItemEvent{ServerHeader: e.header(protocol.TypeConversationItemAdded), PreviousItemID: e.lastItemID,
			Item: item("in_progress", []protocol.ContentPart{})}, r.id), actNone
	})
	e.schedule(now, r, false, func(t time.Duration) ([]byte, action) {
		return e.emit(t, &protocol.OutputItemEvent{ServerHeader: e.header(protocol.TypeResponseOutputItemAdded), ResponseID: r.id, OutputIndex: &zero,
			Item: item("in_progress", []protocol.ContentPart{})}, r.id), actNone
	})
	e.schedule(now, r, false, func(t time.Duration) ([]byte, action) {
		return e.emit(t, &protocol.ContentPartEvent{ServerHeader: e.header(protocol.TypeResponseContentPartAdded), ContentRef: r.ref(), Part: &protocol.ContentPart{Type: "audio"}}, r.id), actNone
	})
}

// clampMs bounds a drawn time to [0, hi] (NaN → 0): scenario
// distributions have unbounded tails.
func clampMs(v, hi float64) float64 {
	if !(v > 0) {
		return 0
	}
	return math.Min(v, hi)
}

// tokenAhead is how many packets' token counts a response draws at its start.
const tokenAhead = 1024

// tokensOf returns packet k's stage-0 token count.
func (e *engine) tokensOf(r *response, k int) int {
	if k < len(r.tokens) {
		return r.tokens[k]
	}
	if r.tokenRand == nil {
		return 1
	}
	return max(1, int(math.Round(e.sc.TokensPerOut.Sample(r.tokenRand))))
}

// schedulePacket queues packet k of r (its audio delta and the transcript
// piece after it) with the sequence numbers reserved for them.
func (e *engine) schedulePacket(r *response, k int) {
	if k >= r.packets {
		return
	}
	at := r.pktAt(k)
	it := e.scheduleSeq(at, r.seqBase+2*k+1, r, true, nil)
	it.prepare = func() { e.prepareAudio(it, r) }
	it.render = func(t time.Duration) ([]byte, action) {
		if r.state == responseActive {
			e.schedulePacket(r, k+1)
		}
		return e.audioFrame(t, r, k, it)
	}
	e.scheduleSeq(at, r.seqBase+2*k+2, r, true, func(t time.Duration) ([]byte, action) {
		return e.textFrame(t, r, r.text.perPiece, false, k == r.packets-1), actNone
	})
}

// finish renders response.done (and what follows it) and frees the model.
func (e *engine) finish(t time.Duration, r *response, status, reason string, out []protocol.OutputItem) ([]byte, action) {
	if status == "completed" {
		r.state = responseDone
	} else {
		r.state = responseCancelled
	}
	if e.active == r {
		e.active = nil
	}
	r.voice, r.tokens, r.tokenRand, r.outputs = nil, nil, nil, nil // free per-response generation state
	firstDone := !e.firstDone && r == e.firstSpeak
	if firstDone {
		e.firstDone = true
		e.replay.due = e.fault(FaultReplayedEvents)
	}
	var b []byte
	if !(firstDone && e.fault(FaultDroppedDone)) {
		details := json.RawMessage("null")
		if reason != "" {
			details, _ = json.Marshal(protocol.StatusDetails{Type: "cancelled", Reason: reason})
		}
		if out == nil {
			out = []protocol.OutputItem{}
		}
		b = e.emit(t, &protocol.ResponseDone{ServerHeader: e.header(protocol.TypeResponseDone), ResponseID: r.id,
			Response: &protocol.ResponseObject{ID: r.id, Object: "realtime.response", Status: status, StatusDetails: details,
				Output: out, Metadata: &protocol.ResponseMetadata{}}}, r.id)
	}
	e.sendNow(t, func(tt time.Duration) []byte {
		return e.emit(tt, &protocol.RateLimitsUpdated{ServerHeader: e.header(protocol.TypeRateLimitsUpdated), RateLimits: []json.RawMessage{}}, "")
	})
	if firstDone && e.fault(FaultErrorEvent) {
		e.sendError(t, protocol.CodeEngineError, "simulated engine error (sim_fault=error_event)", "")
	}
	if firstDone && e.fault(FaultUnexpectedClose) {
		e.schedule(t, nil, false, func(tt time.Duration) ([]byte, action) {
			e.state = stClosed
			f := e.emit(tt, &protocol.SessionClosed{ServerHeader: e.header(protocol.TypeSessionClosed), SessionID: e.id, Reason: "server_shutdown",
				Event: &protocol.InternalEvent{Type: protocol.TypeSessionClosed, Reason: "server_shutdown"}}, "")
			e.end(tt, "unexpected_close")
			return f, actClose
		})
	}
	if e.pending && e.state == stOpen && !e.closing {
		e.pending = false
		e.startSpeak(t)
	}
	// r is marked done in the truth only now, after the pending turn's
	// answer is listed: a truth reader (GET /sim/sessions/{id}/truth, which
	// takes only the truth lock) never sees every response done while the
	// model is about to answer the next turn, so "all done" is a safe
	// settle condition.
	ms := msOf(t)
	e.updateTruth(r, func(truth *TruthResponse) { truth.Status, truth.DoneMs = status, &ms })
	return b, actNone
}

// cancel truncates r now: queued output of r is dropped, the player is told
// to clear it (when audio was sent), and r ends cancelled.
func (e *engine) cancel(now time.Duration, r *response, reason string) {
	e.queue.dropCancellable(r)
	e.schedule(now, r, false, func(t time.Duration) ([]byte, action) {
		if r.state != responseActive {
			return nil, actNone
		}
		if r.ttfpMs == nil {
			return e.finish(t, r, "cancelled", reason, nil)
		}
		return e.emit(t, &protocol.OutputAudioBufferCleared{ServerHeader: e.header(protocol.TypeOutputAudioBufferCleared), ResponseID: r.id}, r.id), actNone
	})
	e.schedule(now, r, false, func(t time.Duration) ([]byte, action) {
		if r.state != responseActive {
			return nil, actNone
		}
		return e.finish(t, r, "cancelled", reason, nil)
	})
	if e.active == r {
		e.active = nil // the model is free as soon as it decides to yield
	}
}
