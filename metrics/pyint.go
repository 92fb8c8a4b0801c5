package metrics

import (
	"encoding/json"
	"errors"
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Int is an integer with Python int semantics: exact at any size. Token
// counts are Python ints in the reference (int(num_tokens_out), sums of
// them, engine new_tokens), so a count above int64 or a sum that overflows
// it must still print exactly. The zero value is 0; values that fit int64
// never allocate.
type Int struct {
	n int64
	b *big.Int // non-nil only when the value does not fit int64
}

// IntOf returns n as an Int.
func IntOf(n int64) Int { return Int{n: n} }

func intOfBig(b *big.Int) Int {
	if b.IsInt64() {
		return Int{n: b.Int64()}
	}
	return Int{b: b}
}

// value is x for an Object: an int64 when it fits (boxing a small int64
// does not allocate, boxing an Int always does, and rows are built by
// the ten thousand), else x. Every Object reader treats the two alike.
func (x Int) value() any {
	if x.b == nil {
		return x.n
	}
	return x
}

// Big returns x as a new big.Int.
func (x Int) Big() *big.Int {
	if x.b != nil {
		return new(big.Int).Set(x.b)
	}
	return big.NewInt(x.n)
}

// Add returns x + y, exactly.
func (x Int) Add(y Int) Int {
	if x.b == nil && y.b == nil {
		s := x.n + y.n
		if (s > x.n) == (y.n > 0) { // no int64 overflow
			return Int{n: s}
		}
	}
	return intOfBig(new(big.Int).Add(x.Big(), y.Big()))
}

// Sign returns -1, 0 or +1.
func (x Int) Sign() int {
	if x.b != nil {
		return x.b.Sign()
	}
	switch {
	case x.n < 0:
		return -1
	case x.n > 0:
		return 1
	}
	return 0
}

// Cmp compares x and y (-1, 0, +1).
func (x Int) Cmp(y Int) int {
	if x.b == nil && y.b == nil {
		switch {
		case x.n < y.n:
			return -1
		case x.n > y.n:
			return 1
		}
		return 0
	}
	return x.Big().Cmp(y.Big())
}

// Equal reports x == y (go-cmp uses it).
func (x Int) Equal(y Int) bool { return x.Cmp(y) == 0 }

// Int returns x as an int, saturated at the int range (for display and
// counters; the JSON writers use the exact value).
func (x Int) Int() int {
	if x.b == nil && x.n >= math.MinInt && x.n <= math.MaxInt {
		return int(x.n)
	}
	if x.Sign() < 0 {
		return math.MinInt
	}
	return math.MaxInt
}

// Float64 returns the float64 nearest to x (ties to even) and whether it is
// finite: Python float(x), which raises OverflowError when it is not.
func (x Int) Float64() (float64, bool) {
	if x.b == nil {
		return float64(x.n), true // Go's int64 → float64 conversion rounds to nearest even
	}
	// Keep the top 54 bits of |x| (≥ 2^63): 53 for the result and the
	// rounding bit; sticky says whether anything below that is set.
	// (By hand: big.Float would link its rounding code into app.wasm.)
	a := new(big.Int).Abs(x.b)
	shift := uint(a.BitLen() - 54)
	m := new(big.Int).Rsh(a, shift).Uint64()
	sticky := a.TrailingZeroBits() < shift
	if m&1 == 1 && (sticky || m&2 == 2) { // above half, or a tie to even
		m += 2
	}
	f := math.Ldexp(float64(m>>1), int(shift)+1)
	if x.b.Sign() < 0 {
		f = -f
	}
	return f, !math.IsInf(f, 0)
}

// String returns x in decimal.
func (x Int) String() string {
	if x.b != nil {
		return x.b.String()
	}
	return strconv.FormatInt(x.n, 10)
}

// MarshalJSON writes x as a JSON integer, exactly.
func (x Int) MarshalJSON() ([]byte, error) { return []byte(x.String()), nil }

// UnmarshalJSON reads a JSON integer of any size.
func (x *Int) UnmarshalJSON(b []byte) error {
	v, ok := intLiteral(json.RawMessage(b))
	if !ok {
		return errors.New("metrics: not a JSON integer: " + clipBytes(b))
	}
	*x = v
	return nil
}

func clipBytes(b []byte) string {
	if len(b) > 40 {
		return string(b[:40]) + "…"
	}
	return string(b)
}

// intLiteral parses a JSON integer literal (no fraction, no exponent)
// exactly.
func intLiteral(raw json.RawMessage) (Int, bool) {
	raw = trimWS(raw)
	if kindOf(raw) != jNumber || !isIntLit(raw) {
		return Int{}, false
	}
	if n, err := strconv.ParseInt(string(raw), 10, 64); err == nil {
		return Int{n: n}, true
	}
	b, ok := new(big.Int).SetString(string(raw), 10)
	if !ok {
		return Int{}, false
	}
	return intOfBig(b), true
}

// truncFloat is Python int(f) for a float: exact truncation toward zero;
// false (the reference raises) for NaN and ±Inf.
func truncFloat(f float64) (Int, bool) {
	if !finite(f) {
		return Int{}, false
	}
	t := math.Trunc(f)
	if math.Abs(t) < 1<<62 {
		return Int{n: int64(t)}, true
	}
	// t is mant·2^exp with 53 significant bits: exactly a shifted int64.
	mant, exp := math.Frexp(t)
	return intOfBig(new(big.Int).Lsh(big.NewInt(int64(mant*(1<<53))), uint(exp-53))), true
}

// pyIntOf is Python int(v) for a JSON value v that is a number (literal
// kept exact when it is an integer) or a boolean; ok false when int()
// raises or v is not a number.
func pyIntOf(raw json.RawMessage) (Int, bool) {
	switch kindOf(raw) {
	case jBool:
		if trimWS(raw)[0] == 't' {
			return Int{n: 1}, true
		}
		return Int{}, true
	case jNumber:
		if v, ok := intLiteral(raw); ok {
			return v, true
		}
		f, ok := number(raw)
		if !ok {
			return Int{}, false
		}
		return truncFloat(f)
	}
	return Int{}, false
}

// pyIntConv is Python int(v or 0) for a decoded JSON value: exact; strings
// parse as int(str) does (pyIntString). The error is non-nil when Python
// raises (int of NaN/±Inf, a non-numeric string, a non-empty list or dict).
func pyIntConv(raw json.RawMessage) (Int, error) {
	if !truthy(raw) {
		return Int{}, nil
	}
	switch kindOf(raw) {
	case jBool, jNumber:
		if v, ok := pyIntOf(raw); ok {
			return v, nil
		}
		return Int{}, errors.New("int() of a non-finite number raises")
	case jString:
		s, _ := str(raw)
		if v, ok := pyIntString(s); ok {
			return v, nil
		}
		return Int{}, errors.New("int() of " + strconv.Quote(s) + " raises ValueError")
	}
	return Int{}, errors.New("int() of a list or object raises TypeError")
}

// pyFloatConv is Python float(v or 0.0) for a decoded JSON value. The error
// is non-nil when Python raises (an integer too large for a float, a
// non-numeric string, a non-empty list or dict). float("inf") does not
// raise: it returns +Inf, which no writer may print.
func pyFloatConv(raw json.RawMessage) (float64, error) {
	if !truthy(raw) {
		return 0, nil
	}
	switch kindOf(raw) {
	case jBool:
		return 1, nil
	case jNumber:
		return pyFloatNumber(raw)
	case jString:
		s, _ := str(raw)
		if f, ok := pyFloatString(s); ok {
			return f, nil
		}
		return 0, errors.New("float() of " + strconv.Quote(s) + " raises ValueError")
	}
	return 0, errors.New("float() of a list or object raises TypeError")
}

// pyFloatNumber is float(v) for a JSON number or boolean: a float literal
// as json.loads reads it (out of range → ±Inf), an integer literal
// correctly rounded, raising OverflowError when it exceeds the float range.
func pyFloatNumber(raw json.RawMessage) (float64, error) {
	if kindOf(raw) == jBool {
		f, _ := intLike(raw)
		return f, nil
	}
	f, ok := number(raw)
	if !ok {
		return 0, errors.New("not a number")
	}
	if isIntLit(trimWS(raw)) && math.IsInf(f, 0) {
		return 0, errors.New("float() of an integer this large raises OverflowError")
	}
	return f, nil
}

// pySpace is the whitespace Python's int() and float() strip: Unicode
// White_Space (U+0085, U+2028, U+3000, … count; U+001C–U+001F, which
// str.isspace accepts, and U+200B, U+FEFF do not).
func pySpace(r rune) bool { return unicode.IsSpace(r) }

// pyDecimal returns the value of a Unicode decimal digit (category Nd),
// which Python's int() and float() accept in place of ASCII digits.
// Nd characters come in contiguous runs of ten starting at zero (a Unicode
// stability guarantee), and Go's table ranges start at such a zero.
func pyDecimal(r rune) (int, bool) {
	if r >= '0' && r <= '9' {
		return int(r - '0'), true
	}
	if r < 0x80 || !unicode.Is(unicode.Nd, r) {
		return 0, false
	}
	for _, rg := range unicode.Nd.R16 {
		if r >= rune(rg.Lo) && r <= rune(rg.Hi) {
			return int(r-rune(rg.Lo)) % 10, true
		}
	}
	for _, rg := range unicode.Nd.R32 {
		if r >= rune(rg.Lo) && r <= rune(rg.Hi) {
			return int(r-rune(rg.Lo)) % 10, true
		}
	}
	return 0, false
}

// pyASCII is CPython's _PyUnicode_TransformDecimalAndSpaceToASCII followed
// by the strip int()/float() apply: Unicode decimal digits become ASCII
// digits, leading and trailing whitespace goes. false when another
// non-ASCII character remains (Python raises) or s is not valid text.
func pyASCII(s string) (string, bool) {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == utf8.RuneError:
			return "", false
		case pySpace(r):
			b.WriteByte(' ')
		case r < 0x80:
			b.WriteRune(r)
		default:
			d, ok := pyDecimal(r)
			if !ok {
				return "", false
			}
			b.WriteByte(byte('0' + d))
		}
	}
	return strings.Trim(b.String(), " "), true
}

