package trace

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
)

// Decode reads a duplex-trace/v1 document. A missing "format" is accepted,
// any other format (null too) is ErrFormat; a missing "kind" means
// "session", an unknown kind (null too) is ErrKind. The wrapper's types are
// checked (README "Trace format"): an entry's t_ms must be a finite number
// and dir a string, session.sample_id/split/session_id strings or null,
// stream_start_ms a finite number or null, engine outputs' t_ms finite
// numbers; anything else is an error naming the field. Malformed events inside a valid
// document are not errors: metrics skip them. Python's NaN/Infinity tokens
// are accepted (PythonJSON), as the reference's json.loads accepts them.
func Decode(data []byte) (Document, error) {
	obj, err := decodeHead(PythonJSON(data))
	if err != nil {
		return Document{}, err
	}
	kind, err := headKind(obj)
	if err != nil {
		return Document{}, err
	}
	switch kind {
	case KindSession:
		s, err := sessionFrom(obj)
		if err != nil {
			return Document{}, err
		}
		return Document{Kind: kind, Session: &s}, nil
	case KindRun:
		r, err := runFrom(obj)
		if err != nil {
			return Document{}, err
		}
		return Document{Kind: kind, Run: &r}, nil
	default: // KindEngineTPOT
		e, err := engineFrom(obj)
		if err != nil {
			return Document{}, err
		}
		return Document{Kind: kind, EngineTPOT: &e}, nil
	}
}

// DecodeSession reads a document that must be of kind "session".
func DecodeSession(data []byte) (Session, error) {
	doc, err := Decode(data)
	if err != nil {
		return Session{}, err
	}
	if doc.Session == nil {
		return Session{}, fmt.Errorf("%w: want %q, got %q", ErrKind, KindSession, doc.Kind)
	}
	return *doc.Session, nil
}

// UnmarshalJSON decodes a session document (or a run's session element)
// with the same rules as Decode.
func (s *Session) UnmarshalJSON(data []byte) error { return unmarshalAs(s, data, sessionOnly) }

// UnmarshalJSON decodes a run document with the same rules as Decode.
func (r *Run) UnmarshalJSON(data []byte) error { return unmarshalAs(r, data, runFrom) }

// unmarshalAs decodes data's head, builds the value with from and stores it
// in dst (left as it was on an error).
func unmarshalAs[T any](dst *T, data []byte, from func(map[string]json.RawMessage) (T, error)) error {
	obj, err := decodeHead(data)
	if err != nil {
		return err
	}
	out, err := from(obj)
	if err != nil {
		return err
	}
	*dst = out
	return nil
}

// sessionOnly is sessionFrom for an object whose kind must be session.
func sessionOnly(obj map[string]json.RawMessage) (Session, error) {
	kind, err := headKind(obj)
	if err != nil {
		return Session{}, err
	}
	if kind != KindSession {
		return Session{}, fmt.Errorf("%w: want %q, got %q", ErrKind, KindSession, kind)
	}
	return sessionFrom(obj)
}

func decodeHead(data []byte) (map[string]json.RawMessage, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil {
		return nil, fmt.Errorf("trace: %w", err)
	}
	if obj == nil {
		return nil, errors.New("trace: document must be a JSON object")
	}
	if raw, ok := obj["format"]; ok {
		var f string
		if err := json.Unmarshal(raw, &f); isNull(raw) || err != nil || f != Format {
			return nil, fmt.Errorf("%w %s (want %q, or no format key)", ErrFormat, clip(raw), Format)
		}
	}
	return obj, nil
}

// headKind returns the document's kind: a missing key means session; null
// is an unknown kind (the reference's doc.get("kind", "session") is None,
// which is no kind it scores), as is any other value.
func headKind(obj map[string]json.RawMessage) (string, error) {
	raw, ok := obj["kind"]
	if !ok {
		return KindSession, nil
	}
	if isNull(raw) {
		return "", fmt.Errorf("%w: kind is null (want %q, %q or %q, or no kind key for a session)", ErrKind, KindSession, KindRun, KindEngineTPOT)
	}
	var k string
	if err := json.Unmarshal(raw, &k); err != nil {
		return "", fmt.Errorf("%w %s", ErrKind, clip(raw))
	}
	switch k {
	case KindSession, KindRun, KindEngineTPOT:
		return k, nil
	}
	return "", fmt.Errorf("%w %q", ErrKind, k)
}

func optString(obj map[string]json.RawMessage, key string) (string, error) {
	raw, ok := obj[key]
	if !ok || isNull(raw) {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", fmt.Errorf("trace: %s must be a string", key)
	}
	return s, nil
}

func head(obj map[string]json.RawMessage) (format, desc string, err error) {
	if format, err = optString(obj, "format"); err != nil {
		return
	}
	// description is free text; a non-string one is ignored, not an error.
	desc, _ = optString(obj, "description")
	return format, desc, nil
}

