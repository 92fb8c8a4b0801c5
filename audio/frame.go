package audio

import "time"

// BytesPerSecond is the PCM16 mono byte rate at rate Hz (32 000 at 16 kHz).
func BytesPerSecond(rate int) int { return rate * 2 }

// FrameBytes is the size in bytes of ms milliseconds of PCM16 mono at rate Hz,
// rounded down to a whole sample: FrameBytes(16000, 200) = 6400.
func FrameBytes(rate, ms int) int { return rate * ms / 1000 * 2 }

// BytesToMs is the exact duration in milliseconds of n PCM16 mono bytes at
// rate Hz: 4800 bytes at 24 kHz = 100 ms.
func BytesToMs(n, rate int) float64 {
	if rate <= 0 {
		return 0
	}
	return float64(n) * 1000 / float64(rate*2)
}

// BytesToMsFloor is the benchmark clients' integer duration rule,
// bytes·1000 // (rate·2) (docs/protocol.md#audio-append; OmniInteract played_ms).
func BytesToMsFloor(n, rate int) int {
	if rate <= 0 || n <= 0 {
		return 0
	}
	return n * 1000 / (rate * 2)
}

// BytesToDuration is the duration of n PCM16 mono bytes at rate Hz.
func BytesToDuration(n, rate int) time.Duration {
	if rate <= 0 {
		return 0
	}
	return time.Duration(int64(n) * int64(time.Second) / int64(rate*2))
}

// DurationToBytes is the PCM16 mono byte count of d at rate Hz, rounded down
// to a whole sample.
func DurationToBytes(d time.Duration, rate int) int {
	return int(int64(d)*int64(rate)/int64(time.Second)) * 2
}
