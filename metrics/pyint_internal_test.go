package metrics

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// TestIntFloat64Rounding checks Int.Float64's hand rounding of values
// beyond int64 against big.Float (nearest, ties to even), including ties,
// values just either side of them and overflow to ±Inf.
func TestIntFloat64Rounding(t *testing.T) {
	var cases []*big.Int
	one := big.NewInt(1)
	for _, bits := range []uint{63, 64, 65, 80, 117, 1023, 1024, 1025} {
		p := new(big.Int).Lsh(one, bits)
		half := new(big.Int).Lsh(one, bits-54) // a tie when added to an even 53-bit mantissa
		for _, d := range []*big.Int{big.NewInt(0), big.NewInt(1), big.NewInt(-1), half, new(big.Int).Add(half, one), new(big.Int).Sub(half, one),
			new(big.Int).Mul(half, big.NewInt(3)), new(big.Int).Lsh(half, 1)} {
			cases = append(cases, new(big.Int).Add(p, d), new(big.Int).Sub(p, d))
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		b := new(big.Int).Lsh(big.NewInt(r.Int64()), uint(r.IntN(1000)))
		b.Add(b, big.NewInt(r.Int64N(1<<20)))
		cases = append(cases, b)
	}
	for _, b := range cases {
		for _, v := range []*big.Int{b, new(big.Int).Neg(b)} {
			x := intOfBig(new(big.Int).Set(v))
			want, _ := new(big.Float).SetInt(v).Float64()
			got, ok := x.Float64()
			if got != want || ok != !math.IsInf(want, 0) {
				t.Errorf("Int(%s).Float64() = %v, %v; want %v", v, got, ok, want)
			}
		}
	}
}

// TestTruncFloatBig checks truncFloat's exact conversion of floats beyond
// ±2^62 against big.Float.
func TestTruncFloatBig(t *testing.T) {
	fs := []float64{1 << 62, -(1 << 62), 1 << 63, math.MaxFloat64, -math.MaxFloat64, 1e19, -1e300, math.Nextafter(1<<62, math.Inf(1))}
	r := rand.New(rand.NewPCG(3, 4))
	for range 2000 {
		fs = append(fs, math.Ldexp(r.Float64()+0.5, 63+r.IntN(960))*float64(1-2*r.IntN(2)))
	}
	for _, f := range fs {
		want, _ := new(big.Float).SetFloat64(math.Trunc(f)).Int(nil)
		got, ok := truncFloat(f)
		if !ok || got.Big().Cmp(want) != 0 {
			t.Errorf("truncFloat(%g) = %s, %v; want %s", f, got, ok, want)
		}
	}
}

// TestIntValue: a row's token count goes into its Object as an int64 when
// it fits, so a small count is boxed without allocating (BuildReport
// builds one per row), and as the Int itself beyond int64, so it stays
// exact; both write the same JSON.
func TestIntValue(t *testing.T) {
	huge, _ := new(big.Int).SetString("123456789012345678901234567890", 10)
	for _, x := range []Int{IntOf(0), IntOf(7), IntOf(-3), IntOf(1 << 40), intOfBig(huge)} {
		v := x.value()
		if _, isInt := v.(Int); isInt != (x.b != nil) {
			t.Errorf("%v.value() is a %T", x, v)
		}
		got, err := appendValue(nil, v, false, 0)
		if err != nil || string(got) != x.String() {
			t.Errorf("%v.value() writes %s, %v", x, got, err)
		}
	}
	small := IntOf(200)
	var sink any
	if n := testing.AllocsPerRun(100, func() { sink = small.value() }); n != 0 {
		t.Errorf("IntOf(200).value() allocates %v times", n)
	}
	_ = sink
}
