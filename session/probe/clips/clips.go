package clips

import (
	"context"
	"encoding/json"
	"fmt"
	"math"

	"github.com/duplexscope/duplexscope/audio"
	"github.com/duplexscope/duplexscope/dataset"
)

// StandardClipPrefix starts the name of a standard probe clip:
// "standard:interruption", "standard:backchannel", "standard:side_talk",
// "standard:noise".
const StandardClipPrefix = "standard:"

// Standard probe clips (issue 11), cut from the bundled audio so no new WAV
// is shipped. Speech clips are trimmed to their speech plus probePadMs on
// either side, so a probe's onset is the onset of its speech.
const (
	probePadMs = 20
	// sideTalkSample is the builtin sentence used as side talk ("Please
	// remind me to call my sister at six.": said to someone else).
	sideTalkSample = "reminder"
	// sideTalkGainDB lowers side talk to speech from across the room.
	sideTalkGainDB = -12
	// NoiseSeed seeds the standard noise clip (and the first "noise" clip of
	// a --probe file).
	NoiseSeed uint32 = 2463534242
)

// StandardClip returns the standard clip of a probe kind as 16 kHz mono PCM16
// and its name (StandardClipPrefix + kind):
//
//	interruption  "Wait, what about Mars?" (labelled case of turntaking/interruption.wav)
//	backchannel   "mm hmm" (labelled case of turntaking/backchannel.wav)
//	side_talk     the builtin sentence "reminder" at −12 dB (speech not addressed to the model)
//	noise         1 s of white noise at ≈ −20 dBFS RMS (Noise with NoiseSeed)
func StandardClip(kind string) (pcm []byte, name string, err error) {
	var x []float32
	switch kind {
	case "interruption", "backchannel":
		x, err = labelledCase(kind)
	case "side_talk":
		x, err = sideTalk()
	case "noise":
		x = Noise(audio.InputRate, NoiseSeed)
	default:
		return nil, "", fmt.Errorf("no standard probe clip for kind %q (want interruption, backchannel, side_talk or noise)", kind)
	}
	if err != nil {
		return nil, "", fmt.Errorf("standard probe clip %s: %w", kind, err)
	}
	return audio.FloatToPCM16(x), StandardClipPrefix + kind, nil
}

// Noise returns n samples of uniform white noise in ±0.17 (≈ −20 dBFS RMS),
// the same for the same seed (xorshift32: probes are reproducible).
func Noise(n int, seed uint32) []float32 {
	x := make([]float32, n)
	for k := range x {
		seed ^= seed << 13
		seed ^= seed >> 17
		seed ^= seed << 5
		x[k] = (float32(seed)/float32(1<<32)*2 - 1) * 0.17
	}
	return x
}

// labelledCase cuts the labelled speech of turn-taking sample id (its
// single case's onset_ms … offset_ms, checked against the signal by
// TestTurnTakingCases) out of its clip.
func labelledCase(id string) ([]float32, error) {
	x, s, err := samplePCM(dataset.TurnTakingName, id)
	if err != nil {
		return nil, err
	}
	var rec struct {
		TurnTaking struct {
			Cases []struct {
				OnsetMs  float64 `json:"onset_ms"`
				OffsetMs float64 `json:"offset_ms"`
			} `json:"cases"`
		} `json:"turntaking"`
	}
	if err := json.Unmarshal(s.Record, &rec); err != nil || len(rec.TurnTaking.Cases) != 1 {
		return nil, fmt.Errorf("sample %s: want one labelled case (%v)", s.Key(), err)
	}
	c := rec.TurnTaking.Cases[0]
	return cut(x, c.OnsetMs-probePadMs, c.OffsetMs+probePadMs), nil
}

// sideTalk is the builtin side-talk sentence, trimmed to its speech, at
// sideTalkGainDB.
func sideTalk() ([]float32, error) {
	x, _, err := samplePCM(dataset.BuiltinName, sideTalkSample)
	if err != nil {
		return nil, err
	}
	on, off, ok := speechSpanMs(x)
	if !ok {
		return nil, fmt.Errorf("builtin %s holds no speech", sideTalkSample)
	}
	x = cut(x, on-probePadMs, off+probePadMs)
	g := float32(math.Pow(10, sideTalkGainDB/20.0))
	for i := range x {
		x[i] *= g
	}
	return x, nil
}

// samplePCM loads sample id of a bundled dataset as 16 kHz float samples.
func samplePCM(set, id string) ([]float32, *dataset.Sample, error) {
	s, err := dataset.Find(set, id)
	if err != nil {
		return nil, nil, err
	}
	pcm, err := s.PCM(context.Background(), nil)
	if err != nil {
		return nil, nil, err
	}
	return audio.PCM16ToFloat(pcm), s, nil
}

// cut returns a copy of x between fromMs and toMs (clamped to x).
func cut(x []float32, fromMs, toMs float64) []float32 {
	at := func(ms float64) int {
		return min(max(int(math.Round(ms*audio.InputRate/1000)), 0), len(x))
	}
	return append([]float32(nil), x[at(fromMs):at(toMs)]...)
}

// speechSpanMs finds the first and last 10 ms frame at or above −40 dBFS
// (the simulator's and turntaking's speech threshold): start of the first,
// end of the last.
func speechSpanMs(x []float32) (onMs, offMs float64, ok bool) {
	const frame = audio.InputRate / 100
	first, last := -1, -1
	for i := 0; i+frame <= len(x); i += frame {
		if audio.DBFS(audio.RMS(x[i:i+frame])) >= -40 {
			if first < 0 {
				first = i
			}
			last = i + frame
		}
	}
	if first < 0 {
		return 0, 0, false
	}
	return float64(first) * 1000 / audio.InputRate, float64(last) * 1000 / audio.InputRate, true
}
