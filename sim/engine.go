//go:build !js

package sim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"sort"
	"strings"
	"time"

	"github.com/duplexscope/duplexscope/metrics"
	"github.com/duplexscope/duplexscope/protocol"
)

// Protocol timeouts the simulator applies (PROTOCOL.md §6).
const (
	ConfigTimeout      = 10 * time.Second  // first message must be session.update
	DefaultIdleTimeout = 300 * time.Second // when session.update names none
)

// BurstDelay is how long after the last packet's normal time the
// delayed_burst fault sends the held-back audio of a response.
const BurstDelay = time.Second

type respState int

const (
	respActive respState = iota
	respDone
	respCancelled
)

type response struct {
	id, itemID string
	idx        int
	kind       string // "speak" | "listen"
	start      time.Duration
	state      respState
	voice      *voice
	samples    int // total audio samples to generate
	genSamples int // generated (incl. dropped)
	sentBytes  int64
	packets    int
	words      []string
	wordsSent  int
	tokens     []int      // per output, the first tokenAhead
	tokRng     *rand.Rand // draws the token counts after tokenAhead
	seqBase    int        // packet k's items have seq seqBase+2k+1, +2k+2
	pktAt      func(k int) time.Duration
	perPiece   int // transcript words per piece
	outputs    []metrics.EngineOutput
	ttftMs     *float64
	ttfpMs     *float64
	tpotMs     *float64
}

type sessState int

const (
	stAwaiting sessState = iota
	stOpen
	stClosed
)

// engine is one simulated session as a pure state machine: handle feeds a
// client frame accepted at now; pop returns the next due output at now;
// next tells when the next output is due. It never reads a clock.
type engine struct {
	cfg        *sessionConfig
	sc         *Scenario
	rng        *rand.Rand
	id         string
	idHex      string
	model      string
	truth      *truthRec
	state      sessState
	queue      outputQueue
	seq        int
	eventSeq   uint64
	opened     time.Duration
	handshaken bool // created sent (or scheduled)

	inRate, outRate int
	inBytes         int64
	sinceCommit     int64
	commitSeq       int
	lastItemID      *string
	vad             vad
	turns           turnClock
	serverVAD       bool
	stageMetrics    bool
	idle            time.Duration
	lastInput       time.Duration

	respN     int
	responses map[string]*response
	active    *response
	pending   bool // a user turn ended while a response was active

	firstSpeak *response // the session's first spoken response (fault anchor)
	firstDone  bool
	closing    bool       // session.close accepted: only session.closed follows
	serverSeq  int64      // replayed_events: server_event_seq of the last event
	recent     []replayed // replayed_events: the last frames
	replayDue  bool       // replayed_events: replay after the current frame
	bargeArmed bool       // ignores_backchannels: user speech during a response, not yet long enough to truncate
	stallReq   time.Duration
	itemN      int
	// others counts the other sessions open on the simulator (contended).
	others func() int
	video  videoState // video_frames bookkeeping (video.go)
}

func newEngine(cfg *sessionConfig, id string, seed uint64, now time.Duration, truth *truthRec) *engine {
	h := fnv.New64a()
	h.Write([]byte(id))
	e := &engine{
		cfg: cfg, sc: &cfg.sc, id: id, idHex: fmt.Sprintf("%016x", h.Sum64()), truth: truth,
		rng:    rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15)),
		opened: now, inRate: protocol.DefaultInputRateHz, outRate: protocol.DefaultOutputRateHz,
		responses: map[string]*response{}, idle: DefaultIdleTimeout, lastInput: now,
	}
	e.video.frameMs = cfg.videoFrameMs
	e.model = cfg.queryModel
	if e.model == "" {
		e.model = cfg.sc.Model
	}
	e.vad = vad{cfg: cfg.sc.VAD, rate: e.inRate}
	e.turns = newTurnClock(&cfg.sc)
	truth.mu.Lock()
	truth.t = Truth{SessionID: id, Profile: cfg.sc.Name, Faults: cfg.faults.list(), Behaviors: keys(cfg.behaviors),
		EventNames: EventNamesCurrent, OpenedMs: msOf(now), Responses: []TruthResponse{}, Events: []TruthEvent{}}
	if cfg.legacy {
		truth.t.EventNames = EventNamesLegacy
	}
	truth.mu.Unlock()
	return e
}

