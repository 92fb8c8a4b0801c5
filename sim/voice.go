//go:build !js

package sim

import (
	"math"
	"math/rand/v2"
)

// voice synthesises a voice-like signal: a glottal pulse train with a
// pitch contour through three formant resonators, one vowel per syllable,
// with a syllable envelope that never drops below 30 % (never silence).
type voice struct {
	rate     float64
	rng      *rand.Rand
	n        int     // samples produced
	phase    float64 // glottal phase in [0,1)
	f0       float64 // base pitch, Hz
	sylLeft  int     // samples left in the current syllable
	sylLen   int
	res      [3]resonator
	gains    [3]float64
	prevSrc  float64
	contourP float64 // pitch contour period, s
}

type resonator struct{ a1, a2, b0, y1, y2 float64 }

func (r *resonator) set(freq, bw, rate float64) {
	rr := math.Exp(-math.Pi * bw / rate)
	r.a1 = 2 * rr * math.Cos(2*math.Pi*freq/rate)
	r.a2 = -rr * rr
	r.b0 = 1 - rr
}

func (r *resonator) step(x float64) float64 {
	y := r.b0*x + r.a1*r.y1 + r.a2*r.y2
	r.y2, r.y1 = r.y1, y
	return y
}

// Vowel formants (F1, F2, F3 in Hz) of a, e, i, o, u.
var vowels = [][3]float64{{730, 1090, 2440}, {530, 1840, 2480}, {270, 2290, 3010}, {570, 840, 2410}, {300, 870, 2240}}

func newVoice(rate int, rng *rand.Rand) *voice {
	return &voice{rate: float64(rate), rng: rng, f0: 105 + 60*rng.Float64(), contourP: 1.1 + 0.6*rng.Float64(),
		gains: [3]float64{1, 0.5, 0.25}}
}

func (v *voice) nextSyllable() {
	v.sylLen = int(v.rate * (0.15 + 0.13*v.rng.Float64()))
	v.sylLeft = v.sylLen
	vw := vowels[v.rng.IntN(len(vowels))]
	bws := [3]float64{80, 100, 140}
	for i := range v.res {
		v.res[i].set(vw[i], bws[i], v.rate)
	}
}

// pulseTable is one Rosenberg-like glottal open phase, 0.5·(1 − cos).
var pulseTable = func() [257]float64 {
	var t [257]float64
	for i := range t {
		t[i] = 0.5 * (1 - math.Cos(2*math.Pi*float64(i)/256))
	}
	return t
}()

// voiceBlock is how many samples share one pitch and envelope value.
const voiceBlock = 32

// fill writes len(out) samples.
func (v *voice) fill(out []int16) {
	for i := 0; i < len(out); {
		if v.sylLeft == 0 {
			v.nextSyllable()
		}
		n := min(voiceBlock, len(out)-i, v.sylLeft)
		t := float64(v.n) / v.rate
		f0 := v.f0 * (1 + 0.12*math.Sin(2*math.Pi*t/v.contourP) - 0.03*math.Mod(t, 2.0))
		step := f0 / v.rate
		pos := 1 - float64(v.sylLeft)/float64(v.sylLen)
		gain := (0.3 + 0.7*math.Sin(math.Pi*pos)) * 60
		for j := 0; j < n; j++ {
			v.phase += step
			if v.phase >= 1 {
				v.phase -= 1
			}
			src := 0.0
			if v.phase < 0.6 { // open phase
				src = pulseTable[int(v.phase/0.6*256)]
			}
			exc := src - v.prevSrc // lip radiation (differentiation)
			v.prevSrc = src
			exc += 0.002 * (v.rng.Float64() - 0.5) // aspiration
			y := v.gains[0]*v.res[0].step(exc) + v.gains[1]*v.res[1].step(exc) + v.gains[2]*v.res[2].step(exc)
			x := y * gain
			out[i+j] = int16(0.5 * 32767 * x / (1 + math.Abs(x))) // soft clip, |out| < half scale
		}
		i += n
		v.sylLeft -= n
		v.n += n
	}
}
