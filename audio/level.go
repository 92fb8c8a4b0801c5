package audio

import "math"

// RMS is the root-mean-square level of x (0 for an empty slice).
func RMS(x []float32) float64 {
	if len(x) == 0 {
		return 0
	}
	var s float64
	for _, v := range x {
		s += float64(v) * float64(v)
	}
	return math.Sqrt(s / float64(len(x)))
}

// RMSPCM16 is the RMS level of little-endian PCM16 bytes, full scale = 1.
func RMSPCM16(b []byte) float64 {
	n := len(b) / 2
	if n == 0 {
		return 0
	}
	var s float64
	for i := 0; i < n; i++ {
		v := float64(int16(uint16(b[2*i])|uint16(b[2*i+1])<<8)) / 32768
		s += v * v
	}
	return math.Sqrt(s / float64(n))
}

// DBFS converts a linear RMS level to decibels relative to full scale
// (−Inf for 0).
func DBFS(rms float64) float64 { return 20 * math.Log10(rms) }