// digitsWithUnderscores reports s as ASCII digits with single underscores
// between digits (Python's literal grouping rule, which int() and float()
// follow), and returns the digits alone.
func digitsWithUnderscores(s string) (string, bool) {
	if s == "" || s[0] == '_' || s[len(s)-1] == '_' || strings.Contains(s, "__") {
		return "", false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c != '_' && (c < '0' || c > '9') {
			return "", false
		}
	}
	return strings.ReplaceAll(s, "_", ""), true
}

// pyIntString is Python int(s) (base 10): optional whitespace, an optional
// sign, decimal digits (any Unicode Nd) with single underscores between
// them. Examples: " ١٢ " → 12, "1_000" → 1000, "-0" → 0; "1.0", "1__0",
// "_1", "+ 1", "" fail.
func pyIntString(s string) (Int, bool) {
	a, ok := pyASCII(s)
	if !ok {
		return Int{}, false
	}
	sign := ""
	if a != "" && (a[0] == '+' || a[0] == '-') {
		sign, a = a[:1], a[1:]
	}
	d, ok := digitsWithUnderscores(a)
	if !ok {
		return Int{}, false
	}
	b, ok := new(big.Int).SetString(strings.TrimPrefix(sign, "+")+d, 10)
	if !ok {
		return Int{}, false
	}
	return intOfBig(b), true
}

