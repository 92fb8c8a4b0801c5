package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// CheckJSON checks raw JSON against the limits before it is decoded: size,
// valid UTF-8, nesting depth, array length, string length, and numbers that
// would be non-finite as float64 (1e999). Go's decoder would silently
// replace invalid UTF-8 and accept 10 000 levels of nesting, so this runs
// first. It also refuses what parsers read differently (a parser
// differential lets a report mean one thing to the archive and another to
// a script reading it): duplicate keys in one object, also after case
// folding (Go matches "Model" and "\u017fchema" to the same field, last one
// wins; JavaScript keeps the last exact key, Python too), and lone UTF-16
// surrogate escapes ("\ud800", which Go turns into U+FFFD) in keys and in
// duplexscope's own fields. Wire data keeps the metrics' lone-surrogate
// rule and is never refused for it: the vLLM payload under "metrics", the
// imported file's extra keys under "imported", and values of the keys that
// copy wire text (session_id, response_id, active_response_id, transcript,
// error). The path in the error is the innermost key seen.
func CheckJSON(b []byte, lim Limits) error {
	if lim.Stored {
		return checkJSON(b, lim, nil)
	}
	return checkJSON(b, lim, reportExempt)
}

// wireKeys name values that copy text from the wire (ids the server chose,
// its transcripts and error texts).
var wireKeys = map[string]bool{"session_id": true, "response_id": true, "active_response_id": true, "transcript": true, "error": true}

// reportExempt says which string values of a report may hold lone
// surrogates: top is the top-level key the value is under, key its own key.
func reportExempt(depth int, top, key string) bool {
	return top == "metrics" || top == "imported" || wireKeys[key]
}

// importExempt: an imported vLLM file is wire data except the top-level
// model name the archive lists it under.
func importExempt(depth int, top, key string) bool {
	return !(depth == 1 && (key == "model_id" || key == "model"))
}