func keys(m map[string]bool) []string {
	out := []string{}
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func (e *engine) fault(name string) bool { return e.cfg.faults[name] }

// schedule inserts an item keeping (at, seq) order.
func (e *engine) schedule(at time.Duration, r *response, cancellable bool, render func(time.Duration) ([]byte, action)) *item {
	e.seq++
	return e.scheduleSeq(at, e.seq, r, cancellable, render)
}

// scheduleSeq inserts an item with a sequence number reserved earlier.
func (e *engine) scheduleSeq(at time.Duration, seq int, r *response, cancellable bool, render func(time.Duration) ([]byte, action)) *item {
	it := &item{at: at, seq: seq, resp: r, cancellable: cancellable, render: render}
	e.queue.insert(it)
	return it
}

// dueItem returns the item pop would render at now, if any, so the writer
// can run its prepare step (PCM synthesis, base64) before reading the emit
// time, keeping heavy work out of the stamp-to-write interval.
func (e *engine) dueItem(now time.Duration) *item {
	if e.state == stClosed {
		return nil
	}
	return e.queue.due(now)
}

// next returns when the next output (or deadline) is due.
func (e *engine) next() (time.Duration, bool) {
	if e.state == stClosed {
		return 0, false
	}
	var t time.Duration
	ok := false
	consider := func(d time.Duration) {
		if !ok || d < t {
			t, ok = d, true
		}
	}
	if len(e.queue) > 0 {
		consider(e.queue[0].at)
	}
	switch e.state {
	case stAwaiting:
		consider(e.opened + ConfigTimeout)
	case stOpen:
		consider(e.lastInput + e.idle)
	}
	return t, ok
}

// pop returns the next output due at now, rendering it at now.
func (e *engine) pop(now time.Duration) (output, bool) {
	for {
		if e.state == stClosed {
			return output{}, false
		}
		if e.state == stAwaiting && now >= e.opened+ConfigTimeout && !e.handshaken {
			e.state = stClosed
			f := e.errorFrame(now, protocol.CodeConfigTimeout, "Timeout waiting for session.update", "")
			e.end(now, "config_timeout")
			return output{frame: f, act: actClosePolicy}, true
		}
		if e.state == stOpen && now >= e.lastInput+e.idle {
			e.state = stClosed
			f := e.emit(now, &protocol.SessionStatus{ServerHeader: e.header(protocol.TypeSessionExpired), SessionID: e.id, Reason: "idle_timeout"}, "")
			e.end(now, "idle_timeout")
			return output{frame: f, act: actClose}, true
		}
		if e.queue.due(now) == nil {
			return output{}, false
		}
		it := e.queue.take()
		f, act := it.render(now)
		if f == nil && act == actNone {
			continue
		}
		if f != nil && e.fault(FaultReplayedEvents) && !it.replay {
			e.remember(now, f)
		}
		return output{frame: f, act: act, slow: e.fault(FaultSlowWriter)}, true
	}
}

// end records the session end in the truth.
func (e *engine) end(now time.Duration, reason string) {
	e.truth.mu.Lock()
	defer e.truth.mu.Unlock()
	if e.truth.t.EndedMs == nil {
		ms := msOf(now)
		e.truth.t.EndedMs, e.truth.t.EndReason = &ms, reason
	}
}

// transportEnded records an end the engine did not decide (client gone,
// server shutdown).
func (e *engine) transportEnded(now time.Duration, reason string) {
	e.state = stClosed
	e.end(now, reason)
}

func (e *engine) newResponse(now time.Duration, kind string) *response {
	e.respN++
	id := fmt.Sprintf("resp_%s_%d", e.idHex[:8], e.respN)
	r := &response{id: id, itemID: "item_" + id, idx: e.respN - 1, kind: kind, start: now}
	e.responses[id] = r
	e.active = r
	e.truth.mu.Lock()
	e.truth.t.Responses = append(e.truth.t.Responses, TruthResponse{ResponseID: id, Kind: kind, Status: "in_progress", StartMs: msOf(now)})
	e.truth.mu.Unlock()
	return r
}

// tr runs f on r's truth row under the truth lock.
func (e *engine) tr(r *response, f func(t *TruthResponse)) {
	e.truth.mu.Lock()
	defer e.truth.mu.Unlock()
	f(&e.truth.t.Responses[r.idx])
}

func (e *engine) createdFrame(t time.Duration, r *response) []byte {
	ep := 0
	b := e.emit(t, &protocol.ResponseCreated{ServerHeader: e.header(protocol.TypeResponseCreated), ResponseID: r.id,
		Response: &protocol.ResponseObject{ID: r.id, Object: "realtime.response", Status: "in_progress", StatusDetails: json.RawMessage("null"),
			Output: []protocol.OutputItem{}, Modalities: []string{"audio", "text"},
			Metadata: &protocol.ResponseMetadata{DuplexEvent: &protocol.DuplexEvent{Type: protocol.TypeResponseCreated, ResponseID: r.id, Epoch: &ep}}}}, r.id)
	ms := msOf(t)
	e.tr(r, func(tr *TruthResponse) { tr.CreatedMs = &ms })
	return b
}

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
		r.state = respDone
		ms := msOf(t)
		e.tr(r, func(tr *TruthResponse) { tr.Status, tr.DoneMs = "completed", &ms })
		return e.emit(t, &protocol.ResponseDone{ServerHeader: e.header(protocol.TypeResponseDone), ResponseID: r.id,
			Response: &protocol.ResponseObject{ID: r.id, Object: "realtime.response", Status: "completed", StatusDetails: json.RawMessage("null"),
				Output: []protocol.OutputItem{}, Metadata: &protocol.ResponseMetadata{ModelListen: &ml}}}, r.id), actNone
	})
}

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

