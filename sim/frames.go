//go:build !js

package sim

import (
	"bytes"
	"encoding/json"
	"time"

	"github.com/duplexscope/duplexscope/metrics"
	"github.com/duplexscope/duplexscope/protocol"
)

// createdFrame renders response.created at the request start.
func (e *engine) createdFrame(t time.Duration, r *response) []byte {
	ep := 0
	b := e.emit(t, &protocol.ResponseCreated{ServerHeader: e.header(protocol.TypeResponseCreated), ResponseID: r.id,
		Response: &protocol.ResponseObject{ID: r.id, Object: "realtime.response", Status: "in_progress", StatusDetails: json.RawMessage("null"),
			Output: []protocol.OutputItem{}, Modalities: []string{"audio", "text"},
			Metadata: &protocol.ResponseMetadata{DuplexEvent: &protocol.DuplexEvent{Type: protocol.TypeResponseCreated, ResponseID: r.id, Epoch: &ep}}}}, r.id)
	ms := msOf(t)
	e.updateTruth(r, func(truth *TruthResponse) { truth.CreatedMs = &ms })
	return b
}

// requestMetrics builds response_request_metrics with the keys known so far
// (nil when none).
func (e *engine) requestMetrics(r *response) *protocol.RequestMetrics {
	if e.fault(FaultNoRequestMetrics) || (r.ttftMs == nil && r.ttfpMs == nil) {
		return nil
	}
	return &protocol.RequestMetrics{Source: protocol.SourceServerMonotonic,
		MeasurementOrigin: &protocol.MeasurementOrigin{TTFT: protocol.OriginTTFT, TTFP: protocol.OriginTTFP},
		TTFTMs:            r.ttftMs, TTFPMs: r.ttfpMs}
}

// omniMetadata is metadata.vllm_omni: request metrics and stage metrics,
// nil when there are neither.
func (e *engine) omniMetadata(r *response, stage map[string]*protocol.StageMetrics) *protocol.VLLMOmni {
	m := e.requestMetrics(r)
	if m == nil && stage == nil {
		return nil
	}
	return &protocol.VLLMOmni{ResponseRequestMetrics: m, StageMetrics: stage}
}

// textFrame renders a transcript piece of n words: the opening piece at
// TTFT, or the piece after an audio packet (held back until the opening
// piece went out, except the last, which carries every remaining word).
func (e *engine) textFrame(t time.Duration, r *response, n int, opening, last bool) []byte {
	if r.state != responseActive {
		return nil
	}
	first := r.ttftMs == nil
	text, ok := r.text.next(n, opening, last, first)
	if !ok {
		return nil
	}
	var md *protocol.EventMetadata
	if first {
		v := msOf(t - r.start)
		r.ttftMs = &v
		ms := msOf(t)
		e.updateTruth(r, func(truth *TruthResponse) { truth.FirstTextMs, truth.TTFTMs = &ms, &v })
		if vo := e.omniMetadata(r, nil); vo != nil {
			md = &protocol.EventMetadata{VLLMOmni: vo}
		}
	}
	typ := protocol.TypeResponseOutputAudioTranscriptDelta
	if e.cfg.legacy {
		typ = protocol.TypeLegacyAudioTranscriptDelta
	}
	return e.emit(t, &protocol.TextDelta{ServerHeader: e.header(typ), ContentRef: r.ref(), Delta: text, Metadata: md}, r.id)
}

// speakFrame renders response.speak, just before the first audio.
func (e *engine) speakFrame(t time.Duration, r *response) []byte {
	if r.state != responseActive {
		return nil
	}
	var md *protocol.EventMetadata
	if vo := e.omniMetadata(r, nil); vo != nil {
		md = &protocol.EventMetadata{VLLMOmni: vo}
	}
	return e.emit(t, &protocol.ResponseSpeak{ServerHeader: e.header(protocol.TypeResponseSpeak), ContentRef: r.ref(), Metadata: md}, r.id)
}

// prepareAudio synthesises the next packet of r. Packets of a response
// render in queue order, so r.generatedSamples is the count before this packet.
func (e *engine) prepareAudio(it *item, r *response) {
	if r.voice == nil {
		return // finished response: nothing to synthesise
	}
	pkt := e.sc.PacketMs * e.outRate / 1000
	n := max(0, min(pkt, r.samples-r.generatedSamples))
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

// audioFrame renders packet k of r: the delta with its metadata, the
// stage metrics so far and r's truth row; dropped_event and
// disconnect_mid_response act on the first response's second packet.
func (e *engine) audioFrame(t time.Duration, r *response, k int, it *item) ([]byte, action) {
	if r.state != responseActive {
		return nil, actNone
	}
	it.runPrepare()
	n := len(it.pcm)
	r.generatedSamples += n
	cumMs := float64(int64(r.generatedSamples) * 1000 / int64(e.outRate))
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
		stage, r.tpotMs = stageMetrics(r.outputs, *r.ttfpMs)
	}
	sentMs := protocol.AudioMs(r.sentBytes, e.outRate)
	e.recordAudio(r, first, ms, sentMs)
	b := splice(e.emit(t, e.audioDelta(r, cumMs, sentMs, stage), r.id), it.b64)
	if k == 1 && r == e.firstSpeak && e.fault(FaultDisconnectMidResponse) {
		e.state = stClosed
		e.end(t, "disconnect")
		return b, actDisconnect
	}
	return b, actNone
}

