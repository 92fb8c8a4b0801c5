package trace

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// Format is the only accepted value of a document's "format" key.
const Format = "duplex-trace/v1"

// Kinds of trace document.
const (
	KindSession    = "session"
	KindRun        = "run"
	KindEngineTPOT = "engine_tpot"
)

// Directions of an Event.
const (
	DirSend  = "send"
	DirRecv  = "recv"
	DirLocal = "local" // client annotation, never a wire event
)

// Errors wrapped by Decode for documents that are not duplex-trace/v1.
var (
	ErrFormat = errors.New("trace: unknown format")
	ErrKind   = errors.New("trace: unknown kind")
)

// Event is one entry of a session trace.
type Event struct {
	TMs   float64         `json:"t_ms"`
	Dir   string          `json:"dir"`
	Event json.RawMessage `json:"event"`
}

// Session is a kind "session" document (also an element of a run's sessions).
// See SessionMeta for the null/missing rules of its identity.
type Session struct {
	Format      string      `json:"format,omitempty"`
	Kind        string      `json:"kind,omitempty"`
	Description string      `json:"description,omitempty"`
	Skipped     bool        `json:"skipped,omitempty"`
	Session     SessionMeta `json:"session"`
	Events      []Event     `json:"events"`
}

// SessionMeta is the "session" object of a session trace. Pointer fields are
// omitted when nil. Extra carries duplexscope's own annotations (target URL,
// frame size, pacing) under the key "duplexscope"; metrics ignore it.
//
// session_id has three states: a string (SessionID set), present with null
// (SessionIDNull), or absent (both zero), in which case it defaults to
// sample_id (ResolvedSessionID).
type SessionMeta struct {
	SampleID             *string         `json:"sample_id,omitempty"`
	Split                *string         `json:"split,omitempty"`
	SessionID            *string         `json:"session_id,omitempty"`
	SessionIDNull        bool            `json:"-"`
	InputAudioDurationMs *float64        `json:"input_audio_duration_ms,omitempty"`
	StreamStartMs        *float64        `json:"stream_start_ms,omitempty"`
	Extra                json.RawMessage `json:"duplexscope,omitempty"`
}

// ResolvedSessionID returns the session_id metrics report: the session_id
// string, nil when it is present with null, else the sample_id (may be nil).
func (m SessionMeta) ResolvedSessionID() *string {
	switch {
	case m.SessionID != nil:
		return m.SessionID
	case m.SessionIDNull:
		return nil
	default:
		return m.SampleID
	}
}

// StreamStartS returns the stream start in seconds on the client monotonic
// clock: stream_start_ms / 1000.0, or 0.0 when it is absent or null.
func (m SessionMeta) StreamStartS() float64 {
	if m.StreamStartMs == nil {
		return 0.0
	}
	return *m.StreamStartMs / 1000.0
}

// MarshalJSON writes the known keys in a fixed order, session_id as null
// when SessionIDNull.
func (m SessionMeta) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	n := 0
	put := func(k string, v any) error {
		raw, err := json.Marshal(v)
		if err != nil {
			return fmt.Errorf("trace: session.%s: %w", k, err)
		}
		if n > 0 {
			b.WriteByte(',')
		}
		n++
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		b.Write(raw)
		return nil
	}
	var err error
	if m.SampleID != nil {
		err = errors.Join(err, put("sample_id", *m.SampleID))
	}
	if m.Split != nil {
		err = errors.Join(err, put("split", *m.Split))
	}
	if m.SessionID != nil {
		err = errors.Join(err, put("session_id", *m.SessionID))
	} else if m.SessionIDNull {
		err = errors.Join(err, put("session_id", nil))
	}
	if m.InputAudioDurationMs != nil {
		err = errors.Join(err, put("input_audio_duration_ms", *m.InputAudioDurationMs))
	}
	if m.StreamStartMs != nil {
		err = errors.Join(err, put("stream_start_ms", *m.StreamStartMs))
	}
	if len(m.Extra) > 0 {
		err = errors.Join(err, put("duplexscope", m.Extra))
	}
	if err != nil {
		return nil, err
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON applies the null-vs-missing rules: sample_id/split/
// session_id must be strings or null; stream_start_ms a number or null;
// input_audio_duration_ms is informational and ignored unless a number.
// Unknown keys are ignored.
func (m *SessionMeta) UnmarshalJSON(data []byte) error {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil {
		return fmt.Errorf("trace: session: %w", err)
	}
	if obj == nil { // "session": null
		*m = SessionMeta{}
		return nil
	}
	var out SessionMeta
	str := func(k string) (*string, bool, error) {
		raw, ok := obj[k]
		if !ok {
			return nil, false, nil
		}
		if isNull(raw) {
			return nil, true, nil
		}
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, true, fmt.Errorf("trace: session.%s must be a string or null", k)
		}
		return &s, true, nil
	}
	var err error
	if out.SampleID, _, err = str("sample_id"); err != nil {
		return err
	}
	if out.Split, _, err = str("split"); err != nil {
		return err
	}
	var present bool
	if out.SessionID, present, err = str("session_id"); err != nil {
		return err
	}
	out.SessionIDNull = present && out.SessionID == nil
	if raw, ok := obj["stream_start_ms"]; ok && !isNull(raw) {
		f, err := finiteNumber(obj, "stream_start_ms", true)
		if err != nil {
			return fmt.Errorf("trace: session.stream_start_ms must be a finite number or null, got %s", showRaw(raw, true))
		}
		out.StreamStartMs = f
	}
	if raw, ok := obj["input_audio_duration_ms"]; ok {
		var f float64
		if json.Unmarshal(raw, &f) == nil && !isNull(raw) {
			out.InputAudioDurationMs = &f
		}
	}
	if raw, ok := obj["duplexscope"]; ok && !isNull(raw) {
		out.Extra = append(json.RawMessage(nil), raw...)
	}
	*m = out
	return nil
}

