package metrics

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/duplexscope/duplexscope/protocol"
	"github.com/duplexscope/duplexscope/trace"
)

// Object is an ordered JSON object: the generic form of rows and session
// entries in a Report (rows read back from an existing duplex_metrics.json
// keep whatever they held). A Value is one of nil, bool, string, float64,
// int, int64, Int, []any or Object.
type Object []Member

// Member is one key/value pair of an Object.
type Member struct {
	Key   string
	Value any
}

// Get returns the value of key.
func (o Object) Get(key string) (any, bool) {
	for _, m := range o {
		if m.Key == key {
			return m.Value, true
		}
	}
	return nil, false
}

// MarshalJSON writes o compactly, keys in order, floats in Python repr. It
// is strict JSON: a NaN or ±Inf anywhere is a *NonFiniteError naming its
// path (the reference's writer raises there too); writers that must not
// lose a run use Finite first.
func (o Object) MarshalJSON() ([]byte, error) {
	return appendValue(nil, o, false, 0)
}

// NonFiniteError is a NaN or ±Inf met by a JSON writer, which JSON cannot
// carry.
type NonFiniteError struct {
	Path  string // JSON path of the value, e.g. session_metrics.ttft_ms.mean
	Value float64
}

func (e *NonFiniteError) Error() string {
	return fmt.Sprintf("%s is %s, which is not a JSON number (the reference raises on it)", e.Path, pyFloatToken(e.Value))
}

func pyFloatToken(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case f > 0:
		return "Infinity"
	}
	return "-Infinity"
}

// inPath prefixes a NonFiniteError's path with the key or index it sat under.
func inPath(err error, key string, index int) error {
	ne, ok := err.(*NonFiniteError)
	if !ok {
		return err
	}
	seg := key
	if key == "" && index >= 0 {
		seg = "[" + strconv.Itoa(index) + "]"
	}
	switch {
	case ne.Path == "":
		ne.Path = seg
	case ne.Path[0] == '[' || seg == "":
		ne.Path = seg + ne.Path
	default:
		ne.Path = seg + "." + ne.Path
	}
	return ne
}

// Finite returns a copy of the Object value v with every NaN and ±Inf
// replaced by null (and every integer too large for a float64, which float
// readers take for an infinity), and the JSON paths it replaced (in
// document order).
// Writers that must not lose a run over one bad server value (duplex_metrics
// .json, report JSON, the page) use it and turn the paths into validity
// warnings; `score` refuses instead (MarshalJSON).
func Finite(v any) (any, []string) {
	var w finiteWalk
	out := w.value(v)
	return out, w.paths
}

// finiteWalk is one Finite call: the path to the value it is at, kept as
// segments and spelled only for a replaced value (spelling every member's
// path made Finite the most of duplex_metrics.json's cost: 700 000
// allocations for 10 000 rows).
type finiteWalk struct {
	segs  []pathSeg
	paths []string
}

// pathSeg is a member key, or an element index when key is "" and index ≥ 0.
type pathSeg struct {
	key   string
	index int
}

func (w *finiteWalk) value(v any) any {
	switch v := v.(type) {
	case float64:
		if !finite(v) {
			w.replaced()
			return nil
		}
		return v
	case Int:
		// An integer beyond the float64 range is exact JSON, but every
		// float64 reader (the page's JavaScript, report validation) takes
		// it for an infinity: the writers that keep a run keep it as null.
		if _, ok := v.Float64(); !ok {
			w.replaced()
			return nil
		}
		return v
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			w.segs = append(w.segs, pathSeg{index: i})
			out[i] = w.value(e)
			w.segs = w.segs[:len(w.segs)-1]
		}
		return out
	case Object:
		out := make(Object, len(v))
		for i, m := range v {
			w.segs = append(w.segs, pathSeg{key: m.Key, index: -1})
			out[i] = Member{m.Key, w.value(m.Value)}
			w.segs = w.segs[:len(w.segs)-1]
		}
		return out
	}
	return v
}

// replaced notes the current path: keys joined by ".", indexes as "[i]".
func (w *finiteWalk) replaced() {
	var b strings.Builder
	for i, s := range w.segs {
		switch {
		case s.key == "" && s.index >= 0:
			b.WriteString("[" + strconv.Itoa(s.index) + "]")
		case i > 0:
			b.WriteString("." + s.key)
		default:
			b.WriteString(s.key)
		}
	}
	w.paths = append(w.paths, b.String())
}

