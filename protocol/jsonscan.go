package protocol

import "bytes"

// The two skimmers below find a JSON token's extent without decoding or
// validating it: metrics reads the reference's key order and number
// spellings with them, and the session lifts long audio strings out of a
// frame before encoding/json reads the rest. One definition, so the two
// readers agree on where a value ends.

// JSONStringEnd returns the index just past the JSON string token that
// starts at b[i] (a '"'), or −1 when b ends first; escaped reports a
// backslash in it. Escapes are skipped, not checked.
func JSONStringEnd(b []byte, i int) (end int, escaped bool) {
	j := i + 1
	for {
		q := bytes.IndexByte(b[j:], '"')
		if q < 0 {
			return -1, escaped
		}
		e := bytes.IndexByte(b[j:j+q], '\\')
		if e < 0 {
			return j + q + 1, escaped
		}
		escaped = true
		j += e + 2 // the escaped byte, whatever it is, cannot end the string
		if j > len(b) {
			return -1, escaped
		}
	}
}

// JSONValueEnd returns the index just past the JSON value that starts at
// b[i] — a string, an object or array (by its nesting, strings skipped), or
// a scalar up to the next ',', '}', ']' or white space — or −1 when b ends
// inside it or no value starts at i.
func JSONValueEnd(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		end, _ := JSONStringEnd(b, i)
		return end
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				end, _ := JSONStringEnd(b, i)
				if end < 0 {
					return -1
				}
				i = end
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return -1
	}
	j := i
	for j < len(b) {
		switch b[j] {
		case ',', '}', ']', ' ', '\t', '\r', '\n':
			if j == i {
				return -1
			}
			return j
		}
		j++
	}
	return j
}