func (e *engine) startSpeak(now time.Duration) {
	sc := e.sc
	r := e.newResponse(now, "speak")
	ttfp := clampMs(sc.TTFPMs.Sample(e.rng), MaxTTFPMs)
	var ttft float64
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
	lengthMs := math.Max(10, math.Round(clampMs(sc.ResponseMs.Sample(e.rng), MaxResponseMs)/10)*10)
	r.samples = int(lengthMs) * e.outRate / 1000
	pktSamples := sc.PacketMs * e.outRate / 1000
	r.packets = (r.samples + pktSamples - 1) / pktSamples
	r.voice = newVoice(e.outRate, rand.New(rand.NewPCG(e.rng.Uint64(), e.rng.Uint64())))
	r.words = strings.Fields(sentences[e.rng.IntN(len(sentences))])
	// Token counts of the first tokenAhead packets are drawn now (as the
	// scenario's stream always did); a longer response draws the rest from
	// its own generator, so memory stays flat whatever the length.
	for k := 0; k < min(r.packets, tokenAhead); k++ {
		r.tokens = append(r.tokens, max(1, int(math.Round(sc.TokensPerOut.Sample(e.rng)))))
	}
	if r.packets > tokenAhead {
		r.tokRng = rand.New(rand.NewPCG(e.rng.Uint64(), e.rng.Uint64()))
	}
	ms := func(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }
	step := time.Duration(float64(sc.PacketMs) * sc.RTF * float64(time.Millisecond))
	firstAudio := now + ms(ttfp)
	lastAudio := firstAudio + time.Duration(r.packets-1)*step
	textAt := min(now+ms(ttft), lastAudio)

	// Opening group at the request start.
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
		e.stallReq = time.Duration(sc.StallMs) * time.Millisecond
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
		return e.emit(t, &protocol.ContentPartEvent{ServerHeader: e.header(protocol.TypeResponseContentPartAdded), ResponseID: r.id, ItemID: r.itemID,
			OutputIndex: &zero, ContentIndex: &zero, Part: &protocol.ContentPart{Type: "audio"}}, r.id), actNone
	})

	perPiece := (len(r.words) + r.packets) / (r.packets + 1)
	e.schedule(textAt, r, true, func(t time.Duration) ([]byte, action) { return e.textFrame(t, r, perPiece, true, false), actNone })
	e.schedule(firstAudio, r, true, func(t time.Duration) ([]byte, action) { return e.speakFrame(t, r), actNone })
	// delayed_burst: packets 2…N are held back and sent together
	// BurstDelay after the last packet's normal time (response.done follows).
	burstAt, doneAt := lastAudio, lastAudio
	if e.fault(FaultDelayedBurst) && r.packets > 1 {
		burstAt = lastAudio + BurstDelay
		doneAt = burstAt
	}
	// Packets are scheduled one at a time (packet k queues k+1 when it
	// renders), with sequence numbers reserved now: the order of equal-time
	// items is the one scheduling them all up front would give, and the
	// queue holds O(1) items whatever the response length.
	r.seqBase = e.seq
	e.seq += 2 * r.packets
	r.pktAt = func(k int) time.Duration {
		if k > 0 && e.fault(FaultDelayedBurst) {
			return burstAt
		}
		return firstAudio + time.Duration(k)*step
	}
	r.perPiece = perPiece
	e.schedulePacket(r, 0)
	e.scheduleDone(doneAt, r)
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
	if r.tokRng == nil {
		return 1
	}
	return max(1, int(math.Round(e.sc.TokensPerOut.Sample(r.tokRng))))
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
		if r.state == respActive {
			e.schedulePacket(r, k+1)
		}
		return e.audioFrame(t, r, k, it)
	}
	e.scheduleSeq(at, r.seqBase+2*k+2, r, true, func(t time.Duration) ([]byte, action) {
		return e.textFrame(t, r, r.perPiece, false, k == r.packets-1), actNone
	})
}

