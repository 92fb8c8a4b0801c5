package audio

import (
	"bytes"
	"encoding/binary"
	"math"
	"testing"
)

// tone returns n samples of amp·sin(2π f t) at rate.
func tone(f, amp float64, rate, n int) []float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = amp * math.Sin(2*math.Pi*f*float64(i)/float64(rate))
	}
	return x
}

// tone32 is tone as float32 samples.
func tone32(f, amp float64, rate, n int) []float32 {
	x := make([]float32, n)
	for i, v := range tone(f, amp, rate, n) {
		x[i] = float32(v)
	}
	return x
}

// amplitudeAt estimates the amplitude of the f Hz component of x (Goertzel
// over a Hann window, normalised so a pure sine of amplitude A reads A).
func amplitudeAt(x []float32, f float64, rate int) float64 {
	n := len(x)
	w := 2 * math.Pi * f / float64(rate)
	var re, im, wsum float64
	for i, v := range x {
		h := 0.5 - 0.5*math.Cos(2*math.Pi*float64(i)/float64(n-1))
		wsum += h
		re += float64(v) * h * math.Cos(w*float64(i))
		im -= float64(v) * h * math.Sin(w*float64(i))
	}
	return 2 * math.Hypot(re, im) / wsum
}

// dominantFreq finds the frequency (1 Hz grid search around guess ± 50 Hz)
// with the largest amplitude.
func dominantFreq(x []float32, rate int, guess float64) float64 {
	best, bestA := 0.0, -1.0
	for f := guess - 50; f <= guess+50; f += 1 {
		if a := amplitudeAt(x, f, rate); a > bestA {
			best, bestA = f, a
		}
	}
	return best
}

// stereoWAV16 builds a 16-bit stereo WAV with l and r channels.
func stereoWAV16(l, r []float64, rate int) []byte {
	var b bytes.Buffer
	data := make([]byte, 4*len(l))
	for i := range l {
		binary.LittleEndian.PutUint16(data[4*i:], uint16(int16(math.Round(l[i]*32767))))
		binary.LittleEndian.PutUint16(data[4*i+2:], uint16(int16(math.Round(r[i]*32767))))
	}
	b.WriteString("RIFF")
	binary.Write(&b, binary.LittleEndian, uint32(36+len(data)))
	b.WriteString("WAVEfmt ")
	writeLE(&b, uint32(16), uint16(1), uint16(2), uint32(rate), uint32(rate*4), uint16(4), uint16(16))
	b.WriteString("data")
	binary.Write(&b, binary.LittleEndian, uint32(len(data)))
	b.Write(data)
	return b.Bytes()
}

// TestResampleStereoTone: a 1 kHz tone in a 44.1 kHz stereo WAV resampled to
// 16 kHz keeps its frequency and amplitude; a 10 kHz tone (above the 8 kHz
// output Nyquist) is removed rather than aliased to 6 kHz.
func TestResampleStereoTone(t *testing.T) {
	t.Parallel()
	const rate = 44100
	n := rate // 1 s
	cases := []struct {
		name     string
		f        float64
		wantAmp  float64 // amplitude expected at f after resampling
		aliasF   float64 // where an alias would land (0: none)
		maxAlias float64
	}{
		{name: "1kHz kept", f: 1000, wantAmp: 0.5},
		{name: "6kHz kept", f: 6000, wantAmp: 0.5},
		{name: "10kHz removed", f: 10000, wantAmp: 0, aliasF: 6000, maxAlias: 1e-3},
		{name: "15kHz removed", f: 15000, wantAmp: 0, aliasF: 1000, maxAlias: 1e-3},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			x := tone(tc.f, 0.5, rate, n)
			clip, err := DecodeWAV(stereoWAV16(x, x, rate))
			if err != nil {
				t.Fatal(err)
			}
			if clip.Rate != rate || len(clip.Samples) != n {
				t.Fatalf("decoded %d Hz, %d samples; want %d Hz, %d", clip.Rate, len(clip.Samples), rate, n)
			}
			y := Resample(clip.Samples, rate, InputRate)
			if len(y) != InputRate {
				t.Fatalf("resampled length %d, want %d", len(y), InputRate)
			}
			// Skip the edges (the kernel sees zeros beyond the clip).
			mid := y[800 : len(y)-800]
			if tc.wantAmp > 0 {
				if got := dominantFreq(mid, InputRate, tc.f); math.Abs(got-tc.f) > 1 {
					t.Errorf("dominant frequency %.0f Hz, want %.0f", got, tc.f)
				}
				if got := amplitudeAt(mid, tc.f, InputRate); math.Abs(got-tc.wantAmp) > 0.005 {
					t.Errorf("amplitude %.4f, want %.4f ± 0.005", got, tc.wantAmp)
				}
				return
			}
			if got := RMS(mid); got > tc.maxAlias {
				t.Errorf("RMS after resampling %.2g (%.1f dBFS), want ≤ %.0g", got, DBFS(got), tc.maxAlias)
			}
			if got := amplitudeAt(mid, tc.aliasF, InputRate); got > tc.maxAlias {
				t.Errorf("alias at %.0f Hz has amplitude %.2g, want ≤ %.0g", tc.aliasF, got, tc.maxAlias)
			}
		})
	}
}