func sessionFrom(obj map[string]json.RawMessage) (Session, error) {
	var s Session
	var err error
	if s.Format, s.Description, err = head(obj); err != nil {
		return Session{}, err
	}
	if _, ok := obj["kind"]; ok {
		s.Kind = KindSession
	}
	s.Skipped = truthy(obj["skipped"])
	if raw, ok := obj["session"]; ok {
		if err := json.Unmarshal(raw, &s.Session); err != nil {
			return Session{}, err
		}
	}
	if raw, ok := obj["events"]; ok && !isNull(raw) {
		var list []json.RawMessage
		if err := json.Unmarshal(raw, &list); err != nil {
			return Session{}, errors.New("trace: events must be a list of entries")
		}
		s.Events = make([]Event, len(list))
		for i, e := range list {
			if err := s.Events[i].UnmarshalJSON(e); err != nil {
				return Session{}, fmt.Errorf("trace: events[%d]: %w", i, err)
			}
		}
	}
	return s, nil
}

// UnmarshalJSON decodes one trace entry: an object with t_ms a finite
// number, dir a string and event any JSON value (kept raw; metrics read only
// objects). Anything else is an error, never a guess.
func (e *Event) UnmarshalJSON(data []byte) error {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil || obj == nil {
		return errors.New("an entry must be a JSON object with t_ms, dir and event")
	}
	t, err := finiteNumber(obj, "t_ms", true)
	if err != nil {
		return err
	}
	var out Event
	out.TMs = *t
	raw, ok := obj["dir"]
	if !ok || json.Unmarshal(raw, &out.Dir) != nil || isNull(raw) {
		return fmt.Errorf("dir must be a string (%q, %q or %q), got %s", DirRecv, DirSend, DirLocal, showRaw(raw, ok))
	}
	if raw, ok := obj["event"]; ok {
		out.Event = append(json.RawMessage(nil), bytes.TrimSpace(raw)...)
	}
	*e = out
	return nil
}

// finiteNumber reads key as a finite JSON number (not a boolean, not a
// string, not NaN or an out-of-range literal such as Infinity). With
// required a missing key is an error; else nil is returned for it.
func finiteNumber(obj map[string]json.RawMessage, key string, required bool) (*float64, error) {
	raw, ok := obj[key]
	if !ok && !required {
		return nil, nil
	}
	var f float64
	if !ok || isNull(raw) || json.Unmarshal(raw, &f) != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, fmt.Errorf("%s must be a finite number, got %s", key, showRaw(raw, ok))
	}
	return &f, nil
}

func showRaw(raw json.RawMessage, ok bool) string {
	if !ok {
		return "no " + "value"
	}
	switch s := string(bytes.TrimSpace(raw)); s {
	case NaNLiteral:
		return "NaN"
	case InfLiteral:
		return "Infinity"
	case NegInfLiteral:
		return "-Infinity"
	}
	return clip(raw)
}

func runFrom(obj map[string]json.RawMessage) (Run, error) {
	format, desc, err := head(obj)
	if err != nil {
		return Run{}, err
	}
	r := Run{Format: format, Kind: KindRun, Description: desc}
	if raw, ok := obj["existing_report"]; ok {
		r.HasExistingReport = true
		r.ExistingReport = append(json.RawMessage(nil), bytes.TrimSpace(raw)...)
	}
	if err := optList(obj, "sessions", &r.Sessions); err != nil {
		return Run{}, err
	}
	return r, nil
}

func engineFrom(obj map[string]json.RawMessage) (EngineTPOT, error) {
	format, desc, err := head(obj)
	if err != nil {
		return EngineTPOT{}, err
	}
	e := EngineTPOT{Format: format, Kind: KindEngineTPOT, Description: desc}
	if err := optList(obj, "outputs", &e.Outputs); err != nil {
		return EngineTPOT{}, err
	}
	return e, nil
}

// optList decodes obj[key] into dst unless it is missing or null.
func optList(obj map[string]json.RawMessage, key string, dst any) error {
	raw, ok := obj[key]
	if !ok || isNull(raw) {
		return nil
	}
	if err := json.Unmarshal(raw, dst); err != nil {
		return fmt.Errorf("trace: %s: %w", key, err)
	}
	return nil
}

// truthy reports Python truthiness of a raw JSON value (missing = false).
func truthy(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return false
	}
	switch raw[0] {
	case 'n', 'f':
		return false
	case 't':
		return true
	case '"':
		return len(raw) > 2
	case '[', '{':
		inner := bytes.TrimSpace(raw[1 : len(raw)-1])
		return len(inner) > 0
	default:
		var f float64
		if json.Unmarshal(raw, &f) != nil {
			return true // out-of-range number: non-zero
		}
		return f != 0
	}
}

func clip(raw json.RawMessage) string {
	if len(raw) > 40 {
		return string(raw[:40]) + "…"
	}
	return string(raw)
}