// pyFloatString is Python float(s): optional whitespace and sign, then
// "inf", "infinity" or "nan" in any case, or a decimal number (digits with
// single underscores between them, an optional fraction, an optional
// exponent); Unicode decimal digits count. Hexadecimal and Go-only
// spellings are rejected. Out of range values are ±Inf, as in Python.
func pyFloatString(s string) (float64, bool) {
	a, ok := pyASCII(s)
	if !ok || a == "" {
		return 0, false
	}
	neg := false
	body := a
	if body[0] == '+' || body[0] == '-' {
		neg, body = body[0] == '-', body[1:]
	}
	switch strings.ToLower(body) {
	case "inf", "infinity":
		if neg {
			return math.Inf(-1), true
		}
		return math.Inf(1), true
	case "nan":
		return math.NaN(), true
	}
	mant, exp := body, ""
	if i := strings.IndexAny(body, "eE"); i >= 0 {
		mant, exp = body[:i], body[i+1:]
		if exp != "" && (exp[0] == '+' || exp[0] == '-') {
			exp = exp[1:]
		}
		if _, ok := digitsWithUnderscores(exp); !ok {
			return 0, false
		}
	}
	ip, fp := mant, ""
	if i := strings.IndexByte(mant, '.'); i >= 0 {
		ip, fp = mant[:i], mant[i+1:]
	}
	if ip == "" && fp == "" {
		return 0, false
	}
	if ip != "" {
		if _, ok := digitsWithUnderscores(ip); !ok {
			return 0, false
		}
	}
	if fp != "" {
		if _, ok := digitsWithUnderscores(fp); !ok {
			return 0, false
		}
	}
	f, err := strconv.ParseFloat(strings.ReplaceAll(a, "_", ""), 64)
	if err != nil {
		if ne, ok := errors.AsType[*strconv.NumError](err); ok && ne.Err == strconv.ErrRange {
			return f, true
		}
		return 0, false
	}
	return f, true
}
