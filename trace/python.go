package trace

import "bytes"

// Spellings PythonJSON gives Python's non-standard number tokens. Infinity
// becomes an out-of-range literal that parses to ±Inf (as in Python);
// NaN becomes NaNLiteral, which metrics recognise as NaN.
const (
	InfLiteral    = "1e999"
	NegInfLiteral = "-1e999"
	NaNLiteral    = "-1E+999999999999999999"
)

// PythonJSON rewrites the bare tokens NaN, Infinity and -Infinity that
// Python's json module reads and writes (allow_nan) into standard JSON
// number literals, outside strings only, so encoding/json can read
// documents the reference produced. Input without those tokens is returned
// unchanged (same slice).
func PythonJSON(data []byte) []byte {
	if !bytes.Contains(data, []byte("NaN")) && !bytes.Contains(data, []byte("Infinity")) {
		return data
	}
	out := make([]byte, 0, len(data)+32)
	inStr := false
	for i := 0; i < len(data); i++ {
		c := data[i]
		if inStr {
			out = append(out, c)
			switch c {
			case '\\':
				if i+1 < len(data) {
					i++
					out = append(out, data[i])
				}
			case '"':
				inStr = false
			}
			continue
		}
		switch {
		case c == '"':
			inStr = true
			out = append(out, c)
		case bytes.HasPrefix(data[i:], []byte("NaN")):
			out = append(out, NaNLiteral...)
			i += len("NaN") - 1
		case bytes.HasPrefix(data[i:], []byte("-Infinity")):
			out = append(out, NegInfLiteral...)
			i += len("-Infinity") - 1
		case bytes.HasPrefix(data[i:], []byte("Infinity")):
			out = append(out, InfLiteral...)
			i += len("Infinity") - 1
		default:
			out = append(out, c)
		}
	}
	return out
}