// checkJSON is CheckJSON with exempt deciding where string values may hold
// lone surrogates (keys never may); nil exempt skips the parser-differential
// checks (Limits.Stored).
func checkJSON(b []byte, lim Limits, exempt func(depth int, top, key string) bool) error {
	if err := checkBytes(b, lim); err != nil {
		return err
	}
	s := jsonScan{b: b, lim: lim, exempt: exempt}
	for i := 0; i < len(b); i++ {
		var err error
		switch c := b[i]; c {
		case '"':
			i, err = s.str(i)
		case '{', '[':
			err = s.open(c)
		case '}', ']':
			if len(s.stack) == 0 {
				return invalid("", "unbalanced %q at byte offset %d", c, i)
			}
			s.stack = s.stack[:len(s.stack)-1]
		case 't', 'f', 'n':
			err = s.element()
			for i+1 < len(b) && b[i+1] >= 'a' && b[i+1] <= 'z' {
				i++
			}
		case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
			i, err = s.number(i)
		case 'N', 'I':
			return invalid(string(s.lastKey), "NaN and Infinity are not JSON; non-finite numbers are not allowed")
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// checkBytes checks the document as a whole: its size and its UTF-8.
func checkBytes(b []byte, lim Limits) error {
	if lim.MaxBytes > 0 && len(b) > lim.MaxBytes {
		return invalid("", "document is %d bytes, limit is %d", len(b), lim.MaxBytes)
	}
	if !utf8.Valid(b) {
		i := 0
		for i < len(b) {
			r, n := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && n <= 1 {
				break
			}
			i += n
		}
		return invalid("", "invalid UTF-8 at byte offset %d", i)
	}
	return nil
}

// jsonScan is checkJSON's state: one pass over the bytes that tracks the
// open objects and arrays without building values.
type jsonScan struct {
	b       []byte
	lim     Limits
	exempt  func(depth int, top, key string) bool
	stack   []jsonFrame
	lastKey []byte // the innermost key seen, for errors
}

// jsonFrame is one open object or array.
type jsonFrame struct {
	array bool
	count int    // array elements so far
	key   []byte // object: the key whose value comes next (the document's bytes unless escaped)
	keys  keySet // object: the keys seen
}

// path is the JSON path of the current value ("run.model",
// "metrics.duplex_request_metrics[3].ttft_ms"), for errors.
func (s *jsonScan) path() string {
	var p strings.Builder
	for _, f := range s.stack {
		if f.array {
			fmt.Fprintf(&p, "[%d]", max(0, f.count-1))
			continue
		}
		if len(f.key) == 0 {
			break
		}
		if p.Len() > 0 {
			p.WriteByte('.')
		}
		p.Write(f.key)
	}
	return p.String()
}

// element counts a value starting inside an array.
func (s *jsonScan) element() error {
	if n := len(s.stack); n > 0 && s.stack[n-1].array && !s.lim.Stored {
		s.stack[n-1].count++
		if s.lim.MaxArray > 0 && s.stack[n-1].count > s.lim.MaxArray {
			return invalid(s.path(), "array longer than %d elements", s.lim.MaxArray)
		}
	}
	return nil
}

// open starts an object or array (c is '{' or '[').
func (s *jsonScan) open(c byte) error {
	if err := s.element(); err != nil {
		return err
	}
	// Reuse the popped frame's key buffer at this depth: one
	// allocation per depth, not one per object.
	if n := len(s.stack); n < cap(s.stack) {
		s.stack = s.stack[:n+1]
		s.stack[n] = jsonFrame{array: c == '[', keys: keySet{first: s.stack[n].keys.first[:0]}}
	} else {
		s.stack = append(s.stack, jsonFrame{array: c == '['})
	}
	if s.lim.MaxDepth > 0 && len(s.stack) > s.lim.MaxDepth {
		return invalid(string(s.lastKey), "nesting deeper than %d levels", s.lim.MaxDepth)
	}
	return nil
}

// number checks the number starting at b[i] and returns the index of its
// last byte.
func (s *jsonScan) number(i int) (int, error) {
	if err := s.element(); err != nil {
		return i, err
	}
	b := s.b
	j := i
	for j < len(b) && strings.IndexByte("+-0123456789.eE", b[j]) >= 0 {
		j++
	}
	f, err := strconv.ParseFloat(string(b[i:j]), 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return i, invalid(string(s.lastKey), "malformed number %q", b[i:j])
	}
	if math.IsInf(f, 0) {
		return i, invalid(string(s.lastKey), "number %q is out of float64 range (non-finite numbers are not allowed)", b[i:j])
	}
	return j - 1, nil
}

// str checks the string whose opening quote is b[i], a key or a value,
// and returns the index of its closing quote.
func (s *jsonScan) str(i int) (int, error) {
	b := s.b
	start := i + 1
	escaped := false
	for i++; i < len(b) && b[i] != '"'; i++ {
		if b[i] == '\\' {
			escaped = true
			i++
		}
	}
	if i >= len(b) {
		return i, invalid("", "unterminated string at byte offset %d", start-1)
	}
	raw := b[start:i]
	if s.lim.MaxString > 0 && len(raw) > s.lim.MaxString {
		return i, invalid(string(s.lastKey), "string of %d bytes, limit is %d", len(raw), s.lim.MaxString)
	}
	if s.isKey(i) {
		return i, s.key(b[start-1:i+1], start-1, escaped)
	}
	return i, s.value(raw, escaped)
}

// isKey reports whether the string ending at b[end] is an object's key:
// the next non-space byte is ':'.
func (s *jsonScan) isKey(end int) bool {
	b := s.b
	j := end + 1
	for j < len(b) && (b[j] == ' ' || b[j] == '\n' || b[j] == '\r' || b[j] == '\t') {
		j++
	}
	n := len(s.stack)
	return j < len(b) && b[j] == ':' && n > 0 && !s.stack[n-1].array
}

// key takes an object key (quoted: with its quotes, at byte offset at): no
// lone surrogates, no duplicate in its object, also after case folding.
func (s *jsonScan) key(quoted []byte, at int, escaped bool) error {
	raw := quoted[1 : len(quoted)-1]
	if s.exempt == nil {
		if len(raw) <= 256 {
			s.lastKey = raw
		}
		return nil
	}
	keyb := raw
	if escaped {
		if loneSurrogate(raw) {
			return invalid(s.path(), "key with a lone UTF-16 surrogate escape (\\ud800–\\udfff not in a pair)")
		}
		var k string
		if json.Unmarshal(quoted, &k) != nil {
			return invalid(string(s.lastKey), "malformed key at byte offset %d", at)
		}
		keyb = []byte(k)
	}
	if len(keyb) <= 256 {
		s.lastKey = keyb
	}
	f := &s.stack[len(s.stack)-1]
	f.key = keyb
	if f.keys.has(keyb) {
		return invalid(s.path(), "duplicate key %q in one object (keys must differ, also ignoring case)", keyb)
	}
	f.keys.add(keyb)
	return nil
}

// value takes a string value: counted as an array element, and refused
// for a lone surrogate escape unless exempt allows one where it stands.
func (s *jsonScan) value(raw []byte, escaped bool) error {
	if err := s.element(); err != nil {
		return err
	}
	if !escaped || s.exempt == nil || !loneSurrogate(raw) {
		return nil
	}
	n := len(s.stack)
	top, key := "", ""
	if n > 0 {
		top = string(s.stack[0].key)
		if !s.stack[n-1].array {
			key = string(s.stack[n-1].key)
		} else if n > 1 && !s.stack[n-2].array {
			key = string(s.stack[n-2].key)
		}
	}
	if n == 0 || !s.exempt(n, top, key) {
		return invalid(s.path(), "lone UTF-16 surrogate escape (\\ud800–\\udfff not in a pair); send valid Unicode")
	}
	return nil
}

// keySet holds one object's keys to find duplicates as Go's decoder
// matches them (bytes.EqualFold): a short list first, since most objects
// are small, then a map of folded keys past 16 of them.
type keySet struct {
	first  [][]byte
	folded map[string]bool
}

// has reports whether the set holds a key equal to key up to case folding.
func (k *keySet) has(keyb []byte) bool {
	if k.folded != nil {
		return k.folded[foldKey(string(keyb))]
	}
	for _, f := range k.first {
		if bytes.EqualFold(f, keyb) {
			return true
		}
	}
	return false
}

// add puts a key in the set.
func (k *keySet) add(keyb []byte) {
	if k.folded == nil && len(k.first) < 16 {
		k.first = append(k.first, keyb)
		return
	}
	if k.folded == nil {
		k.folded = make(map[string]bool, 32)
		for _, f := range k.first {
			k.folded[foldKey(string(f))] = true
		}
		k.first = nil
	}
	k.folded[foldKey(string(keyb))] = true
}

// loneSurrogate reports whether a raw JSON string body holds a \uD800–\uDFFF
// escape that is not a high surrogate followed by a low one.
func loneSurrogate(raw []byte) bool {
	hex4 := func(i int) (rune, bool) {
		if i+6 > len(raw) || raw[i] != '\\' || raw[i+1] != 'u' {
			return 0, false
		}
		v, err := strconv.ParseUint(string(raw[i+2:i+6]), 16, 16)
		return rune(v), err == nil
	}
	for i := 0; i < len(raw); i++ {
		if raw[i] != '\\' {
			continue
		}
		r, ok := hex4(i)
		if !ok {
			i++ // skip the escaped byte
			continue
		}
		switch {
		case r >= 0xD800 && r <= 0xDBFF:
			lo, ok := hex4(i + 6)
			if !ok || lo < 0xDC00 || lo > 0xDFFF {
				return true
			}
			i += 11
		case r >= 0xDC00 && r <= 0xDFFF:
			return true
		default:
			i += 5
		}
	}
	return false
}

// foldKey maps a key to one representative of its case-folding class, as
// Go's decoder matches field names (Unicode simple folding: "K", "k" and
// U+212A KELVIN SIGN are one key), the classes bytes.EqualFold compares.
func foldKey(k string) string {
	ascii := true
	for i := 0; i < len(k); i++ {
		if k[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return strings.ToUpper(k)
	}
	var b strings.Builder
	for _, r := range k {
		m := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			m = min(m, f)
		}
		b.WriteRune(m)
	}
	return b.String()
}