// allFinite reports that Finite would replace nothing in v, without
// copying it: the writers below skip the copy for the usual report.
func allFinite(v any) bool {
	switch v := v.(type) {
	case float64:
		return finite(v)
	case Int:
		_, ok := v.Float64()
		return ok
	case []any:
		for _, e := range v {
			if !allFinite(e) {
				return false
			}
		}
	case Object:
		for _, m := range v {
			if !allFinite(m.Value) {
				return false
			}
		}
	}
	return true
}

// appendValue appends v as JSON. With indent it follows Python's
// json.dumps(v, ensure_ascii=False, indent=2); without, it is compact.
func appendValue(b []byte, v any, indent bool, depth int) ([]byte, error) {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case bool:
		return strconv.AppendBool(b, v), nil
	case string:
		return appendString(b, v), nil
	case float64:
		if !finite(v) {
			return nil, &NonFiniteError{Value: v}
		}
		return appendPyFloat(b, v), nil
	case int:
		return strconv.AppendInt(b, int64(v), 10), nil
	case int64:
		return strconv.AppendInt(b, v, 10), nil
	case Int:
		return append(b, v.String()...), nil
	case []any:
		return appendItems(b, '[', ']', len(v), indent, depth, func(b []byte, i int) ([]byte, error) {
			b, err := appendValue(b, v[i], indent, depth+1)
			if err != nil {
				return nil, inPath(err, "", i)
			}
			return b, nil
		})
	case Object:
		return appendItems(b, '{', '}', len(v), indent, depth, func(b []byte, i int) ([]byte, error) {
			b = appendString(b, v[i].Key)
			b = append(b, ':')
			if indent {
				b = append(b, ' ')
			}
			b, err := appendValue(b, v[i].Value, indent, depth+1)
			if err != nil {
				return nil, inPath(err, v[i].Key, -1)
			}
			return b, nil
		})
	}
	return nil, fmt.Errorf("metrics: cannot encode %T", v)
}

// appendItems appends the n items of an array or object between open and
// close, comma separated and, with indent, one a line; item appends the
// i-th. Empty, it is open and close alone, as in Python.
func appendItems(b []byte, open, close byte, n int, indent bool, depth int, item func(b []byte, i int) ([]byte, error)) ([]byte, error) {
	b = append(b, open)
	if n == 0 {
		return append(b, close), nil
	}
	var err error
	for i := range n {
		if i > 0 {
			b = append(b, ',')
		}
		b = newline(b, indent, depth+1)
		if b, err = item(b, i); err != nil {
			return nil, err
		}
	}
	b = newline(b, indent, depth)
	return append(b, close), nil
}

func newline(b []byte, indent bool, depth int) []byte {
	if !indent {
		return b
	}
	b = append(b, '\n')
	for range depth {
		b = append(b, "  "...)
	}
	return b
}

// appendPyFloat writes f as Python's repr(float): shortest round-trip
// digits, ".0" on integral values, exponent form when the decimal exponent
// is < −4 or ≥ 16 (e-05, e+16). Callers never pass NaN/±Inf (appendValue
// refuses them); the bare tokens are kept only as a last-resort spelling.
func appendPyFloat(b []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(b, "NaN"...)
	case math.IsInf(f, 1):
		return append(b, "Infinity"...)
	case math.IsInf(f, -1):
		return append(b, "-Infinity"...)
	}
	var buf [32]byte
	e := strconv.AppendFloat(buf[:0], f, 'e', -1, 64) // [-]d[.ddd]e±XX
	i := bytes.IndexByte(e, 'e')
	exp := 0
	for _, c := range e[i+2:] {
		exp = exp*10 + int(c-'0')
	}
	if e[i+1] == '-' {
		exp = -exp
	}
	mant := e[:i]
	if exp < -4 || exp >= 16 {
		b = append(b, mant...)
		b = append(b, 'e')
		if exp < 0 {
			b = append(b, '-')
			exp = -exp
		} else {
			b = append(b, '+')
		}
		if exp < 10 {
			b = append(b, '0')
		}
		return strconv.AppendInt(b, int64(exp), 10)
	}
	if mant[0] == '-' {
		b = append(b, '-')
		mant = mant[1:]
	}
	var digits [24]byte // mantissa digits without the point
	d := append(digits[:0], mant[0])
	if len(mant) > 2 {
		d = append(d, mant[2:]...)
	}
	if exp < 0 {
		b = append(b, '0', '.')
		for range -exp - 1 {
			b = append(b, '0')
		}
		return append(b, d...)
	}
	if len(d) <= exp+1 {
		b = append(b, d...)
		for range exp + 1 - len(d) {
			b = append(b, '0')
		}
		return append(b, '.', '0')
	}
	b = append(b, d[:exp+1]...)
	b = append(b, '.')
	return append(b, d[exp+1:]...)
}

