package protocol

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"
)

// Event is one decoded wire event.
type Event interface {
	// EventType returns the wire "type".
	EventType() string
	// Validate checks the fields the protocol requires for this event
	// (docs/protocol.md#conventions).
	Validate() error
}

// Header holds the fields every event has, plus what decoding preserved.
type Header struct {
	Type    string `json:"type"`
	EventID string `json:"event_id,omitempty"`

	// Extra holds keys the Go type does not model, raw; Marshal writes them back.
	Extra map[string]json.RawMessage `json:"-"`
	// Raw is the exact frame the event was decoded from (nil for built events).
	Raw json.RawMessage `json:"-"`
}

// EventType returns h.Type.
func (h *Header) EventType() string { return h.Type }

// header returns h; it lets Decode reach the embedded Header of any event.
func (h *Header) header() *Header { return h }

// ServerHeader is Header plus the optional resume-journal sequence number.
// ServerEventSeq stays raw because only a JSON integer is a sequence number
// (docs/protocol.md#resume-replay); use Seq.
type ServerHeader struct {
	Header
	ServerEventSeq json.RawMessage `json:"server_event_seq,omitempty"`
}

// Seq returns the event's server_event_seq when it is a JSON integer
// (true/false count as 1/0, the reference's quirk); ok is false otherwise.
func (h *ServerHeader) Seq() (seq int64, ok bool) { return parseSeq(h.ServerEventSeq) }

func parseSeq(raw json.RawMessage) (int64, bool) {
	s := strings.TrimSpace(string(raw))
	switch s {
	case "true":
		return 1, true
	case "false":
		return 0, true
	case "", "null":
		return 0, false
	}
	if strings.ContainsAny(s, ".eE\"") {
		return 0, false
	}
	var n int64
	if err := json.Unmarshal([]byte(s), &n); err != nil {
		return 0, false
	}
	return n, true
}

// Unknown is an event whose type this package does not model (e.g.
// "duplex.<internal>" wrappers). It keeps the frame raw.
type Unknown struct {
	Type string
	Raw  json.RawMessage
}

// EventType returns u.Type ("" when the frame had no string type).
func (u *Unknown) EventType() string { return u.Type }

// Validate always succeeds: unknown events must be ignored, not rejected.
func (u *Unknown) Validate() error { return nil }

// MarshalJSON returns the raw frame.
func (u *Unknown) MarshalJSON() ([]byte, error) {
	if len(u.Raw) == 0 {
		return json.Marshal(map[string]string{"type": u.Type})
	}
	return u.Raw, nil
}

// DecodeError reports a known event whose field has the wrong JSON type.
type DecodeError struct {
	Event string // wire type
	Field string // dotted JSON path, "" when unknown
	Err   error
}

func (e *DecodeError) Error() string {
	if e.Field != "" {
		return fmt.Sprintf("protocol: decode %s: field %q: %v", e.Event, e.Field, e.Err)
	}
	return fmt.Sprintf("protocol: decode %s: %v", e.Event, e.Err)
}

func (e *DecodeError) Unwrap() error { return e.Err }

// FieldError reports a required field that is missing or invalid.
type FieldError struct {
	Event  string // wire type
	Field  string // dotted JSON path
	Reason string
}

func (e *FieldError) Error() string {
	return fmt.Sprintf("protocol: %s: field %q: %s", e.Event, e.Field, e.Reason)
}

// ErrNotEvent is returned (wrapped) for frames that are not a JSON object
// with a string "type".
var ErrNotEvent = errors.New("not a JSON object with a string \"type\"")

var registry = map[string]func() Event{}

func register(ctor func() Event, types ...string) {
	for _, t := range types {
		registry[t] = ctor
	}
}

// Known reports whether t is an event type Decode turns into a typed event.
func Known(t string) bool { _, ok := registry[t]; return ok }

// Decode decodes one text frame. See the package doc for what is kept.
func Decode(data []byte) (Event, error) {
	raw := json.RawMessage(append([]byte(nil), data...))
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return &Unknown{Raw: raw}, fmt.Errorf("protocol: decode: %w", ErrNotEvent)
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(data, &all); err != nil {
		return &Unknown{Raw: raw}, fmt.Errorf("protocol: decode: %w", err)
	}
	var typ string
	if t, ok := all["type"]; !ok || json.Unmarshal(t, &typ) != nil {
		return &Unknown{Raw: raw}, fmt.Errorf("protocol: decode: %w", ErrNotEvent)
	}
	ctor, ok := registry[typ]
	if !ok {
		return &Unknown{Type: typ, Raw: raw}, nil
	}
	ev := ctor()
	if err := decodeTop(data, all, ev.(keeper)); err != nil {
		de := &DecodeError{Event: typ, Err: err}
		if ute, ok := errors.AsType[*json.UnmarshalTypeError](err); ok {
			de.Field = ute.Field
		}
		return &Unknown{Type: typ, Raw: raw}, de
	}
	ev.(interface{ header() *Header }).header().Raw = raw
	return ev, nil
}

// Marshal encodes ev (modelled fields, then preserved unknown keys).
//
// A modelled event's encoding (encodeKeep) is final: compact and escaped as
// json.Marshal would leave it, so it is used as it is. json.Marshal would
// scan every byte of it again: for the audio append a paced client sends
// every 200 ms that re-scan was about an eighth of the session's CPU in
// the capacity bench's profile (BenchmarkMarshalAppend: 4× faster).
func Marshal(ev Event) ([]byte, error) {
	var b []byte
	var err error
	if k, ok := ev.(keeper); ok && !isNilPointer(ev) {
		v, extra := k.keep()
		b, err = encodeKeep(v, *extra)
	} else {
		b, err = json.Marshal(ev)
	}
	if err != nil {
		return nil, fmt.Errorf("protocol: marshal %s: %w", ev.EventType(), err)
	}
	return b, nil
}