// TestResampleMixesChannels: opposite-phase channels cancel in the mono mix.
func TestResampleMixesChannels(t *testing.T) {
	t.Parallel()
	x := tone(440, 0.5, 22050, 22050)
	neg := make([]float64, len(x))
	for i, v := range x {
		neg[i] = -v
	}
	clip, err := DecodeWAV(stereoWAV16(x, neg, 22050))
	if err != nil {
		t.Fatal(err)
	}
	if got := RMS(clip.Samples); got > 1e-4 {
		t.Errorf("mono mix of opposite channels has RMS %g, want ≈ 0", got)
	}
}

func TestResampleUp(t *testing.T) {
	t.Parallel()
	x := tone32(1000, 0.5, 16000, 16000)
	y := Resample(x, 16000, 24000)
	if len(y) != 24000 {
		t.Fatalf("len %d, want 24000", len(y))
	}
	mid := y[1000 : len(y)-1000]
	if got := amplitudeAt(mid, 1000, 24000); math.Abs(got-0.5) > 0.005 {
		t.Errorf("amplitude %.4f, want 0.5", got)
	}
}

func TestWAVFormats(t *testing.T) {
	t.Parallel()
	// 4 samples, 2 channels: L = 0.5, R = -0.25 → mono 0.125.
	const l, r = 0.5, -0.25
	build := func(tag, bits, extTag int, enc func(v float64) []byte) []byte {
		var data []byte
		for i := 0; i < 4; i++ {
			data = append(data, enc(l)...)
			data = append(data, enc(r)...)
		}
		var b bytes.Buffer
		fmtLen := 16
		if tag == wavExtensible {
			fmtLen = 40
		}
		b.WriteString("RIFF")
		binary.Write(&b, binary.LittleEndian, uint32(4+8+fmtLen+8+len(data)+8+3+1))
		b.WriteString("WAVE")
		// An unknown chunk of odd size first (padded), as some writers emit.
		b.WriteString("LIST")
		binary.Write(&b, binary.LittleEndian, uint32(3))
		b.Write([]byte{1, 2, 3, 0})
		b.WriteString("fmt ")
		binary.Write(&b, binary.LittleEndian, uint32(fmtLen))
		ba := 2 * bits / 8
		writeLE(&b, uint16(tag), uint16(2), uint32(8000), uint32(8000*ba), uint16(ba), uint16(bits))
		if tag == wavExtensible {
			writeLE(&b, uint16(22), uint16(bits), uint32(3), uint16(extTag))
			b.Write(make([]byte, 14))
		}
		b.WriteString("data")
		binary.Write(&b, binary.LittleEndian, uint32(len(data)))
		b.Write(data)
		return b.Bytes()
	}
	le16 := func(v int16) []byte { return binary.LittleEndian.AppendUint16(nil, uint16(v)) }
	cases := []struct {
		name string
		wav  []byte
		tol  float64
	}{
		{"pcm8", build(wavPCM, 8, 0, func(v float64) []byte { return []byte{byte(128 + v*128)} }), 1.0 / 128},
		{"pcm16", build(wavPCM, 16, 0, func(v float64) []byte { return le16(int16(v * 32768)) }), 1e-4},
		{"pcm24", build(wavPCM, 24, 0, func(v float64) []byte {
			u := uint32(int32(v * (1 << 23)))
			return []byte{byte(u), byte(u >> 8), byte(u >> 16)}
		}), 1e-6},
		{"pcm32", build(wavPCM, 32, 0, func(v float64) []byte {
			return binary.LittleEndian.AppendUint32(nil, uint32(int32(v*(1<<31))))
		}), 1e-6},
		{"float32", build(wavFloat, 32, 0, func(v float64) []byte {
			return binary.LittleEndian.AppendUint32(nil, math.Float32bits(float32(v)))
		}), 1e-7},
		{"float64", build(wavFloat, 64, 0, func(v float64) []byte {
			return binary.LittleEndian.AppendUint64(nil, math.Float64bits(v))
		}), 1e-7},
		{"extensible-pcm24", build(wavExtensible, 24, wavPCM, func(v float64) []byte {
			u := uint32(int32(v * (1 << 23)))
			return []byte{byte(u), byte(u >> 8), byte(u >> 16)}
		}), 1e-6},
		{"extensible-float32", build(wavExtensible, 32, wavFloat, func(v float64) []byte {
			return binary.LittleEndian.AppendUint32(nil, math.Float32bits(float32(v)))
		}), 1e-7},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, err := DecodeWAV(tc.wav)
			if err != nil {
				t.Fatal(err)
			}
			if c.Rate != 8000 || len(c.Samples) != 4 {
				t.Fatalf("rate %d, %d samples; want 8000, 4", c.Rate, len(c.Samples))
			}
			for i, s := range c.Samples {
				if math.Abs(float64(s)-(l+r)/2) > tc.tol {
					t.Errorf("sample %d = %g, want %g", i, s, (l+r)/2)
				}
			}
		})
	}
}