// shortEscape is the letter of a character's two-character JSON escape
// (\n for '\n'), 0 for the characters that have none.
var shortEscape = [utf8.RuneSelf]byte{'"': '"', '\\': '\\', '\n': 'n', '\r': 'r', '\t': 't', '\b': 'b', '\f': 'f'}

// appendString writes s as Python's json.dumps(ensure_ascii=False) does:
// \" \\ \n \r \t \b \f, other control characters as \u00XX, everything
// else (non-ASCII too) as is; a lone surrogate kept by protocol.JSONString
// is written back as its \uXXXX escape (json.dumps' ensure_ascii form, the
// only way JSON carries one); other invalid UTF-8 becomes U+FFFD.
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r != utf8.RuneError || size != 1 {
				i += size
				continue
			}
			b = append(b, s[start:i]...)
			if u, ok := protocol.LoneSurrogate(s, i); ok { // kept by protocol.JSONString
				b = append(b, '\\', 'u', hex[u>>12], hex[u>>8&0xf], hex[u>>4&0xf], hex[u&0xf])
				i += 3
				start = i
				continue
			}
			b = append(b, `\ufffd`...)
			i++
			start = i
			continue
		}
		b = append(b, s[start:i]...)
		if e := shortEscape[c]; e != 0 {
			b = append(b, '\\', e)
		} else {
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		}
		i++
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// ParseObject decodes a JSON object into an ordered Object. Integers become
// int64 (Int when out of range: Python ints are exact), other numbers float64; a repeated key
// keeps its first position and its last value (Python dict semantics).
func ParseObject(data []byte) (Object, error) {
	v, err := ParseValue(data)
	if err != nil {
		return nil, err
	}
	o, ok := v.(Object)
	if !ok {
		return nil, errors.New("metrics: not a JSON object")
	}
	return o, nil
}

// ParseValue decodes any JSON value into the Object value model.
//
// Python's NaN/Infinity tokens are accepted (trace.PythonJSON).
func ParseValue(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(trace.PythonJSON(data)))
	dec.UseNumber()
	v, err := parseValue(dec)
	if err != nil {
		return nil, fmt.Errorf("metrics: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("metrics: trailing data after JSON value")
	}
	return v, nil
}

func parseValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			o := Object{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, _ := kt.(string)
				v, err := parseValue(dec)
				if err != nil {
					return nil, err
				}
				replaced := false
				for i := range o {
					if o[i].Key == k {
						o[i].Value, replaced = v, true
						break
					}
				}
				if !replaced {
					o = append(o, Member{k, v})
				}
			}
			_, err := dec.Token()
			return o, err
		case '[':
			a := []any{}
			for dec.More() {
				v, err := parseValue(dec)
				if err != nil {
					return nil, err
				}
				a = append(a, v)
			}
			_, err := dec.Token()
			return a, err
		}
		return nil, fmt.Errorf("unexpected %v", t)
	case json.Number:
		s := string(t)
		if s == trace.NaNLiteral {
			return math.NaN(), nil
		}
		if !strings.ContainsAny(s, ".eE") {
			if n, err := strconv.ParseInt(s, 10, 64); err == nil {
				return n, nil
			}
			if v, ok := intLiteral(json.RawMessage(s)); ok { // a Python int: exact at any size
				return v, nil
			}
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			if ne, ok := err.(*strconv.NumError); !ok || ne.Err != strconv.ErrRange {
				return nil, err
			}
		}
		return f, nil
	default: // nil, bool, string
		return t, nil
	}
}

// nonNegReal returns a Report value that is a real number (int or float,
// not bool), finite and ≥ 0 (docs/metrics.md#run-level).
func nonNegReal(v any) (float64, bool) {
	switch v := v.(type) {
	case float64:
		return v, finite(v) && v >= 0
	case int:
		return float64(v), v >= 0
	case int64:
		return float64(v), v >= 0
	case Int:
		f, ok := v.Float64()
		return f, ok && f >= 0
	}
	return 0, false
}
