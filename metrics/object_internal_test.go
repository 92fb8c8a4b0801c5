package metrics

import (
	"encoding/json"
	"os"
	"strconv"
	"testing"
)

// TestPyFloatRepr compares appendPyFloat with Python repr() strings
// recorded in testdata/python/float_repr.json (python3 -c 'repr(v)').
func TestPyFloatRepr(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("testdata/python/float_repr.json")
	if err != nil {
		t.Fatal(err)
	}
	var reprs []string
	if err := json.Unmarshal(data, &reprs); err != nil {
		t.Fatal(err)
	}
	if len(reprs) < 20 {
		t.Fatalf("only %d cases", len(reprs))
	}
	for _, want := range reprs {
		f, err := strconv.ParseFloat(want, 64)
		if err != nil {
			t.Fatal(err)
		}
		if got := string(appendPyFloat(nil, f)); got != want {
			t.Errorf("repr(%v): got %s, want %s", f, got, want)
		}
	}
}

// TestPythonIndent2 compares the File encoder with Python's
// json.dumps(ensure_ascii=False, indent=2) output in testdata/python.
func TestPythonIndent2(t *testing.T) {
	t.Parallel()
	want, err := os.ReadFile("testdata/python/indent2.json")
	if err != nil {
		t.Fatal(err)
	}
	v := Object{
		{"a", []any{1, 2.0, Object{}}},
		{"b", Object{}},
		{"c", []any{}},
		{"s", "é\"\\\n\t\x01<>&\u2028"},
		{"n", nil},
		{"t", true},
		{"x", Object{{"y", Object{{"z", []any{1}}}}}},
	}
	got, err := appendValue(nil, v, true, 0)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestB64Len(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		n    int
		ok   bool
		note string
	}{
		{"AAAA", 3, true, ""},
		{"AAA=", 2, true, ""},
		{"AA==", 1, true, ""},
		{"AA", 0, false, "Incorrect padding"},
		{"A", 0, false, "1 more than a multiple of 4"},
		{"AA==garbage", 1, true, "pad sequence ends decoding"},
		{"A-A_A*A", 3, true, "non-alphabet characters discarded"},
		{"=AAAA", 3, true, "leading pad ignored"},
		{"AAAAé", 0, false, "non-ASCII raises ValueError"},
		{"", 0, true, ""},
		{"AA=A", 0, false, "pad then data: still one quad short"},
	}
	for _, tc := range tests {
		n, ok := b64Len([]byte(tc.in))
		if n != tc.n || ok != tc.ok {
			t.Errorf("b64Len(%q) = %d, %v; want %d, %v (%s)", tc.in, n, ok, tc.n, tc.ok, tc.note)
		}
	}
}
