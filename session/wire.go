package session

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"strconv"
	"time"

	"github.com/duplexscope/duplexscope/protocol"
)

// inbound is the part of a server event the session reads, in one JSON
// pass: its state machine's fields and the observers' Received. The wire
// log keeps the exact bytes; metrics re-read them by the reference's rules.
type inbound struct {
	Type           string          `json:"type"`
	ResponseID     json.RawMessage `json:"response_id"`
	ServerEventSeq json.RawMessage `json:"server_event_seq"`
	Reason         *string         `json:"reason"`
	Response       *struct {
		ID            json.RawMessage `json:"id"`
		Status        string          `json:"status"`
		StatusDetails *struct {
			Type string `json:"type"`
		} `json:"status_details"`
		Metadata *struct {
			ModelListen bool `json:"model_listen"`
			Buffering   bool `json:"buffering"`
		} `json:"metadata"`
	} `json:"response"`
	StatusDetails *struct {
		Type string `json:"type"`
	} `json:"status_details"`
	Status  string `json:"status"`
	Session *struct {
		ID           string `json:"id"`
		SessionID    string `json:"session_id"`
		Capabilities *struct {
			ChunkPeriodMs *int `json:"chunk_period_ms"`
		} `json:"capabilities"`
	} `json:"session"`
	SessionID string `json:"session_id"`
	Event     *struct {
		OverlapDeferred bool    `json:"overlap_deferred"`
		Reason          *string `json:"reason"`
	} `json:"event"`
	Delta        rawString       `json:"delta"`
	Audio        rawString       `json:"audio"`
	Transcript   rawString       `json:"transcript"`
	SampleRateHz json.RawMessage `json:"sample_rate_hz"`
	Error        json.RawMessage `json:"error"`
	Code         json.RawMessage `json:"code"`
}

// responseID is the event's response identity, "" for none
// (protocol.IdentityOf: "" is no identity, lone surrogates stay distinct).
func (in *inbound) responseID() string {
	var inner json.RawMessage
	if in.Response != nil {
		inner = in.Response.ID
	}
	id, _ := protocol.IdentityOf(in.ResponseID, inner)
	return id
}

