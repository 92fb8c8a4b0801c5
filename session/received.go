package session

import (
	"bytes"
	"encoding/base64"
	"encoding/json"

	"github.com/duplexscope/duplexscope/audio"
	"github.com/duplexscope/duplexscope/protocol"
)

// Received is the part of a server event a player and a live view read,
// decoded once: the type, the response identity by protocol.IdentityOf
// (the rule metrics use), the audio as 24 kHz PCM16, the text of a
// transcript or text delta, and response.status.
type Received struct {
	Type   string
	ID     string // "" when the event names no response
	PCM    []byte // audio deltas: PCM16 LE mono at 24 kHz (resampled when the event says another rate)
	Text   string // transcript / text deltas; a transcript.done's whole transcript
	Status string // response.done's response.status
}

// IsAudioDelta reports whether t carries model audio (GA or legacy name).
func IsAudioDelta(t string) bool {
	return t == "response.output_audio.delta" || t == "response.audio.delta"
}

// IsTextDelta reports whether t carries model text or its transcript.
func IsTextDelta(t string) bool {
	switch t {
	case "response.output_audio_transcript.delta", "response.output_text.delta", "response.text.delta", "response.audio_transcript.delta":
		return true
	}
	return false
}

// receivedWire is the JSON shape DecodeReceived reads.
type receivedWire struct {
	// Every field but type stays raw: one odd field (a numeric
	// response_id, a string response, a float rate) must not drop the
	// event, as the metrics reader does not.
	Type         json.RawMessage `json:"type"`
	ResponseID   json.RawMessage `json:"response_id"`
	Response     json.RawMessage `json:"response"`
	Delta        json.RawMessage `json:"delta"`
	Audio        json.RawMessage `json:"audio"`
	SampleRateHz json.RawMessage `json:"sample_rate_hz"`
	Transcript   json.RawMessage `json:"transcript"`
}

// DecodeReceived decodes one received text frame; ok is false when it is
// not a JSON object.
func DecodeReceived(data []byte) (Received, bool) {
	var w receivedWire
	if json.Unmarshal(data, &w) != nil {
		return Received{}, false
	}
	var r Received
	r.Type, _ = protocol.JSONString(w.Type)
	r.ID, _ = protocol.IdentityOfFields(w.ResponseID, w.Response)
	switch {
	case IsAudioDelta(r.Type):
		r.PCM = decodePCM(w.Delta, w.Audio)
		var rate float64
		if json.Unmarshal(w.SampleRateHz, &rate) == nil && rate > 0 && rate != audio.OutputRate && rate == float64(int(rate)) && len(r.PCM) > 0 {
			r.PCM = audio.FloatToPCM16(audio.Resample(audio.PCM16ToFloat(r.PCM), int(rate), audio.OutputRate))
		}
	case IsTextDelta(r.Type):
		_ = json.Unmarshal(w.Delta, &r.Text)
	case r.Type == "response.output_audio_transcript.done":
		r.Text, _ = protocol.JSONString(w.Transcript)
	case r.Type == "response.done":
		var resp struct {
			Status json.RawMessage `json:"status"`
		}
		if json.Unmarshal(w.Response, &resp) == nil {
			r.Status, _ = protocol.JSONString(resp.Status)
		}
	}
	return r, true
}

// decodePCM reads base64 PCM16 from delta, or from audio when delta is
// absent or empty; an odd trailing byte is dropped, bad base64 is no audio.
func decodePCM(delta, alt json.RawMessage) []byte {
	b, ok := base64Field(delta)
	if !ok {
		b, _ = base64Field(alt)
	}
	return b[:len(b)&^1]
}

// base64Field decodes a JSON string of base64; ok is false when raw is not
// a non-empty string (bad base64 decodes to nothing, ok). A string without
// escapes — every audio payload a server sends — is decoded in place: no
// unquoted copy and no second JSON pass over tens of kB.
func base64Field(raw json.RawMessage) (pcm []byte, ok bool) {
	var s []byte
	switch body := bytes.TrimSpace(raw); {
	case len(body) < 2 || body[0] != '"':
		return nil, false
	case bytes.IndexByte(body[1:len(body)-1], '\\') < 0:
		s = body[1 : len(body)-1]
	default:
		var str string
		if json.Unmarshal(raw, &str) != nil {
			return nil, false
		}
		s = []byte(str)
	}
	if len(s) == 0 {
		return nil, false
	}
	b := make([]byte, base64.StdEncoding.DecodedLen(len(s)))
	n, err := base64.StdEncoding.Decode(b, s)
	if err != nil {
		return nil, true
	}
	return b[:n], true
}
