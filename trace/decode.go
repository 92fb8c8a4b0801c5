package trace

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// Decode reads a duplex-trace/v1 document. A missing (or null) "format" is
// accepted, any other format is ErrFormat; a missing (or null) "kind" means
// "session", an unknown kind is ErrKind. Malformed events inside a valid
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
func (s *Session) UnmarshalJSON(data []byte) error {
	obj, err := decodeHead(data)
	if err != nil {
		return err
	}
	kind, err := headKind(obj)
	if err != nil {
		return err
	}
	if kind != KindSession {
		return fmt.Errorf("%w: want %q, got %q", ErrKind, KindSession, kind)
	}
	out, err := sessionFrom(obj)
	if err != nil {
		return err
	}
	*s = out
	return nil
}

// UnmarshalJSON decodes a run document with the same rules as Decode.
func (r *Run) UnmarshalJSON(data []byte) error {
	obj, err := decodeHead(data)
	if err != nil {
		return err
	}
	out, err := runFrom(obj)
	if err != nil {
		return err
	}
	*r = out
	return nil
}

func decodeHead(data []byte) (map[string]json.RawMessage, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil {
		return nil, fmt.Errorf("trace: %w", err)
	}
	if obj == nil {
		return nil, errors.New("trace: document must be a JSON object")
	}
	if raw, ok := obj["format"]; ok && !isNull(raw) {
		var f string
		if err := json.Unmarshal(raw, &f); err != nil || f != Format {
			return nil, fmt.Errorf("%w %s (want %q)", ErrFormat, clip(raw), Format)
		}
	}
	return obj, nil
}

func headKind(obj map[string]json.RawMessage) (string, error) {
	raw, ok := obj["kind"]
	if !ok || isNull(raw) {
		return KindSession, nil
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
	if raw, ok := obj["kind"]; ok && !isNull(raw) {
		s.Kind = KindSession
	}
	s.Skipped = truthy(obj["skipped"])
	if raw, ok := obj["session"]; ok {
		if err := json.Unmarshal(raw, &s.Session); err != nil {
			return Session{}, err
		}
	}
	if raw, ok := obj["events"]; ok && !isNull(raw) {
		if err := json.Unmarshal(raw, &s.Events); err != nil {
			return Session{}, fmt.Errorf("trace: events: %w", err)
		}
	}
	for i := range s.Events {
		if s.Events[i].Event != nil {
			s.Events[i].Event = append(json.RawMessage(nil), s.Events[i].Event...)
		}
	}
	return s, nil
}

func runFrom(obj map[string]json.RawMessage) (Run, error) {
	var r Run
	var err error
	if r.Format, r.Description, err = head(obj); err != nil {
		return Run{}, err
	}
	r.Kind = KindRun
	if raw, ok := obj["existing_report"]; ok {
		r.HasExistingReport = true
		r.ExistingReport = append(json.RawMessage(nil), bytes.TrimSpace(raw)...)
	}
	if raw, ok := obj["sessions"]; ok && !isNull(raw) {
		if err := json.Unmarshal(raw, &r.Sessions); err != nil {
			return Run{}, fmt.Errorf("trace: sessions: %w", err)
		}
	}
	return r, nil
}

func engineFrom(obj map[string]json.RawMessage) (EngineTPOT, error) {
	var e EngineTPOT
	var err error
	if e.Format, e.Description, err = head(obj); err != nil {
		return EngineTPOT{}, err
	}
	e.Kind = KindEngineTPOT
	if raw, ok := obj["outputs"]; ok && !isNull(raw) {
		if err := json.Unmarshal(raw, &e.Outputs); err != nil {
			return EngineTPOT{}, fmt.Errorf("trace: outputs: %w", err)
		}
	}
	return e, nil
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
