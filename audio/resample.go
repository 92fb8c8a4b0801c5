package audio

import "math"

// Resampler parameters: the low-pass cutoff is cutoffFrac of the lower
// Nyquist frequency; the kernel spans zeroCrossings zero crossings of the
// cutoff sinc on each side; Kaiser beta 8.6 gives ≈ 86 dB stop-band
// attenuation. tableRes kernel values are stored per input sample (linear
// interpolation between them).
const (
	cutoffFrac    = 0.9
	zeroCrossings = 24
	kaiserBeta    = 8.6
	tableRes      = 512
)

// Resample converts x from rate from to rate to with a band-limited
// windowed-sinc (Kaiser) interpolator. The output has len(x)·to/from samples
// (rounded down). Equal rates return a copy. Samples outside x are zero.
func Resample(x []float32, from, to int) []float32 {
	if from <= 0 || to <= 0 {
		return nil
	}
	if from == to {
		return append([]float32(nil), x...)
	}
	nOut := int(int64(len(x)) * int64(to) / int64(from))
	out := make([]float32, nOut)
	// fc: cutoff in cycles per input sample.
	ratio := float64(to) / float64(from)
	fc := 0.5 * cutoffFrac * math.Min(1, ratio)
	half := float64(zeroCrossings) / (2 * fc) // kernel half-width in input samples
	table := kernelTable(fc, half)
	step := float64(from) / float64(to)
	for n := 0; n < nOut; n++ {
		t := float64(n) * step // position in input samples
		lo := int(math.Ceil(t - half))
		hi := int(math.Floor(t + half))
		if lo < 0 {
			lo = 0
		}
		if hi > len(x)-1 {
			hi = len(x) - 1
		}
		var acc float64
		for k := lo; k <= hi; k++ {
			u := math.Abs(t-float64(k)) * tableRes
			i := int(u)
			if i >= len(table)-1 {
				continue
			}
			f := u - float64(i)
			h := table[i] + (table[i+1]-table[i])*f
			acc += float64(x[k]) * h
		}
		out[n] = float32(acc)
	}
	return out
}

// kernelTable samples h(u) = 2fc·sinc(2fc·u)·kaiser(u/half) for u in
// [0, half] at tableRes points per input sample, plus one trailing zero.
func kernelTable(fc, half float64) []float64 {
	n := int(math.Ceil(half*tableRes)) + 2
	t := make([]float64, n)
	i0b := besselI0(kaiserBeta)
	for i := range t {
		u := float64(i) / tableRes
		if u >= half {
			break
		}
		r := u / half
		w := besselI0(kaiserBeta*math.Sqrt(1-r*r)) / i0b
		t[i] = 2 * fc * sinc(2*fc*u) * w
	}
	return t
}

func sinc(x float64) float64 {
	if x == 0 {
		return 1
	}
	px := math.Pi * x
	return math.Sin(px) / px
}

// besselI0 is the zeroth-order modified Bessel function of the first kind
// (power series; converges quickly for the arguments a Kaiser window uses).
func besselI0(x float64) float64 {
	sum, term := 1.0, 1.0
	q := x * x / 4
	for k := 1; k < 64; k++ {
		term *= q / float64(k*k)
		sum += term
		if term < sum*1e-17 {
			break
		}
	}
	return sum
}
