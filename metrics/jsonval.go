package metrics

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
)

// Raw JSON probing with Python's type semantics: the reference reads events
// with json.loads, so a JSON integer, a float, a boolean and a string are
// different things (METRICS.md §10.2). Values are inspected lazily so that
// large audio payloads are never copied.

type jkind uint8

const (
	jMissing jkind = iota
	jNull
	jBool
	jString
	jNumber
	jArray
	jObject
)

type obj = map[string]json.RawMessage

func kindOf(raw json.RawMessage) jkind {
	raw = trimWS(raw)
	if len(raw) == 0 {
		return jMissing
	}
	switch raw[0] {
	case 'n':
		return jNull
	case 't', 'f':
		return jBool
	case '"':
		return jString
	case '[':
		return jArray
	case '{':
		return jObject
	default:
		return jNumber
	}
}

func trimWS(raw json.RawMessage) json.RawMessage {
	for len(raw) > 0 && isSpace(raw[0]) {
		raw = raw[1:]
	}
	for len(raw) > 0 && isSpace(raw[len(raw)-1]) {
		raw = raw[:len(raw)-1]
	}
	return raw
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// isIntLit reports whether a number literal is a JSON integer (Python int).
func isIntLit(raw json.RawMessage) bool {
	return bytes.IndexAny(raw, ".eE") < 0
}

// number returns a JSON number (not a boolean) as float64. Out-of-range
// literals become ±Inf, as Python's float parsing does.
func number(raw json.RawMessage) (float64, bool) {
	raw = trimWS(raw)
	if kindOf(raw) != jNumber {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return f, true
		}
		return 0, false
	}
	return f, true
}

// realFinite returns a real number (not bool) that is finite.
func realFinite(raw json.RawMessage) (float64, bool) {
	f, ok := number(raw)
	if !ok || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, false
	}
	return f, true
}

// intLike returns a Python int: a JSON integer literal or a boolean (1/0).
func intLike(raw json.RawMessage) (float64, bool) {
	raw = trimWS(raw)
	switch kindOf(raw) {
	case jBool:
		if raw[0] == 't' {
			return 1, true
		}
		return 0, true
	case jNumber:
		if !isIntLit(raw) {
			return 0, false
		}
		return number(raw)
	}
	return 0, false
}

// numberOrBool returns a JSON number or a boolean as 1/0 (Python
// isinstance(v, (int, float))).
func numberOrBool(raw json.RawMessage) (float64, bool) {
	raw = trimWS(raw)
	if kindOf(raw) == jBool {
		return intLike(raw)
	}
	return number(raw)
}

// str returns a JSON string's value.
func str(raw json.RawMessage) (string, bool) {
	raw = trimWS(raw)
	if kindOf(raw) != jString {
		return "", false
	}
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw[1 : len(raw)-1]), true
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// strBytes is str without allocation when the literal has no escapes.
func strBytes(raw json.RawMessage) ([]byte, bool) {
	raw = trimWS(raw)
	if kindOf(raw) != jString {
		return nil, false
	}
	if bytes.IndexByte(raw, '\\') < 0 {
		return raw[1 : len(raw)-1], true
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return nil, false
	}
	return []byte(s), true
}

// nonEmptyString reports a JSON string with at least one character.
func nonEmptyString(raw json.RawMessage) bool {
	raw = trimWS(raw)
	return kindOf(raw) == jString && len(raw) > 2
}

// truthy is Python truthiness of a decoded JSON value (missing = None).
func truthy(raw json.RawMessage) bool {
	raw = trimWS(raw)
	switch kindOf(raw) {
	case jMissing, jNull:
		return false
	case jBool:
		return raw[0] == 't'
	case jString:
		return len(raw) > 2
	case jArray, jObject:
		return len(trimWS(raw[1:len(raw)-1])) > 0
	default:
		f, ok := number(raw)
		return !ok || f != 0
	}
}

// object decodes a JSON object's top level; nil when raw is not an object.
func object(raw json.RawMessage) obj {
	if kindOf(raw) != jObject {
		return nil
	}
	var o obj
	if json.Unmarshal(raw, &o) != nil {
		return nil
	}
	if o == nil {
		o = obj{}
	}
	return o
}

// path walks nested objects; nil when any step is missing or not an object.
func path(o obj, keys ...string) obj {
	for _, k := range keys {
		if o == nil {
			return nil
		}
		o = object(o[k])
	}
	return o
}