// stageMetrics is stage_metrics["0"] after outputs by the token-weighted
// rule, and its TPOT; ttft is the first output's (the response's TTFP).
func stageMetrics(outputs []metrics.EngineOutput, ttft float64) (map[string]*protocol.StageMetrics, *float64) {
	res := metrics.EngineTPOT(outputs)
	tpot := res.TPOTMs
	itl := 0.0
	for _, v := range res.ITLsMs {
		itl += v
	}
	if len(res.ITLsMs) > 0 {
		itl /= float64(len(res.ITLsMs))
	}
	itls := append([]float64{}, res.ITLsMs...)
	tokens := res.NumTokensOut
	return map[string]*protocol.StageMetrics{"0": {NumTokensOut: &tokens, VLLMTTFTMs: &ttft, VLLMTPOTMs: &tpot, VLLMITLMs: &itl, VLLMITLsMs: itls}}, &tpot
}

// recordAudio updates r's truth row for a packet sent at ms.
func (e *engine) recordAudio(r *response, first bool, ms, sentMs float64) {
	e.updateTruth(r, func(truth *TruthResponse) {
		if first {
			truth.FirstAudioMs, truth.TTFPMs = &ms, r.ttfpMs
		}
		truth.LastAudioMs = &ms
		truth.AudioMs = sentMs
		truth.AudioPackets++
		if r.tpotMs != nil {
			truth.TPOTMs = r.tpotMs
			truth.NumTokensOut = 0
			for _, o := range r.outputs {
				truth.NumTokensOut += o.NewTokens
			}
		}
		if truth.CreatedMs != nil && sentMs > 0 {
			rtf := (ms - *truth.CreatedMs) / sentMs
			truth.RTF = &rtf
		}
	})
}

// audioDelta is a packet's delta event with payloadMark for its audio
// (spliced in after marshalling); names and fields follow the faults.
func (e *engine) audioDelta(r *response, cumMs, sentMs float64, stage map[string]*protocol.StageMetrics) *protocol.AudioDelta {
	typ := protocol.TypeResponseOutputAudioDelta
	if e.cfg.legacy || e.fault(FaultLegacyAudio) {
		typ = protocol.TypeLegacyAudioDelta
	}
	endOfTurn, speak := r.generatedSamples >= r.samples, true
	md := &protocol.EventMetadata{EndOfTurn: &endOfTurn, ModelSpeak: &speak,
		Playback: &protocol.PlaybackCursor{GeneratedMs: cumMs, SentMs: sentMs}, VLLMOmni: e.omniMetadata(r, stage)}
	if !e.fault(FaultNoAudioDuration) {
		md.AudioDurationMs = &cumMs
	}
	d := &protocol.AudioDelta{ServerHeader: e.header(typ), ContentRef: r.ref(), Format: protocol.FormatPCM16, Metadata: md}
	if e.fault(FaultAudioField) {
		d.Audio = "\x00pcm"
	} else {
		d.Delta = "\x00pcm"
	}
	if !e.fault(FaultNoSampleRate) {
		rate := e.outRate
		d.SampleRateHz = &rate
	}
	return d
}

// scheduleDone queues r's done frames and response.done, all due at at;
// none goes once r was cancelled.
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
	transcript := r.text.full
	final := func() *protocol.OutputItem {
		return &protocol.OutputItem{ID: r.itemID, Type: "message", Role: "assistant", Status: "completed",
			Content: []protocol.ContentPart{{Type: "output_audio", Transcript: transcript()}}}
	}
	add := func(f func(t time.Duration) []byte) {
		e.schedule(at, r, true, func(t time.Duration) ([]byte, action) {
			if r.state != responseActive {
				return nil, actNone
			}
			return f(t), actNone
		})
	}
	add(func(t time.Duration) []byte {
		return e.emit(t, &protocol.OutputDone{ServerHeader: e.header(audioDone), ContentRef: r.ref()}, r.id)
	})
	add(func(t time.Duration) []byte {
		return e.emit(t, &protocol.OutputDone{ServerHeader: e.header(textDone), ContentRef: r.ref(),
			Transcript: transcript()}, r.id)
	})
	add(func(t time.Duration) []byte {
		return e.emit(t, &protocol.ContentPartEvent{ServerHeader: e.header(protocol.TypeResponseContentPartDone), ContentRef: r.ref(), Part: &protocol.ContentPart{Type: "audio", Transcript: transcript()}}, r.id)
	})
	add(func(t time.Duration) []byte {
		return e.emit(t, &protocol.OutputItemEvent{ServerHeader: e.header(protocol.TypeResponseOutputItemDone), ResponseID: r.id, OutputIndex: &zero, Item: final()}, r.id)
	})
	add(func(t time.Duration) []byte {
		return e.emit(t, &protocol.ConversationItemEvent{ServerHeader: e.header(protocol.TypeConversationItemDone), Item: final()}, r.id)
	})
	e.schedule(at, r, true, func(t time.Duration) ([]byte, action) {
		if r.state != responseActive {
			return nil, actNone
		}
		return e.finish(t, r, "completed", "", []protocol.OutputItem{*final()})
	})
}