// rrm builds response_request_metrics with the keys known so far (nil when none).
func (e *engine) rrm(r *response) *protocol.RequestMetrics {
	if e.fault(FaultNoRequestMetrics) || (r.ttftMs == nil && r.ttfpMs == nil) {
		return nil
	}
	return &protocol.RequestMetrics{Source: protocol.SourceServerMonotonic,
		MeasurementOrigin: &protocol.MeasurementOrigin{TTFT: protocol.OriginTTFT, TTFP: protocol.OriginTTFP},
		TTFTMs:            r.ttftMs, TTFPMs: r.ttfpMs}
}

func (e *engine) vllm(r *response, stage map[string]*protocol.StageMetrics) *protocol.VLLMOmni {
	m := e.rrm(r)
	if m == nil && stage == nil {
		return nil
	}
	return &protocol.VLLMOmni{ResponseRequestMetrics: m, StageMetrics: stage}
}

// textFrame renders a transcript piece of n words: the opening piece at
// TTFT, or the piece after an audio packet (held back until the opening
// piece went out, except the last, which carries every remaining word).
func (e *engine) textFrame(t time.Duration, r *response, n int, opening, last bool) []byte {
	if r.state != respActive || r.wordsSent >= len(r.words) {
		return nil
	}
	first := r.ttftMs == nil
	if first && !opening && !last {
		return nil
	}
	end := min(len(r.words), r.wordsSent+max(1, n))
	if last {
		end = len(r.words)
	}
	if end <= r.wordsSent {
		return nil
	}
	text := strings.Join(r.words[r.wordsSent:end], " ")
	if r.wordsSent > 0 {
		text = " " + text
	}
	r.wordsSent = end
	var md *protocol.EventMetadata
	if first {
		v := msOf(t - r.start)
		r.ttftMs = &v
		ms := msOf(t)
		e.tr(r, func(tr *TruthResponse) { tr.FirstTextMs, tr.TTFTMs = &ms, &v })
		if vo := e.vllm(r, nil); vo != nil {
			md = &protocol.EventMetadata{VLLMOmni: vo}
		}
	}
	zero := 0
	typ := protocol.TypeResponseOutputAudioTranscriptDelta
	if e.cfg.legacy {
		typ = protocol.TypeLegacyAudioTranscriptDelta
	}
	return e.emit(t, &protocol.TextDelta{ServerHeader: e.header(typ), ResponseID: r.id, ItemID: r.itemID, OutputIndex: &zero, ContentIndex: &zero,
		Delta: text, Metadata: md}, r.id)
}

func (e *engine) speakFrame(t time.Duration, r *response) []byte {
	if r.state != respActive {
		return nil
	}
	zero := 0
	var md *protocol.EventMetadata
	if vo := e.vllm(r, nil); vo != nil {
		md = &protocol.EventMetadata{VLLMOmni: vo}
	}
	return e.emit(t, &protocol.ResponseSpeak{ServerHeader: e.header(protocol.TypeResponseSpeak), ResponseID: r.id, ItemID: r.itemID,
		OutputIndex: &zero, ContentIndex: &zero, Metadata: md}, r.id)
}

// prepareAudio synthesises the next packet of r. Packets of a response
// render in queue order, so r.genSamples is the count before this packet.
func (e *engine) prepareAudio(it *item, r *response) {
	if r.voice == nil {
		return // finished response: nothing to synthesise
	}
	pkt := e.sc.PacketMs * e.outRate / 1000
	n := max(0, min(pkt, r.samples-r.genSamples))
	it.pcm = make([]int16, n)
	r.voice.fill(it.pcm)
	it.b64 = protocol.EncodePCM16(it.pcm)
}

