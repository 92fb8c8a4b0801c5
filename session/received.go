package session

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"

	"github.com/duplexscope/duplexscope/audio"
	"github.com/duplexscope/duplexscope/protocol"
)

// Received is one received frame as the session decoded it, once, for its
// own state machine and for every observer (Observer.OnEvent): the type,
// the response identity by protocol.IdentityOf (the rule metrics use), the
// text of a transcript or text delta, response.status, the sample rate and
// the audio, which stays base64 until PCM is asked for (the CLI never asks).
// The metrics accumulator keeps its own reader: it follows the reference's
// Python semantics field by field (docs/metrics.md#python-semantics).
type Received struct {
	Type   string
	ID     string // "" when the event names no response
	Text   string // transcript / text deltas; a transcript.done's whole transcript
	Status string // response.done's response.status
	Rate   int    // sample_rate_hz when a positive whole number, else 0

	audio   []byte // an audio delta's base64 (delta, else audio), unescaped
	pcm     []byte
	decoded bool
}

// PCM is an audio delta's audio as PCM16 LE mono at 24 kHz (resampled when
// Rate names another rate); an odd trailing byte is dropped and bad base64
// is no audio. It decodes on the first call: observers run one at a time on
// one goroutine, so the first of them to ask pays for all.
func (r *Received) PCM() []byte {
	if r.decoded {
		return r.pcm
	}
	r.decoded = true
	if len(r.audio) == 0 {
		return nil
	}
	b := make([]byte, base64.StdEncoding.DecodedLen(len(r.audio)))
	n, err := base64.StdEncoding.Decode(b, r.audio)
	if err != nil {
		return nil
	}
	r.pcm = b[:n&^1]
	if r.Rate > 0 && r.Rate != audio.OutputRate && len(r.pcm) > 0 {
		r.pcm = audio.FloatToPCM16(audio.Resample(audio.PCM16ToFloat(r.pcm), r.Rate, audio.OutputRate))
	}
	return r.pcm
}

// IsAudioDelta reports whether t carries model audio (GA or legacy name).
func IsAudioDelta(t string) bool {
	return t == protocol.TypeResponseOutputAudioDelta || t == protocol.TypeLegacyAudioDelta
}

// IsTextDelta reports whether t carries model text or its transcript.
func IsTextDelta(t string) bool {
	switch t {
	case "response.output_audio_transcript.delta", "response.output_text.delta", "response.text.delta", "response.audio_transcript.delta":
		return true
	}
	return false
}

// DecodeReceived decodes one received text frame the way a session does,
// for readers of a recorded wire log; ok is false when it is not a JSON
// object.
func DecodeReceived(data []byte) (*Received, bool) {
	in, ok := parseInbound(data)
	if !ok {
		return nil, false
	}
	return in.received(), true
}

// parseInbound decodes a frame once; ok is false when it is not a JSON
// object. A field of an unexpected JSON type (a numeric status, a string
// response) is left unset and the rest is kept, as the metrics reader
// keeps the event (docs/protocol.md#response-identity).
//
// Long plain strings (audio payloads) are lifted out first (liftLong) and
// set after: the result is the same as decoding the frame whole.
func parseInbound(data []byte) (in inbound, ok bool) { return decodeInbound(data, liftMin) }

// decodeInbound is parseInbound lifting strings of at least min bytes; 0
// lifts none (the whole frame through encoding/json).
func decodeInbound(data []byte, min int) (in inbound, ok bool) {
	body := bytes.TrimSpace(data)
	if len(body) == 0 || body[0] != '{' {
		return in, false
	}
	doc := data
	var lifted [len(liftedKeys)][]byte
	if min > 0 && len(data) >= min {
		if reduced, l, ok := liftLong(data, min); ok {
			doc, lifted = reduced, l
		}
	}
	err := json.Unmarshal(doc, &in)
	_, typeErr := errors.AsType[*json.UnmarshalTypeError](err)
	if err != nil && !typeErr {
		return in, false
	}
	for k, f := range []*rawString{&in.Delta, &in.Audio, &in.Transcript} {
		if lifted[k] != nil {
			*f = plainString(lifted[k])
		}
	}
	return in, true
}

// received is the observers' part of in.
func (in *inbound) received() *Received {
	r := &Received{Type: in.Type, ID: in.responseID(), Rate: in.rate()}
	switch {
	case IsAudioDelta(r.Type):
		r.audio = in.Delta.s
		if !in.Delta.set {
			r.audio = in.Audio.s
		}
	case IsTextDelta(r.Type):
		r.Text = string(in.Delta.s)
	case r.Type == protocol.TypeResponseOutputAudioTranscriptDone:
		r.Text = string(in.Transcript.s)
	case r.Type == protocol.TypeResponseDone && in.Response != nil:
		r.Status = in.Response.Status
	}
	return r
}