// Run is a kind "run" document: several sessions of one benchmark run,
// optionally merged into an existing duplex_metrics.json (ExistingReport,
// raw; HasExistingReport is true when the key is present, even with null).
type Run struct {
	Format            string
	Kind              string
	Description       string
	ExistingReport    json.RawMessage
	HasExistingReport bool
	Sessions          []Session
}

// MarshalJSON writes the run in the vectors' layout.
func (r Run) MarshalJSON() ([]byte, error) {
	type run struct {
		Format         string           `json:"format,omitempty"`
		Kind           string           `json:"kind,omitempty"`
		Description    string           `json:"description,omitempty"`
		ExistingReport *json.RawMessage `json:"existing_report,omitempty"`
		Sessions       []Session        `json:"sessions"`
	}
	out := run{Format: r.Format, Kind: r.Kind, Description: r.Description, Sessions: r.Sessions}
	if r.HasExistingReport {
		raw := r.ExistingReport
		if len(raw) == 0 {
			raw = json.RawMessage("null")
		}
		out.ExistingReport = &raw
	}
	if out.Sessions == nil {
		out.Sessions = []Session{}
	}
	return json.Marshal(out)
}

// EngineTPOT is a kind "engine_tpot" document: one request's engine outputs.
type EngineTPOT struct {
	Format      string         `json:"format,omitempty"`
	Kind        string         `json:"kind,omitempty"`
	Description string         `json:"description,omitempty"`
	Outputs     []EngineOutput `json:"outputs"`
}

// EngineOutput is one engine output step. NewTokens and Segment stay raw
// because the TPOT rule distinguishes JSON types (booleans, strings, floats);
// Segment is nil when the key is missing (an explicit null is "null").
type EngineOutput struct {
	TMs       float64         `json:"t_ms"`
	NewTokens json.RawMessage `json:"new_tokens,omitempty"`
	Segment   json.RawMessage `json:"segment,omitempty"`
}

// UnmarshalJSON keeps an explicit "segment": null distinct from a missing key.
func (o *EngineOutput) UnmarshalJSON(data []byte) error {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil {
		return fmt.Errorf("trace: engine output: %w", err)
	}
	if obj == nil {
		return errors.New("trace: engine output must be an object")
	}
	var out EngineOutput
	t, err := finiteNumber(obj, "t_ms", true)
	if err != nil {
		return fmt.Errorf("trace: engine output: %w", err)
	}
	out.TMs = *t
	if raw, ok := obj["new_tokens"]; ok {
		out.NewTokens = append(json.RawMessage(nil), raw...)
	}
	if raw, ok := obj["segment"]; ok {
		out.Segment = append(json.RawMessage(nil), raw...)
	}
	*o = out
	return nil
}

// Document is a decoded trace: exactly one of Session, Run, EngineTPOT is
// set, as Kind says.
type Document struct {
	Kind       string
	Session    *Session
	Run        *Run
	EngineTPOT *EngineTPOT
}

func isNull(raw json.RawMessage) bool {
	return string(bytes.TrimSpace(raw)) == "null"
}

// MarshalJSON writes the session in the vectors' layout; nil Events are
// written as [] (a reader of the format expects a list).
func (s Session) MarshalJSON() ([]byte, error) {
	type plain Session // no methods: avoids recursion
	p := plain(s)
	if p.Events == nil {
		p.Events = []Event{}
	}
	return json.Marshal(p)
}
