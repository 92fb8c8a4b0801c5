package protocol

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// The response identity rule, shared by every reader of wire JSON (metrics,
// the session state machine, the page, turn-taking, probes, the CLI): an
// event belongs to the response named by its top-level response_id if that
// is a JSON string, else by response.id if that is a JSON string, and only
// when the chosen string is non-empty (the reference lists a response only
// `if response_id`; "" is no identity and does not fall back to
// response.id). Strings are compared as the reference's Python str does:
// code unit for code unit, so two different lone surrogates ("\ud800",
// "\udbff") are two identities, not one U+FFFD.

// ResponseIdentity returns the response identity of a raw event (see the
// rule above); ok is false when the event has none.
func ResponseIdentity(raw []byte) (id string, ok bool) {
	var probe map[string]json.RawMessage // exact, case-sensitive keys (Python dict)
	if json.Unmarshal(raw, &probe) != nil {
		return "", false
	}
	return IdentityOfFields(probe["response_id"], probe["response"])
}

// IdentityOfFields applies the rule to the raw values of an event's
// top-level response_id and response keys (nil when absent), for decoders
// that keep those two raw; response is looked into only when response_id
// is not a string.
func IdentityOfFields(responseID, response json.RawMessage) (id string, ok bool) {
	if s, isStr := JSONString(responseID); isStr {
		return s, s != ""
	}
	resp := bytes.TrimSpace(response)
	if len(resp) == 0 || resp[0] != '{' {
		return "", false
	}
	var r map[string]json.RawMessage
	if json.Unmarshal(resp, &r) != nil {
		return "", false
	}
	return IdentityOf(nil, r["id"])
}

// IdentityOf applies the identity rule to the raw values of an event's
// top-level response_id and of its response.id (nil when absent or when
// response is not an object), for decoders that already hold them.
func IdentityOf(responseID, responseObjectID json.RawMessage) (id string, ok bool) {
	b, ok := IdentityBytes(responseID, responseObjectID)
	return string(b), ok
}

// IdentityBytes is IdentityOf without the string, for readers that look
// the identity up per event (no allocation when it has no escape): see
// JSONStringBytes for how long the bytes are valid.
func IdentityBytes(responseID, responseObjectID json.RawMessage) (id []byte, ok bool) {
	if b, isStr := JSONStringBytes(responseID); isStr {
		return b, len(b) > 0
	}
	if b, isStr := JSONStringBytes(responseObjectID); isStr {
		return b, len(b) > 0
	}
	return nil, false
}

// JSONString decodes a raw JSON string literal as Python's json.loads does,
// keeping lone surrogate escapes distinct: a \uD800–\uDFFF escape that is not
// half of a valid pair becomes its 3-byte generalized UTF-8 (WTF-8)
// encoding instead of U+FFFD, so equal Go strings mean equal Python strings.
// Valid pairs and every other escape decode as usual. ok is false when raw
// is not a JSON string.
func JSONString(raw []byte) (string, bool) {
	b, ok := JSONStringBytes(raw)
	return string(b), ok
}

// JSONStringBytes is JSONString without the string: a literal without an
// escape is returned as raw's own bytes (valid while raw is), one with an
// escape as new bytes.
func JSONStringBytes(raw []byte) ([]byte, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return nil, false
	}
	body := raw[1 : len(raw)-1]
	if bytes.IndexByte(body, '\\') < 0 {
		return body, true
	}
	out := make([]byte, 0, len(body))
	for i := 0; i < len(body); i++ {
		c := body[i]
		if c != '\\' {
			out = append(out, c)
			continue
		}
		i++
		if i >= len(body) {
			return nil, false
		}
		switch body[i] {
		case '"', '\\', '/':
			out = append(out, body[i])
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := hex4(body[i+1:])
			if !ok {
				return nil, false
			}
			i += 4
			if r >= 0xD800 && r < 0xDC00 && i+6 < len(body) && body[i+1] == '\\' && body[i+2] == 'u' {
				if lo, ok := hex4(body[i+3:]); ok && lo >= 0xDC00 && lo < 0xE000 {
					out = utf8.AppendRune(out, 0x10000+(r-0xD800)<<10+(lo-0xDC00))
					i += 6
					continue
				}
			}
			if r >= 0xD800 && r < 0xE000 {
				out = append(out, 0xE0|byte(r>>12), 0x80|byte(r>>6)&0x3F, 0x80|byte(r)&0x3F)
				continue
			}
			out = utf8.AppendRune(out, r)
		default:
			return nil, false
		}
	}
	return out, true
}

func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// LoneSurrogate reports whether s[i:] starts with the WTF-8 encoding of a
// lone surrogate (as JSONString produces), and returns it; writers use it to
// escape the code unit back as \uXXXX.
func LoneSurrogate(s string, i int) (rune, bool) {
	if i+2 < len(s) && s[i] == 0xED && s[i+1] >= 0xA0 && s[i+1] <= 0xBF && s[i+2] >= 0x80 && s[i+2] <= 0xBF {
		return 0xD000 | rune(s[i+1]&0x3F)<<6 | rune(s[i+2]&0x3F), true
	}
	return 0, false
}
