package protocol

import (
	"strings"
	"testing"
)

// TestJSONValueEnd: each case is a value starting at byte 0 and a '|'
// where JSONValueEnd must say it ends; the cases without a '|' end early
// or hold no value (−1).
func TestJSONValueEnd(t *testing.T) {
	t.Parallel()
	ends := []string{
		`"abc"|,`,
		`"a\"b"|}`,
		`"a\\"|b"`, // an escaped backslash does not escape the quote
		`{"a":[1,"]"]}| x`,
		`[{"}":1}]|,`,
		`12.5e3|,`,
		`true|}`,
		`null| `,
		`-0|`,
	}
	for _, c := range ends {
		want := strings.IndexByte(c, '|')
		in := strings.Replace(c, "|", "", 1)
		if got := JSONValueEnd([]byte(in), 0); got != want {
			t.Errorf("JSONValueEnd(%q) = %d, want %d", in, got, want)
		}
	}
	for _, in := range []string{`"ab\`, `"abc`, `[1,2`, `,`, ` 1`, ``} {
		if got := JSONValueEnd([]byte(in), 0); got != -1 {
			t.Errorf("JSONValueEnd(%q) = %d, want -1", in, got)
		}
	}
	if got := JSONValueEnd([]byte(`{"a":1}`), 5); got != 6 {
		t.Errorf("a member's value: %d, want 6", got)
	}
}

func TestJSONStringEndEscaped(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]bool{`"plain"`: false, `"a\nb"`: true, `"\u00e9"`: true, `""`: false} {
		end, escaped := JSONStringEnd([]byte(in), 0)
		if end != len(in) || escaped != want {
			t.Errorf("JSONStringEnd(%q) = %d, %v; want %d, %v", in, end, escaped, len(in), want)
		}
	}
}