// seq returns server_event_seq when it is a JSON integer (true/false = 1/0).
func (in *inbound) seq() (int64, bool) {
	raw := bytes.TrimSpace(in.ServerEventSeq)
	switch string(raw) {
	case "", "null":
		return 0, false
	case "true":
		return 1, true
	case "false":
		return 0, true
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	return n, err == nil
}

// failed reports status "failed" in status, response.status,
// status_details.type or response.status_details.type (docs/protocol.md#response-lifecycle).
func (in *inbound) failed() bool {
	if in.Status == "failed" || (in.StatusDetails != nil && in.StatusDetails.Type == "failed") {
		return true
	}
	r := in.Response
	return r != nil && (r.Status == "failed" || (r.StatusDetails != nil && r.StatusDetails.Type == "failed"))
}

func (in *inbound) cancelled() bool {
	return in.Response != nil && in.Response.Status == "cancelled" || in.Status == "cancelled"
}

// audioLen is the decoded length of the delta payload (delta, else
// audio); 0 when absent or undecodable.
func (in *inbound) audioLen() int {
	for _, f := range [...]rawString{in.Delta, in.Audio} {
		if f.set {
			return max(f.n, 0)
		}
	}
	return 0
}

// rawString is a JSON string field kept as its unescaped bytes, with the
// length it decodes to as base64 (audio): the driver needs how much audio
// arrived, not the samples, and copying the field, unquoting it and
// decoding it cost three copies of every audio delta (tens of kB each),
// garbage and CPU that 16 sessions on 2 cores pay while their receive
// loops wait to be scheduled (issue 17). A string without escapes (every
// audio payload a server sends) is a slice of the received frame, which
// the wire log keeps and nobody writes to.
type rawString struct {
	set bool   // a non-empty JSON string
	s   []byte // its contents, unescaped
	n   int    // its base64-decoded length, −1 when it is not valid base64
}

// UnmarshalJSON records a non-empty string; any other JSON value leaves
// the field unset (it is not audio or text).
func (f *rawString) UnmarshalJSON(b []byte) error {
	*f = rawString{}
	if len(b) < 3 || b[0] != '"' {
		return nil
	}
	body := b[1 : len(b)-1]
	if bytes.IndexByte(body, '\\') < 0 {
		*f = plainString(body)
		return nil
	}
	// Escaped (e.g. "\/"): rare, unquote and decode the slow way.
	var s string
	if json.Unmarshal(b, &s) != nil || s == "" {
		return nil
	}
	f.set, f.s, f.n = true, []byte(s), -1
	if d, err := base64.StdEncoding.DecodeString(s); err == nil {
		f.n = len(d)
	}
	return nil
}

// plainString is the field for a non-empty JSON string's contents that
// hold no escape: the contents themselves, no copy.
func plainString(body []byte) rawString {
	return rawString{set: true, s: body, n: b64Len(body)}
}

// b64Len is len(base64.StdEncoding.DecodeString(src)), −1 on a decode
// error, without allocating: src is decoded a block of whole quanta at a
// time into a stack buffer. A block that ends in padding while more follows
// is an error, as it is for the whole string. src never holds the '\r' or
// '\n' the decoder would skip (a JSON string cannot contain them raw), so
// block boundaries stay on quanta.
func b64Len(src []byte) int {
	const block = 4 << 10
	var buf [block / 4 * 3]byte
	n := 0
	for len(src) > 0 {
		c := src[:min(block, len(src))]
		m, err := base64.StdEncoding.Decode(buf[:], c)
		if err != nil {
			return -1
		}
		n += m
		src = src[len(c):]
		if len(src) > 0 && m < len(c)/4*3 {
			return -1
		}
	}
	return n
}

// Sample rates a server may name; outside them sample_rate_hz is ignored
// (a rate of 1 Hz would make a player resample one delta into gigabytes).
const minRate, maxRate = 1000, 384000

// rate returns sample_rate_hz when it is a whole number in [minRate, maxRate].
func (in *inbound) rate() int {
	var f float64
	if json.Unmarshal(in.SampleRateHz, &f) != nil || f < minRate || f > maxRate || f != float64(int(f)) {
		return 0
	}
	return int(f)
}

// errorInfo applies docs/protocol.md#errors' parsing rule: code = error.code if
// error is an object, else top-level code; message = error.message, else
// error when a string, else the whole JSON.
func (in *inbound) errorInfo(raw []byte) (code, typ, msg string) {
	var obj struct {
		Code    string `json:"code"`
		Type    string `json:"type"`
		Message string `json:"message"`
	}
	if len(in.Error) > 0 && in.Error[0] == '{' && json.Unmarshal(in.Error, &obj) == nil {
		code, typ, msg = obj.Code, obj.Type, obj.Message
	} else {
		_ = json.Unmarshal(in.Code, &code)
		var s string
		if json.Unmarshal(in.Error, &s) == nil {
			msg = s
		}
	}
	if msg == "" {
		msg = string(raw)
	}
	return code, typ, msg
}

// closeReason reads reason ?? event.reason.
func (in *inbound) closeReason() string {
	if in.Reason != nil {
		return *in.Reason
	}
	if in.Event != nil && in.Event.Reason != nil {
		return *in.Event.Reason
	}
	return ""
}

func ptr[T any](v T) *T { return &v }

// appendEvent builds an input_audio_buffer.append of chunk whose cumulative
// end (bytes appended so far including chunk) is endBytes; durations use the
// benchmark clients' floor rule and both format keys are sent (docs/protocol.md#audio-append).
func appendEvent(chunk []byte, endBytes int) *protocol.InputAudioBufferAppend {
	return &protocol.InputAudioBufferAppend{
		Header:           protocol.Header{Type: protocol.TypeInputAudioBufferAppend, EventID: protocol.NewEventID()},
		Audio:            base64.StdEncoding.EncodeToString(chunk),
		InputAudioFormat: "pcm16",
		Format:           "pcm16",
		SampleRateHz:     ptr(16000),
		DurationMs:       ptr(int64(len(chunk) * 1000 / 32000)),
		AudioEndMs:       ptr(int64(endBytes * 1000 / 32000)),
	}
}

func commitEvent() *protocol.InputAudioBufferCommit {
	return &protocol.InputAudioBufferCommit{
		Header: protocol.Header{Type: protocol.TypeInputAudioBufferCommit, EventID: protocol.NewEventID()},
		Final:  ptr(true),
	}
}

func ackEvent(responseID string, playedMs int) *protocol.PlaybackAck {
	v := float64(playedMs)
	return &protocol.PlaybackAck{
		Header:      protocol.Header{Type: protocol.TypePlaybackAck, EventID: protocol.NewEventID()},
		ResponseID:  responseID,
		ItemID:      "item_" + responseID,
		PlayedMs:    &v,
		CommittedMs: ptr(v),
	}
}

func closeEvent() *protocol.SimpleClientEvent {
	return &protocol.SimpleClientEvent{Header: protocol.Header{Type: protocol.TypeSessionClose, EventID: protocol.NewEventID()}}
}

// sessionUpdate builds the benchmark-style session.update
// (docs/protocol.md#sessionupdate): pcm16 16 kHz in / 24 kHz out, model-native duplex (or
// server_vad), ack_only playback commits, stage metrics requested.
func sessionUpdate(cfg *Config) *protocol.SessionUpdate {
	in, out := 16000, 24000
	td := json.RawMessage("null")
	auto := true
	if cfg.ServerVAD {
		td = json.RawMessage(`{"type":"server_vad"}`)
		auto = false
	}
	sc := &protocol.SessionConfig{
		Model:                cfg.Model,
		Modalities:           []string{"audio", "text"},
		InputAudioFormat:     "pcm16",
		OutputAudioFormat:    "pcm16",
		SampleRateHz:         &in,
		Audio:                &protocol.AudioConfig{Input: &protocol.AudioFormat{SampleRateHz: &in}, Output: &protocol.AudioFormat{SampleRateHz: &out}},
		TurnDetection:        td,
		Instructions:         cfg.Instructions,
		OverlapPolicy:        "listen_only",
		PlaybackCommitPolicy: "ack_only",
		// The server's idle timer must outlast our own completion wait, so a
		// stuck session ends with our error naming what is missing rather
		// than a racing session.expired.
		IdleTimeoutS: ptr((cfg.CompletionTimeout + cfg.Settle + 30*time.Second).Seconds()),
		ExtraBody: &protocol.ExtraBody{
			AutoResponse:       &auto,
			ForceListenCount:   ptr(0),
			ReturnStageMetrics: ptr(true),
		},
	}
	if len(cfg.RefAudio) > 0 {
		sc.RefAudio = "data:audio/wav;base64," + base64.StdEncoding.EncodeToString(cfg.RefAudio)
	}
	if cfg.NativeDuplex {
		sc.ExtraBody.MiniCPMO45NativeDuplex = ptr(true)
	}
	if cfg.Customize != nil {
		cfg.Customize(sc)
	}
	return &protocol.SessionUpdate{
		Header:  protocol.Header{Type: protocol.TypeSessionUpdate, EventID: protocol.NewEventID()},
		Session: sc,
	}
}
