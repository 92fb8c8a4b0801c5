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
	// str.encode("ascii") runs before any decoding: one non-ASCII character
	// anywhere (even after a complete pad sequence) raises. The run above
	// is ASCII already.
	for _, c := range s[run:] {
		if c >= 0x80 {
			return 0, false
		}
	}
	quad := run % 4
	n := run/4*3 + max(0, quad-1)
	pads := 0
	for _, c := range s[run:] {
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
		switch quad {
		case 0:
			quad = 1
		case 1:
			quad = 2
			n++
		case 2:
			quad = 3
			n++
		case 3:
			quad = 0
			n++
		}
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
