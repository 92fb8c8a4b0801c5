package clips_test

import (
	"bytes"
	"math"
	"testing"

	"github.com/duplexscope/duplexscope/audio"
	"github.com/duplexscope/duplexscope/dataset"
	"github.com/duplexscope/duplexscope/metrics/turntaking"
	"github.com/duplexscope/duplexscope/session/probe"
	"github.com/duplexscope/duplexscope/session/probe/clips"
)

// TestProbeClip checks each standard probe clip against what it stands
// for: its length (the labelled speech plus 2 × 20 ms pad), that its speech
// starts and ends at the clip's edges (so the probe's onset is the speech
// onset), and its level.
func TestProbeClip(t *testing.T) {
	t.Parallel()
	tests := []struct {
		kind             string
		minMs, maxMs     float64
		edges            bool    // speech within 40 ms of both ends (turntaking VAD)
		minSpeechMs      float64 // VAD speech the simulator's −40 dBFS detector will hear
		minDBFS, maxDBFS float64 // RMS over the VAD's speech (noise: over the clip)
	}{
		// 3445–5101 ms labelled: 1656 + 40 ms.
		{kind: "interruption", minMs: 1690, maxMs: 1700, edges: true, minSpeechMs: 1000, minDBFS: -26, maxDBFS: -14},
		// 3829–4499 ms labelled: 670 + 40 ms; under 1 s: a backchannel for
		// Full-Duplex-Bench and the simulator's ignores_backchannels.
		{kind: "backchannel", minMs: 705, maxMs: 715, edges: true, minSpeechMs: 500, minDBFS: -26, maxDBFS: -14},
		// reminder.wav is 4770 ms: 300 ms of silence before and 1500 after.
		{kind: "side_talk", minMs: 2000, maxMs: 2970 + 40, minSpeechMs: 1000, minDBFS: -40, maxDBFS: -30},
		{kind: "noise", minMs: 1000, maxMs: 1000, minDBFS: -20.5, maxDBFS: -19.5},
	}
	seen := map[string]bool{}
	for _, tc := range tests {
		seen[tc.kind] = true
		t.Run(tc.kind, func(t *testing.T) {
			t.Parallel()
			pcm, name, err := clips.StandardClip(tc.kind)
			if err != nil {
				t.Fatal(err)
			}
			if name != "standard:"+tc.kind {
				t.Errorf("name %q, want standard:%s", name, tc.kind)
			}
			x := audio.PCM16ToFloat(pcm)
			ms := audio.BytesToMs(len(pcm), audio.InputRate)
			if ms < tc.minMs || ms > tc.maxMs {
				t.Errorf("%.1f ms long, want %v…%v", ms, tc.minMs, tc.maxMs)
			}
			level := audio.DBFS(audio.RMS(x))
			if tc.kind != "noise" {
				speech := turntaking.VAD(x, audio.InputRate, nil)
				if len(speech) == 0 {
					t.Fatal("no speech in the clip")
				}
				var sum float64
				var n, spoken int
				for _, iv := range speech {
					a, b := int(iv.StartMs*16), min(int(iv.EndMs*16), len(x))
					for _, v := range x[a:b] {
						sum += float64(v) * float64(v)
					}
					n += b - a
					spoken += int(iv.EndMs - iv.StartMs)
				}
				level = audio.DBFS(math.Sqrt(sum / float64(n)))
				if float64(spoken) < tc.minSpeechMs {
					t.Errorf("%d ms of speech (VAD %+v), want ≥ %v", spoken, speech, tc.minSpeechMs)
				}
				if first, last := speech[0].StartMs, speech[len(speech)-1].EndMs; tc.edges && (first > 40 || ms-last > 40) {
					t.Errorf("speech %v…%v ms of a %.0f ms clip: want it within 40 ms of both ends", first, last, ms)
				}
			}
			if level < tc.minDBFS || level > tc.maxDBFS {
				t.Errorf("level %.1f dBFS, want %v…%v", level, tc.minDBFS, tc.maxDBFS)
			}
			t.Logf("%s: %.0f ms, %.1f dBFS", name, ms, level)
		})
	}
	for _, k := range probe.Kinds {
		if !seen[k] {
			t.Errorf("probe kind %q has no standard clip test", k)
		}
	}
	if _, _, err := clips.StandardClip("cough"); err == nil {
		t.Error("unknown kind: no error")
	}
}

// TestSideTalkGain: side talk is the builtin sentence 12 dB down, not just
// some quiet clip.
func TestSideTalkGain(t *testing.T) {
	t.Parallel()
	side, _, err := clips.StandardClip("side_talk")
	if err != nil {
		t.Fatal(err)
	}
	ss, err := dataset.Load(dataset.BuiltinName, nil)
	if err != nil {
		t.Fatal(err)
	}
	var orig []byte
	for _, s := range ss {
		if s.SampleID == "reminder" {
			if orig, err = s.PCM(t.Context(), nil); err != nil {
				t.Fatal(err)
			}
		}
	}
	// The trimmed clip drops only silence: its energy is the sentence's.
	got := audio.DBFS(audio.RMS(audio.PCM16ToFloat(side))) + 10*math.Log10(float64(len(side))/float64(len(orig)))
	want := audio.DBFS(audio.RMS(audio.PCM16ToFloat(orig))) - 12
	if math.Abs(got-want) > 0.2 {
		t.Errorf("side talk energy %.2f dB, want the sentence's −12 dB = %.2f", got, want)
	}
}

// TestNoise: the noise is deterministic per seed (runs are reproducible)
// and the standard noise clip is Noise(1 s, NoiseSeed).
func TestNoise(t *testing.T) {
	t.Parallel()
	a, b := clips.Noise(1600, 7), clips.Noise(1600, 7)
	if !bytes.Equal(audio.FloatToPCM16(a), audio.FloatToPCM16(b)) {
		t.Error("same seed, different noise")
	}
	if bytes.Equal(audio.FloatToPCM16(a), audio.FloatToPCM16(clips.Noise(1600, 8))) {
		t.Error("different seeds, same noise")
	}
	std, _, err := clips.StandardClip("noise")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(std, audio.FloatToPCM16(clips.Noise(audio.InputRate, clips.NoiseSeed))) {
		t.Error("standard noise is not Noise(16000, NoiseSeed)")
	}
	again, _, _ := clips.StandardClip("noise")
	if !bytes.Equal(std, again) {
		t.Error("standard noise differs between calls")
	}
}