// isNilPointer reports a typed nil pointer, which json.Marshal encodes as
// null and whose value-receiver MarshalJSON would panic.
func isNilPointer(v any) bool {
	r := reflect.ValueOf(v)
	return r.Kind() == reflect.Pointer && r.IsNil()
}

// identity applies the response identity rule to decoded fields.
func identity(responseID string, resp *ResponseObject) string {
	if responseID != "" {
		return responseID
	}
	if resp != nil {
		return resp.ID
	}
	return ""
}

// decodeKeep unmarshals data into v (a pointer to a method-less twin of the
// real type) and stores keys that v's type does not model in *extra.
func decodeKeep(data []byte, v any, extra *map[string]json.RawMessage) error {
	if err := json.Unmarshal(data, v); err != nil {
		return err
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(data, &all); err != nil {
		return err
	}
	known := knownKeys(reflect.TypeOf(v).Elem())
	for k := range all {
		if known[k] {
			delete(all, k)
		}
	}
	if len(all) > 0 {
		*extra = all
	} else {
		*extra = nil
	}
	return nil
}

// keeper is a top-level event: keep returns a pointer to its method-less
// twin and to its Extra map.
type keeper interface {
	keep() (any, *map[string]json.RawMessage)
}

// decodeTop fills ev from data in one typed pass, taking the unknown keys
// from all (data already decoded as an object), so a large frame is not
// scanned again for them.
func decodeTop(data []byte, all map[string]json.RawMessage, ev keeper) error {
	plain, extra := ev.keep()
	known := knownKeys(reflect.TypeOf(plain).Elem())
	if err := json.Unmarshal(exactKeys(data, all, known), plain); err != nil {
		return err
	}
	*extra = nil
	for k, v := range all {
		if !known[k] {
			if *extra == nil {
				*extra = map[string]json.RawMessage{}
			}
			(*extra)[k] = v
		}
	}
	return nil
}

// exactKeys returns data, or, when a key only case-folds onto a modelled
// key ("tYpe"), the object without such keys: encoding/json matches struct
// fields case-insensitively, the wire (like Python's json.loads) does not,
// so "tYpe" stays an extra key and never overwrites "type".
func exactKeys(data []byte, all map[string]json.RawMessage, known map[string]bool) []byte {
	folded := false
	for k := range all {
		if !known[k] && knownFold(k, known) {
			folded = true
			break
		}
	}
	if !folded {
		return data
	}
	only := make(map[string]json.RawMessage, len(all))
	for k, v := range all {
		if known[k] {
			only[k] = v
		}
	}
	b, err := json.Marshal(only)
	if err != nil {
		return data
	}
	return b
}

func knownFold(k string, known map[string]bool) bool {
	for name := range known {
		if strings.EqualFold(k, name) {
			return true
		}
	}
	return false
}

// encodeKeep marshals v and appends the extra keys in sorted order; the
// result is compact and HTML-escaped, byte for byte what json.Marshal makes
// of it.
func encodeKeep(v any, extra map[string]json.RawMessage) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil || len(extra) == 0 {
		return b, err
	}
	keys := make([]string, 0, len(extra))
	for k := range extra {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var buf bytes.Buffer
	buf.Write(b[:len(b)-1])
	first := len(b) == 2 // "{}"
	for _, k := range keys {
		if !first {
			buf.WriteByte(',')
		}
		first = false
		kb, _ := json.Marshal(k)
		buf.Write(kb)
		buf.WriteByte(':')
		val := extra[k]
		if len(val) == 0 {
			val = json.RawMessage("null")
		}
		// What json.Marshal does to a MarshalJSON result (compact, escape
		// <, >, &, U+2028, U+2029), done here so Marshal can skip it.
		var compact bytes.Buffer
		if err := json.Compact(&compact, val); err != nil {
			return nil, fmt.Errorf("extra key %q: %w", k, err)
		}
		json.HTMLEscape(&buf, compact.Bytes())
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

var knownCache sync.Map // reflect.Type → map[string]bool

// knownKeys lists the JSON keys a struct type models, including promoted
// fields of embedded structs.
func knownKeys(t reflect.Type) map[string]bool {
	if m, ok := knownCache.Load(t); ok {
		return m.(map[string]bool)
	}
	m := map[string]bool{}
	var walk func(reflect.Type)
	walk = func(t reflect.Type) {
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			tag := f.Tag.Get("json")
			if tag == "-" {
				continue
			}
			name, _, _ := strings.Cut(tag, ",")
			if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
				walk(f.Type)
				continue
			}
			if !f.IsExported() {
				continue
			}
			if name == "" {
				name = f.Name
			}
			m[name] = true
		}
	}
	walk(t)
	knownCache.Store(t, m)
	return m
}

// need returns the FieldError of the first missing key: has[i] reports
// whether keys[i] is present (the generated Validate methods).
func need(event string, has []bool, keys ...string) error {
	for i, ok := range has {
		if !ok {
			return required(event, keys[i])
		}
	}
	return nil
}

func required(event, field string) error {
	return &FieldError{Event: event, Field: field, Reason: "required"}
}