// payloadMark stands in for the base64 payload while marshalling; the
// payload needs no JSON escaping and is spliced in afterwards.
const payloadMark = `\u0000pcm`

// splice replaces the payload mark in frame with payload.
func splice(frame []byte, payload string) []byte {
	i := bytes.Index(frame, []byte(payloadMark))
	if i < 0 {
		return frame
	}
	out := make([]byte, 0, len(frame)+len(payload))
	out = append(out, frame[:i]...)
	out = append(out, payload...)
	return append(out, frame[i+len(payloadMark):]...)
}

func (e *engine) audioFrame(t time.Duration, r *response, k int, it *item) ([]byte, action) {
	if r.state != respActive {
		return nil, actNone
	}
	it.runPrepare()
	samples := it.pcm
	n := len(samples)
	r.genSamples += n
	cumMs := float64(int64(r.genSamples) * 1000 / int64(e.outRate))
	if k == 1 && r == e.firstSpeak && e.fault(FaultDroppedEvent) {
		return nil, actNone // generated, counted in audio_duration_ms, never sent
	}
	r.sentBytes += int64(2 * n)
	ms := msOf(t)
	first := r.ttfpMs == nil
	if first {
		v := msOf(t - r.start)
		r.ttfpMs = &v
	}
	var stage map[string]*protocol.StageMetrics
	if e.stageMetrics {
		r.outputs = append(r.outputs, metrics.EngineOutput{TMs: ms, NewTokens: e.tokensOf(r, k)})
		res := metrics.EngineTPOT(r.outputs)
		tpot := res.TPOTMs
		r.tpotMs = &tpot
		itl := 0.0
		for _, v := range res.ITLsMs {
			itl += v
		}
		if len(res.ITLsMs) > 0 {
			itl /= float64(len(res.ITLsMs))
		}
		ttft := *r.ttfpMs
		itls := append([]float64{}, res.ITLsMs...)
		nt := res.NumTokensOut
		stage = map[string]*protocol.StageMetrics{"0": {NumTokensOut: &nt, VLLMTTFTMs: &ttft, VLLMTPOTMs: &tpot, VLLMITLMs: &itl, VLLMITLsMs: itls}}
	}
	sentMs := protocol.AudioMs(r.sentBytes, e.outRate)
	outRate := e.outRate
	e.tr(r, func(tr *TruthResponse) {
		if first {
			tr.FirstAudioMs, tr.TTFPMs = &ms, r.ttfpMs
		}
		tr.LastAudioMs = &ms
		tr.AudioMs = sentMs
		tr.AudioPackets++
		if r.tpotMs != nil {
			tr.TPOTMs = r.tpotMs
			tr.NumTokensOut = 0
			for _, o := range r.outputs {
				tr.NumTokensOut += o.NewTokens
			}
		}
		if tr.CreatedMs != nil && sentMs > 0 {
			rtf := (ms - *tr.CreatedMs) / sentMs
			tr.RTF = &rtf
		}
	})
	typ := protocol.TypeResponseOutputAudioDelta
	if e.cfg.legacy || e.fault(FaultLegacyAudio) {
		typ = protocol.TypeLegacyAudioDelta
	}
	t1, f1 := true, false
	last := r.genSamples >= r.samples
	eot := &f1
	if last {
		eot = &t1
	}
	md := &protocol.EventMetadata{EndOfTurn: eot, ModelSpeak: &t1,
		Playback: &protocol.PlaybackCursor{GeneratedMs: cumMs, SentMs: sentMs}, VLLMOmni: e.vllm(r, stage)}
	if !e.fault(FaultNoAudioDuration) {
		md.AudioDurationMs = &cumMs
	}
	zero := 0
	d := &protocol.AudioDelta{ServerHeader: e.header(typ), ResponseID: r.id, ItemID: r.itemID, OutputIndex: &zero, ContentIndex: &zero,
		Format: protocol.FormatPCM16, Metadata: md}
	if e.fault(FaultAudioField) {
		d.Audio = "\x00pcm"
	} else {
		d.Delta = "\x00pcm"
	}
	if !e.fault(FaultNoSampleRate) {
		d.SampleRateHz = &outRate
	}
	b := splice(e.emit(t, d, r.id), it.b64)
	if k == 1 && r == e.firstSpeak && e.fault(FaultDisconnectMidResponse) {
		e.state = stClosed
		e.end(t, "disconnect")
		return b, actDisconnect
	}
	return b, actNone
}

