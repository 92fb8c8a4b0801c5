package protocol

import (
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"time"
)

// Default sample rates: input 16 kHz, output 24 kHz (docs/protocol.md#audio-formats-and-rates).
const (
	DefaultInputRateHz  = 16000
	DefaultOutputRateHz = 24000
)

// FormatPCM16 is the only audio format duplexscope sends or expects.
const FormatPCM16 = "pcm16"

// IsPCM16Format reports whether name is one of the server's PCM16 spellings
// (pcm16, pcm_s16le, s16le, audio/pcm16); "" counts as pcm16 (the default).
func IsPCM16Format(name string) bool {
	switch name {
	case "", FormatPCM16, "pcm_s16le", "s16le", "audio/pcm16":
		return true
	}
	return false
}

// ErrOddLength is returned for PCM16 byte strings of odd length.
var ErrOddLength = errors.New("PCM16 byte length is odd")

// EncodePCM16 returns samples as little-endian PCM16, standard base64 with padding.
func EncodePCM16(samples []int16) string {
	return base64.StdEncoding.EncodeToString(PCM16Bytes(samples))
}

// PCM16Bytes returns samples as little-endian bytes.
func PCM16Bytes(samples []int16) []byte {
	b := make([]byte, 2*len(samples))
	for i, s := range samples {
		binary.LittleEndian.PutUint16(b[2*i:], uint16(s))
	}
	return b
}

// PCM16Samples parses little-endian PCM16 bytes; odd lengths are an error.
func PCM16Samples(b []byte) ([]int16, error) {
	if len(b)%2 != 0 {
		return nil, fmt.Errorf("protocol: %d bytes: %w", len(b), ErrOddLength)
	}
	s := make([]int16, len(b)/2)
	for i := range s {
		s[i] = int16(binary.LittleEndian.Uint16(b[2*i:]))
	}
	return s, nil
}

// DecodeAudioBase64 strictly decodes standard base64 (RFC 4648, padded).
func DecodeAudioBase64(b64 string) ([]byte, error) {
	b, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		return nil, fmt.Errorf("protocol: audio base64: %w", err)
	}
	return b, nil
}

// DecodePCM16 decodes base64 PCM16 into samples.
func DecodePCM16(b64 string) ([]int16, error) {
	b, err := DecodeAudioBase64(b64)
	if err != nil {
		return nil, err
	}
	return PCM16Samples(b)
}

// AudioMs returns the exact audio length of n PCM16 mono bytes at rateHz:
// n × 1000 / (rateHz × 2). 4 800 bytes at 24 000 Hz = 100 ms.
func AudioMs(n int64, rateHz int) float64 {
	if rateHz <= 0 {
		return 0
	}
	return float64(n) * 1000 / (float64(rateHz) * 2)
}

// AudioDuration is AudioMs as a time.Duration (truncated to the nanosecond).
func AudioDuration(n int64, rateHz int) time.Duration {
	if rateHz <= 0 {
		return 0
	}
	return time.Duration(n * int64(time.Second) / (int64(rateHz) * 2))
}

// BytesForMs returns the PCM16 mono byte count of ms milliseconds at rateHz
// (floor to whole samples): 200 ms at 16 kHz = 6 400 bytes.
func BytesForMs(ms int, rateHz int) int {
	return int(int64(ms)*int64(rateHz)/1000) * 2
}

// Rounding selects how duration_ms / audio_end_ms are rounded (docs/protocol.md#audio-append).
type Rounding int

const (
	// RoundHalfEven is the full Python client: round(bytes*1000/(rate*2)),
	// Python's round-half-to-even.
	RoundHalfEven Rounding = iota
	// RoundFloor is the benchmark clients: bytes*1000 // (rate*2).
	RoundFloor
)

// DurationMs returns n bytes of PCM16 mono at rateHz in whole ms under r.
// For audio_end_ms pass the cumulative byte count (the rule is applied to
// the cumulative value, not summed per chunk). 31 999 bytes at 16 kHz:
// RoundFloor → 999, RoundHalfEven → 1000.
func DurationMs(n int64, rateHz int, r Rounding) int64 {
	if rateHz <= 0 || n <= 0 {
		return 0
	}
	num, den := n*1000, int64(rateHz)*2
	q, rem := num/den, num%den
	if r == RoundFloor {
		return q
	}
	switch {
	case 2*rem > den:
		q++
	case 2*rem == den && q%2 == 1:
		q++
	}
	return q
}
