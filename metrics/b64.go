package metrics

// b64Len returns the length of the bytes Python's base64.b64decode (lenient:
// validate=False) yields for s, or false when it raises: non-ASCII input, a
// padding error, or one stray data character. Non-alphabet characters are
// discarded; a complete pad sequence ends decoding (CPython
// binascii.a2b_base64, non-strict mode).
func b64Len(s []byte) (int, bool) {
	// Fast path: a run of alphabet characters (the whole payload, usually).
	run := 0
	for run < len(s) && b64Alpha[s[run]] {
		run++
	}
	quad := run % 4
	return b64Scan(s[run:], run/4*3+max(0, quad-1), quad)
}

// b64Scan goes on from n decoded bytes and quad characters into the
// current quantum, one character of s at a time: the rule itself, which the
// fast path of b64Len only skips ahead in.
func b64Scan(s []byte, n, quad int) (int, bool) {
	// str.encode("ascii") runs before any decoding: one non-ASCII character
	// anywhere (even after a complete pad sequence) raises.
	for _, c := range s {
		if c >= 0x80 {
			return 0, false
		}
	}
	pads := 0
	for _, c := range s {
		if c == '=' {
			if quad >= 2 {
				pads++
				if quad+pads >= 4 {
					return n, true
				}
			}
			continue
		}
		if !isB64(c) {
			continue
		}
		pads = 0
		if quad > 0 {
			n++ // the quantum's 2nd, 3rd and 4th characters complete a byte each
		}
		quad = (quad + 1) % 4
	}
	if quad != 0 {
		return 0, false
	}
	return n, true
}

func isB64(c byte) bool { return b64Alpha[c] }

var b64Alpha = func() (t [256]bool) {
	for c := range 256 {
		t[c] = c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/'
	}
	return t
}()