func (e *engine) scheduleDone(at time.Duration, r *response) {
	zero := 0
	legacy := e.cfg.legacy
	audioDone := protocol.TypeResponseOutputAudioDone
	textDone := protocol.TypeResponseOutputAudioTranscriptDone
	if legacy || e.fault(FaultLegacyAudio) {
		audioDone = protocol.TypeLegacyAudioDone
	}
	if legacy {
		textDone = protocol.TypeLegacyAudioTranscriptDone
	}
	transcript := func() string { return strings.Join(r.words, " ") }
	final := func() *protocol.OutputItem {
		return &protocol.OutputItem{ID: r.itemID, Type: "message", Role: "assistant", Status: "completed",
			Content: []protocol.ContentPart{{Type: "output_audio", Transcript: transcript()}}}
	}
	add := func(f func(t time.Duration) []byte) {
		e.schedule(at, r, true, func(t time.Duration) ([]byte, action) {
			if r.state != respActive {
				return nil, actNone
			}
			return f(t), actNone
		})
	}
	add(func(t time.Duration) []byte {
		return e.emit(t, &protocol.OutputDone{ServerHeader: e.header(audioDone), ResponseID: r.id, ItemID: r.itemID, OutputIndex: &zero, ContentIndex: &zero}, r.id)
	})
	add(func(t time.Duration) []byte {
		return e.emit(t, &protocol.OutputDone{ServerHeader: e.header(textDone), ResponseID: r.id, ItemID: r.itemID, OutputIndex: &zero, ContentIndex: &zero,
			Transcript: transcript()}, r.id)
	})
	add(func(t time.Duration) []byte {
		return e.emit(t, &protocol.ContentPartEvent{ServerHeader: e.header(protocol.TypeResponseContentPartDone), ResponseID: r.id, ItemID: r.itemID,
			OutputIndex: &zero, ContentIndex: &zero, Part: &protocol.ContentPart{Type: "audio", Transcript: transcript()}}, r.id)
	})
	add(func(t time.Duration) []byte {
		return e.emit(t, &protocol.OutputItemEvent{ServerHeader: e.header(protocol.TypeResponseOutputItemDone), ResponseID: r.id, OutputIndex: &zero, Item: final()}, r.id)
	})
	add(func(t time.Duration) []byte {
		return e.emit(t, &protocol.ConversationItemEvent{ServerHeader: e.header(protocol.TypeConversationItemDone), Item: final()}, r.id)
	})
	e.schedule(at, r, true, func(t time.Duration) ([]byte, action) {
		if r.state != respActive {
			return nil, actNone
		}
		return e.finish(t, r, "completed", "", []protocol.OutputItem{*final()})
	})
}

// finish renders response.done (and what follows it) and frees the model.
func (e *engine) finish(t time.Duration, r *response, status, reason string, out []protocol.OutputItem) ([]byte, action) {
	if status == "completed" {
		r.state = respDone
	} else {
		r.state = respCancelled
	}
	if e.active == r {
		e.active = nil
	}
	r.voice, r.tokens, r.tokRng, r.outputs, r.pktAt = nil, nil, nil, nil, nil // free per-response generation state
	firstDone := !e.firstDone && r == e.firstSpeak
	if firstDone {
		e.firstDone = true
		e.replayDue = e.fault(FaultReplayedEvents)
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
	e.tr(r, func(tr *TruthResponse) { tr.Status, tr.DoneMs = status, &ms })
	if b == nil {
		return nil, actNone
	}
	return b, actNone
}

// cancel truncates r now: queued output of r is dropped, the player is told
// to clear it (when audio was sent), and r ends cancelled.
func (e *engine) cancel(now time.Duration, r *response, reason string) {
	e.queue.dropCancellable(r)
	e.schedule(now, r, false, func(t time.Duration) ([]byte, action) {
		if r.state != respActive {
			return nil, actNone
		}
		if r.ttfpMs == nil {
			return e.finish(t, r, "cancelled", reason, nil)
		}
		return e.emit(t, &protocol.OutputAudioBufferCleared{ServerHeader: e.header(protocol.TypeOutputAudioBufferCleared), ResponseID: r.id}, r.id), actNone
	})
	e.schedule(now, r, false, func(t time.Duration) ([]byte, action) {
		if r.state != respActive {
			return nil, actNone
		}
		return e.finish(t, r, "cancelled", reason, nil)
	})
	if e.active == r {
		e.active = nil // the model is free as soon as it decides to yield
	}
}
