package metrics

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"

	"github.com/duplexscope/duplexscope/protocol"
	"github.com/duplexscope/duplexscope/trace"
)

// Raw JSON probing with Python's type semantics: the reference reads events
// with json.loads, so a JSON integer, a float, a boolean and a string are
// different things (docs/metrics.md#python-semantics). Values are inspected lazily so that
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

// obj is a decoded JSON object's top level: keys in document order, values
// raw. get follows Python dict semantics for repeated keys (last wins).
type obj []kv

type kv struct {
	k []byte
	v json.RawMessage
}

// get returns the raw value of key, nil when absent.
func (o obj) get(key string) json.RawMessage {
	for i := len(o) - 1; i >= 0; i-- {
		if string(o[i].k) == key {
			return o[i].v
		}
	}
	return nil
}

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
	return !bytes.ContainsAny(raw, ".eE")
}

// number returns a JSON number (not a boolean) as float64. Out-of-range
// literals become ±Inf, as Python's float parsing does.
func number(raw json.RawMessage) (float64, bool) {
	raw = trimWS(raw)
	if kindOf(raw) != jNumber {
		return 0, false
	}
	if string(raw) == trace.NaNLiteral {
		return math.NaN(), true
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

// str returns a JSON string's value, lone surrogates kept distinct
// (protocol.JSONString), as Python's str compares them.
func str(raw json.RawMessage) (string, bool) {
	raw = trimWS(raw)
	if kindOf(raw) != jString {
		return "", false
	}
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw[1 : len(raw)-1]), true
	}
	return protocol.JSONString(raw)
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

// object scans a JSON object's top level without decoding its values; nil
// when raw is not an object. Input is trusted to be JSON (trace.Decode
// validated it); malformed input gives nil or partial results, never a
// panic.
func object(raw json.RawMessage) obj {
	raw = trimWS(raw)
	if len(raw) < 2 || raw[0] != '{' {
		return nil
	}
	o := make(obj, 0, 8)
	if !scanItems(raw, '}', func(i int) int {
		if raw[i] != '"' {
			return -1
		}
		end, _ := protocol.JSONStringEnd(raw, i)
		if end < 0 {
			return -1
		}
		key := raw[i+1 : end-1]
		if bytes.IndexByte(key, '\\') >= 0 {
			k, ok := protocol.JSONString(raw[i:end])
			if !ok {
				return -1
			}
			key = []byte(k)
		}
		i = skipWS(raw, end)
		if i >= len(raw) || raw[i] != ':' {
			return -1
		}
		i = skipWS(raw, i+1)
		vend := protocol.JSONValueEnd(raw, i)
		if vend >= 0 {
			o = append(o, kv{key, raw[i:vend:vend]})
		}
		return vend
	}) {
		return nil
	}
	return o
}

// array scans a JSON array's elements (raw); nil when raw is not an array.
func array(raw json.RawMessage) []json.RawMessage {
	raw = trimWS(raw)
	if len(raw) < 2 || raw[0] != '[' {
		return nil
	}
	out := []json.RawMessage{}
	if !scanItems(raw, ']', func(i int) int {
		end := protocol.JSONValueEnd(raw, i)
		if end >= 0 {
			out = append(out, raw[i:end:end])
		}
		return end
	}) {
		return nil
	}
	return out
}

// scanItems walks the top level of the array or object raw (trimmed, its
// first byte the opening one), which closes with close: item reads the item
// (element or member) at i and returns the index after it, negative when
// malformed. scanItems reports whether raw is a whole container.
func scanItems(raw []byte, close byte, item func(i int) int) bool {
	i := skipWS(raw, 1)
	if i < len(raw) && raw[i] == close {
		return true
	}
	for i < len(raw) {
		end := item(i)
		if end < 0 {
			return false
		}
		i = skipWS(raw, end)
		if i >= len(raw) {
			return false
		}
		switch raw[i] {
		case ',':
			i = skipWS(raw, i+1)
		case close:
			return true
		default:
			return false
		}
	}
	return false
}

func skipWS(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}
