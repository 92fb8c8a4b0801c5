package metrics

import (
	"cmp"
	"encoding/json"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
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

// TestScanner: the allocation-light object/array scanner agrees with
// encoding/json on valid input (repeated keys: last wins) and never panics
// on malformed input.
func TestScanner(t *testing.T) {
	t.Parallel()
	o := object(json.RawMessage(` { "a" : 1, "b\u0022":"x\"}", "c":[1,{"d":"]"}], "a": null, "e": {"f": true} } `))
	if o == nil {
		t.Fatal("nil")
	}
	for k, want := range map[string]string{"a": "null", `b"`: `"x\"}"`, "c": `[1,{"d":"]"}]`, "e": `{"f": true}`} {
		if got := string(o.get(k)); got != want {
			t.Errorf("get(%q) = %q, want %q", k, got, want)
		}
	}
	if o.get("zz") != nil {
		t.Error("missing key found")
	}
	if a := array(o.get("c")); len(a) != 2 || string(a[1]) != `{"d":"]"}` {
		t.Errorf("array = %q", a)
	}
	if e := object(json.RawMessage(`{}`)); e == nil || len(e) != 0 {
		t.Errorf("empty object = %#v", e)
	}
	for _, bad := range []string{`{`, `{"a"`, `{"a":`, `{"a":1`, `{"a" 1}`, `{"a":"\"}`, `[`, `{"a":[}`, `{1:2}`, `"x"`} {
		_ = object(json.RawMessage(bad))
		_ = array(json.RawMessage(bad))
	}
}

// The fast path of b64Len agrees with the character-by-character rule.
func TestB64LenFastPath(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"AAAAAAAA", "AAAAAAA", "AAAAAA", "AAAAA", "AAAAAA==", "AAAAAAA=", "AAAAA===", "AAAA AAAA", "AAAAAA=A", "AAAAA=A", "AAAA==é", ""} {
		want, wantOK := slowB64Len([]byte(s))
		if got, ok := b64Len([]byte(s)); ok != wantOK || ok && got != want {
			t.Errorf("b64Len(%q) = %d, %v; slow path %d, %v", s, got, ok, want, wantOK)
		}
	}
}

// slowB64Len is b64Len without its fast path.
func slowB64Len(s []byte) (int, bool) { return b64Scan(s, 0, 0) }

// TestPyFloatReprRandom: the single-conversion repr equals the two-step
// construction (shortest 'e' digits, then 'f' in the fixed range) for many
// magnitudes.
func TestPyFloatReprRandom(t *testing.T) {
	t.Parallel()
	x := 1.0
	for i := 0; i < 4000; i++ {
		x = x*1.37 + 1e-7
		if x > 1e30 {
			x = 1.234e-12 * float64(i)
		}
		for _, v := range []float64{x, -x, float64(int64(x))} {
			got := string(appendPyFloat(nil, v))
			e := strconv.FormatFloat(v, 'e', -1, 64)
			exp, _ := strconv.Atoi(e[strings.IndexByte(e, 'e')+1:])
			want := ""
			if exp < -4 || exp >= 16 {
				want = strings.Replace(strings.Replace(e, "e+0", "e+0", 1), "e-0", "e-0", 1)
				if len(e)-strings.IndexByte(e, 'e') == 3 { // e+5 → e+05
					want = e[:len(e)-1] + "0" + e[len(e)-1:]
				}
			} else {
				want = strconv.FormatFloat(v, 'f', -1, 64)
				if !strings.Contains(want, ".") {
					want += ".0"
				}
			}
			if got != want {
				t.Fatalf("repr(%v) = %s, want %s", v, got, want)
			}
		}
	}
}

// sortFloats is a stable ascending sort with -0.0 == 0.0 (Python sorted()),
// on both its radix and its comparison path.
func TestSortFloats(t *testing.T) {
	t.Parallel()
	for _, n := range []int{0, 1, 7, 600, 5000} {
		v := make([]float64, n)
		x := uint64(12345)
		for i := range v {
			x = x*6364136223846793005 + 1442695040888963407
			switch x >> 61 {
			case 0:
				v[i] = 0
			case 1:
				v[i] = math.Copysign(0, -1)
			default:
				v[i] = (float64(int64(x>>11)) - 1<<52) / float64(1+x%1000)
			}
		}
		want := slices.Clone(v)
		slices.SortStableFunc(want, cmp.Compare[float64])
		got := slices.Clone(v)
		sortFloats(got)
		for i := range want {
			if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
				t.Fatalf("n=%d: index %d: got %v (signbit %v), want %v (signbit %v)", n, i, got[i], math.Signbit(got[i]), want[i], math.Signbit(want[i]))
			}
		}
	}
}

// TestFiniteWalk: Finite spells the path of every value it replaces (keys
// joined by ".", indexes as "[i]", from the top whatever it is) and nothing
// else, and allFinite, the writers' copy-free check, agrees with it.
func TestFiniteWalk(t *testing.T) {
	t.Parallel()
	huge, ok := intLiteral(json.RawMessage("1" + strings.Repeat("0", 400)))
	if !ok {
		t.Fatal("intLiteral refused a 401-digit integer")
	}
	tests := []struct {
		name      string
		in        any
		wantPaths []string
	}{
		{"clean nested", Object{{"a", 1.5}, {"b", []any{Object{{"c", Int{}}}, 2.0}}}, nil},
		{"deep NaN", Object{{"a", []any{1.0, Object{{"b", math.NaN()}}}}}, []string{"a[1].b"}},
		{"top-level array", []any{math.Inf(1), Object{{"k", math.Inf(-1)}}}, []string{"[0]", "[1].k"}},
		{"empty key", Object{{"", Object{{"", math.NaN()}}}}, []string{"."}},
		{"huge integer", Object{{"n", huge}, {"m", []any{huge}}}, []string{"n", "m[0]"}},
		{"scalar", math.NaN(), []string{""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out, paths := Finite(tt.in)
			if !slices.Equal(paths, tt.wantPaths) {
				t.Errorf("paths = %q, want %q", paths, tt.wantPaths)
			}
			if got := allFinite(tt.in); got != (len(tt.wantPaths) == 0) {
				t.Errorf("allFinite = %v with paths %q", got, tt.wantPaths)
			}
			if !allFinite(out) {
				t.Errorf("Finite left a non-finite value: %#v", out)
			}
		})
	}
}
