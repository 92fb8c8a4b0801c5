package protocol

import (
	"bytes"
	"encoding/json"
	"strings"
)

// ErrorEvent is a server "error" in either shape (docs/protocol.md#errors): the OpenAI-style
// {"error":{type, code, message, event_id}} or the older flat
// {"error":"message", "code":"…"}.
type ErrorEvent struct {
	ServerHeader
	Error    *ErrorBody `json:"error,omitempty"`
	FlatCode string     `json:"code,omitempty"` // flat shape only
}

// ErrorBody is the "error" value: an object (Detail) or a string (Flat).
type ErrorBody struct {
	Detail *ErrorDetail
	Flat   string
	raw    json.RawMessage // any other JSON value, kept
}

// ErrorDetail is the object form of an error.
type ErrorDetail struct {
	Type      string `json:"type,omitempty"`
	Code      string `json:"code,omitempty"`
	Message   string `json:"message,omitempty"`
	Param     string `json:"param,omitempty"`
	EventID   string `json:"event_id,omitempty"` // the rejected client event
	Retryable *bool  `json:"retryable,omitempty"`

	Extra map[string]json.RawMessage `json:"-"`
}

// Error types.
const (
	ErrorTypeInvalidRequest = "invalid_request_error"
	ErrorTypeRateLimit      = "rate_limit_error"
	ErrorTypeServer         = "server_error"
)

// Error codes a client branches on (docs/protocol.md#errors). Tolerated ones are listed in Tolerated.
const (
	CodeBadEvent               = "bad_event"
	CodeBadAudio               = "bad_audio"
	CodeInvalidJSON            = "invalid_json"
	CodeUnknownEvent           = "unknown_event"
	CodeConfigTimeout          = "config_timeout"
	CodeUnsupportedAudioFormat = "unsupported_audio_format"
	CodeInputAudioBufferEmpty  = "input_audio_buffer_empty"
	CodeResponseNotActive      = "response_not_active"
	CodePlaybackAckTooLate     = "playback_ack_too_late"
	CodePlaybackItemNotFound   = "playback_item_not_found"
	CodeSessionClosed          = "session_closed"
	CodeEngineError            = "engine_error"
	CodeInternalError          = "internal_error"
	CodeResourceExhausted      = "resource_exhausted"
)

// Tolerated reports whether a benchmark records code without failing the
// session (playback_ack_too_late, playback_item_not_found).
func Tolerated(code string) bool {
	return code == CodePlaybackAckTooLate || code == CodePlaybackItemNotFound
}

// ErrorTypeForCode maps an error code to error.type as the reference server does.
func ErrorTypeForCode(code string) string {
	switch {
	case code == CodeResourceExhausted, code == "input_backpressure":
		return ErrorTypeRateLimit
	case code == CodeInternalError, code == CodeEngineError, code == "commit_aborted",
		strings.HasPrefix(code, "runtime_"), code == "server_vad_unavailable":
		return ErrorTypeServer
	}
	return ErrorTypeInvalidRequest
}

// ErrorCode returns error.code when error is an object, else top-level code.
func (e *ErrorEvent) ErrorCode() string {
	if e.Error != nil && e.Error.Detail != nil {
		return e.Error.Detail.Code
	}
	return e.FlatCode
}

// ErrorMessage returns error.message, else error when it is a string, else
// the whole event JSON.
func (e *ErrorEvent) ErrorMessage() string {
	if e.Error != nil {
		if e.Error.Detail != nil && e.Error.Detail.Message != "" {
			return e.Error.Detail.Message
		}
		if e.Error.Detail == nil && e.Error.Flat != "" {
			return e.Error.Flat
		}
	}
	if len(e.Raw) > 0 {
		return string(e.Raw)
	}
	b, _ := json.Marshal(e)
	return string(b)
}

// ClientEventID returns error.event_id (the rejected client event), or "".
func (e *ErrorEvent) ClientEventID() string {
	if e.Error != nil && e.Error.Detail != nil {
		return e.Error.Detail.EventID
	}
	return ""
}

// Validate requires an error value or a code.
func (e *ErrorEvent) Validate() error {
	if e.Error == nil && e.FlatCode == "" {
		return required(e.Type, "error")
	}
	return nil
}

// NewError builds an object-shaped error event echoing clientEventID.
func NewError(code, message, clientEventID string) *ErrorEvent {
	return &ErrorEvent{
		ServerHeader: ServerHeader{Header: Header{Type: TypeError}},
		Error: &ErrorBody{Detail: &ErrorDetail{
			Type: ErrorTypeForCode(code), Code: code, Message: message, EventID: clientEventID,
		}},
	}
}

// NewFlatError builds an older flat-shape error event.
func NewFlatError(code, message string) *ErrorEvent {
	return &ErrorEvent{
		ServerHeader: ServerHeader{Header: Header{Type: TypeError}},
		Error:        &ErrorBody{Flat: message},
		FlatCode:     code,
	}
}

// UnmarshalJSON accepts an object, a string or any other value.
func (b *ErrorBody) UnmarshalJSON(data []byte) error {
	t := bytes.TrimSpace(data)
	switch {
	case len(t) > 0 && t[0] == '{':
		b.Detail = new(ErrorDetail)
		return json.Unmarshal(t, b.Detail)
	case len(t) > 0 && t[0] == '"':
		return json.Unmarshal(t, &b.Flat)
	}
	b.raw = append(json.RawMessage(nil), t...)
	return nil
}

// MarshalJSON writes back the shape that was decoded or built.
func (b ErrorBody) MarshalJSON() ([]byte, error) {
	switch {
	case b.Detail != nil:
		return json.Marshal(b.Detail)
	case len(b.raw) > 0:
		return b.raw, nil
	}
	return json.Marshal(b.Flat)
}