func TestWAVErrors(t *testing.T) {
	t.Parallel()
	good := EncodeWAV([]float32{0.1, 0.2}, 16000)
	noData := append([]byte(nil), good[:36]...)
	badBits := append([]byte(nil), good...)
	binary.LittleEndian.PutUint16(badBits[34:], 12)
	cases := []struct {
		name string
		in   []byte
	}{
		{"empty", nil},
		{"not riff", []byte("RIFX0000WAVEfmt ")},
		{"no data chunk", noData},
		{"12-bit", badBits},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if _, err := DecodeWAV(tc.in); err == nil {
				t.Error("DecodeWAV succeeded, want an error")
			}
		})
	}
}

func TestWAVRoundTrip(t *testing.T) {
	t.Parallel()
	in := []float32{0, 0.5, -0.5, 1, -1, 0.25}
	c, err := ReadWAV(bytes.NewReader(EncodeWAV(in, 24000)))
	if err != nil {
		t.Fatal(err)
	}
	if c.Rate != 24000 || len(c.Samples) != len(in) {
		t.Fatalf("rate %d len %d", c.Rate, len(c.Samples))
	}
	for i := range in {
		if math.Abs(float64(c.Samples[i]-in[i])) > 1.0/32767 {
			t.Errorf("sample %d: %g, want %g", i, c.Samples[i], in[i])
		}
	}
}

func TestPCM16(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in   float32
		want int16
	}{
		{0, 0}, {1, 32767}, {-1, -32768}, {2, 32767}, {-2, -32768},
		{0.5, 16384}, {-0.5, -16384}, {float32(math.NaN()), 0},
	}
	for _, tc := range cases {
		b := FloatToPCM16([]float32{tc.in})
		if got := PCM16Samples(b)[0]; got != tc.want {
			t.Errorf("FloatToPCM16(%g) = %d, want %d", tc.in, got, tc.want)
		}
	}
	if got := PCM16ToFloat([]byte{0x00, 0x80, 0xff, 0x7f, 0x01}); len(got) != 2 || got[0] != -1 || got[1] != 32767.0/32768 {
		t.Errorf("PCM16ToFloat = %v", got)
	}
}

func TestFrameArithmetic(t *testing.T) {
	t.Parallel()
	cases := []struct {
		rate, ms, bytes int
	}{
		{16000, 80, 2560}, {16000, 200, 6400}, {16000, 1000, 32000}, {24000, 100, 4800}, {24000, 200, 9600},
	}
	for _, tc := range cases {
		if got := FrameBytes(tc.rate, tc.ms); got != tc.bytes {
			t.Errorf("FrameBytes(%d, %d) = %d, want %d", tc.rate, tc.ms, got, tc.bytes)
		}
		if got := BytesToMs(tc.bytes, tc.rate); got != float64(tc.ms) {
			t.Errorf("BytesToMs(%d, %d) = %g, want %d", tc.bytes, tc.rate, got, tc.ms)
		}
	}
	// Benchmark rule: 199.9375 ms floors to 199 (the last, shortened chunk of
	// docs/protocol.md#final-commit-tail-rule).
	if got := BytesToMsFloor(6398, 16000); got != 199 {
		t.Errorf("BytesToMsFloor(6398) = %d, want 199", got)
	}
	if got := BytesToDuration(6400, 16000); got.Milliseconds() != 200 {
		t.Errorf("BytesToDuration = %v", got)
	}
	if got := DurationToBytes(BytesToDuration(6400, 16000), 16000); got != 6400 {
		t.Errorf("DurationToBytes round trip = %d", got)
	}
}

func TestRMS(t *testing.T) {
	t.Parallel()
	x := tone32(1000, 0.5, 16000, 16000)
	if got, want := RMS(x), 0.5/math.Sqrt2; math.Abs(got-want) > 1e-4 {
		t.Errorf("RMS = %g, want %g", got, want)
	}
	if got, want := RMSPCM16(FloatToPCM16(x)), 0.5/math.Sqrt2; math.Abs(got-want) > 1e-3 {
		t.Errorf("RMSPCM16 = %g, want %g", got, want)
	}
	if RMS(nil) != 0 {
		t.Error("RMS(nil) != 0")
	}
}

func BenchmarkResample44100to16000(b *testing.B) {
	x := tone32(1000, 0.5, 44100, 44100)
	b.ResetTimer()
	for range b.N {
		Resample(x, 44100, 16000)
	}
}

func writeLE(b *bytes.Buffer, vs ...any) {
	for _, v := range vs {
		_ = binary.Write(b, binary.LittleEndian, v)
	}
}
