package audio

import (
	"encoding/binary"
	"math"
)

// Sample rates of the duplex protocol (docs/protocol.md#audio-formats-and-rates).
const (
	InputRate  = 16000 // client → server PCM16 mono
	OutputRate = 24000 // server → client PCM16 mono
)

// PCM16ToFloat decodes little-endian PCM16 bytes into samples in [-1, 1).
// A trailing odd byte is ignored.
func PCM16ToFloat(b []byte) []float32 {
	n := len(b) / 2
	out := make([]float32, n)
	for i := 0; i < n; i++ {
		out[i] = float32(int16(binary.LittleEndian.Uint16(b[2*i:]))) / 32768
	}
	return out
}

// FloatToPCM16 encodes samples as little-endian PCM16, clamping to [-1, 1] and
// scaling negative values by 32768 and positive ones by 32767 (the browser
// demo's rule). NaN encodes as 0.
func FloatToPCM16(x []float32) []byte {
	out := make([]byte, 2*len(x))
	for i, s := range x {
		binary.LittleEndian.PutUint16(out[2*i:], uint16(floatToInt16(s)))
	}
	return out
}

func floatToInt16(s float32) int16 {
	switch {
	case s != s: // NaN
		return 0
	case s >= 1:
		return math.MaxInt16
	case s <= -1:
		return math.MinInt16
	case s < 0:
		return int16(math.Round(float64(s) * 32768))
	default:
		return int16(math.Round(float64(s) * 32767))
	}
}

// PCM16Samples decodes little-endian PCM16 bytes into int16 samples.
func PCM16Samples(b []byte) []int16 {
	n := len(b) / 2
	out := make([]int16, n)
	for i := 0; i < n; i++ {
		out[i] = int16(binary.LittleEndian.Uint16(b[2*i:]))
	}
	return out
}
