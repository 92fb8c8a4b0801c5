package session

import (
	"bytes"
	"encoding/binary"

	"github.com/duplexscope/duplexscope/protocol"
)

// liftMin is the length from which parseInbound lifts a string value out of
// a frame before encoding/json reads the rest. encoding/json validates a
// document byte by byte through its scanner before decoding it, about 2 ns
// a byte: for a 64 kB audio delta that was most of the 240 µs its receive
// took, the largest cost the runner adds to a bare client's (the capacity
// bench's CPU per session-second). The lifted value is checked here with
// whole-word and memchr-speed scans instead, and the rest (a few hundred
// bytes) is decoded as before.
const liftMin = 1 << 10

// liftedKeys are the inbound fields whose values can be lifted, in the
// order of liftLong's result.
var liftedKeys = [...]string{"delta", "audio", "transcript"}

// liftLong returns data with the top-level values of liftedKeys that are
// plain strings (no escape, no control byte) of at least min bytes
// replaced by "", and those values' contents (slices of data). ok is false
// when there is nothing to lift, or when data is not a top-level object the
// skim reads with certainty (a key with an escape or a non-ASCII byte, a
// lifted key that occurs twice under encoding/json's case folding); the
// caller then decodes data whole.
//
// Replacing one string token with another never changes whether the
// document is valid JSON, so encoding/json still rejects what it rejected,
// and every other field decodes exactly as before.
func liftLong(data []byte, min int) (reduced []byte, lifted [len(liftedKeys)][]byte, ok bool) {
	min = max(min, 1)                 // an empty string is not set (rawString)
	var spans [len(liftedKeys)][2]int // token bounds, quotes included
	var seen [len(liftedKeys)]int
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return nil, lifted, false
	}
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		return nil, lifted, false
	}
	for {
		if i >= len(data) || data[i] != '"' {
			return nil, lifted, false
		}
		end, escaped := protocol.JSONStringEnd(data, i)
		if end < 0 || escaped {
			return nil, lifted, false
		}
		key := data[i+1 : end-1]
		k := -1
		for j, name := range liftedKeys {
			if len(key) == len(name) && asciiFold(key, name) {
				k = j
			}
		}
		if k < 0 && !isASCII(key) {
			return nil, lifted, false // encoding/json folds some non-ASCII letters onto ASCII ones
		}
		i = skipSpace(data, end)
		if i >= len(data) || data[i] != ':' {
			return nil, lifted, false
		}
		i = skipSpace(data, i+1)
		vEnd := protocol.JSONValueEnd(data, i)
		if vEnd < 0 {
			return nil, lifted, false
		}
		if k >= 0 {
			seen[k]++
			if seen[k] > 1 {
				return nil, lifted, false
			}
			if data[i] == '"' && vEnd-i-2 >= min {
				body := data[i+1 : vEnd-1]
				if bytes.IndexByte(body, '\\') < 0 && !hasControl(body) {
					spans[k] = [2]int{i, vEnd}
					lifted[k] = body
					ok = true
				}
			}
		}
		i = skipSpace(data, vEnd)
		if i >= len(data) {
			return nil, lifted, false
		}
		if data[i] == '}' {
			break
		}
		if data[i] != ',' {
			return nil, lifted, false
		}
		i = skipSpace(data, i+1)
	}
	if !ok {
		return nil, lifted, false
	}
	// Splice in file order: at most three spans.
	order := make([][2]int, 0, len(spans))
	for _, sp := range spans {
		if sp[1] > 0 {
			order = append(order, sp)
		}
	}
	for a := 1; a < len(order); a++ {
		for b := a; b > 0 && order[b][0] < order[b-1][0]; b-- {
			order[b], order[b-1] = order[b-1], order[b]
		}
	}
	size := len(data)
	for _, sp := range order {
		size -= sp[1] - sp[0] - 2
	}
	reduced = make([]byte, 0, size)
	last := 0
	for _, sp := range order {
		reduced = append(append(reduced, data[last:sp[0]]...), '"', '"')
		last = sp[1]
	}
	return append(reduced, data[last:]...), lifted, true
}

func skipSpace(data []byte, i int) int {
	for i < len(data) {
		switch data[i] {
		case ' ', '\t', '\r', '\n':
			i++
			continue
		}
		return i
	}
	return i
}

// hasControl reports whether b holds a byte below 0x20, which no JSON
// string may hold raw; eight bytes at a time.
func hasControl(b []byte) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	for len(b) >= 8 {
		x := binary.LittleEndian.Uint64(b)
		if (x-0x20*ones)&^x&highs != 0 {
			return true
		}
		b = b[8:]
	}
	for _, c := range b {
		if c < 0x20 {
			return true
		}
	}
	return false
}

// asciiFold reports whether key equals the lower-case ASCII name under
// ASCII case folding.
func asciiFold(key []byte, name string) bool {
	for j := range len(name) {
		c := key[j]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != name[j] {
			return false
		}
	}
	return true
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return false
		}
	}
	return true
}
