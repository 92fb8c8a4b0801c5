package dataset_test

import (
	"io/fs"
	"math"
	"testing"

	"github.com/duplexscope/duplexscope/audio"
	"github.com/duplexscope/duplexscope/dataset"
	"github.com/duplexscope/duplexscope/metrics/turntaking"
)

// TestTurnTakingCases: the labelled cases load, one per Full-Duplex-Bench
// category, and their labels agree with the energy VAD of package
// turntaking on the clip itself (edges within 40 ms: two 20 ms frames).
func TestTurnTakingCases(t *testing.T) {
	t.Parallel()
	ss, err := dataset.Load(dataset.TurnTakingName, nil)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[turntaking.Category]bool{}
	for _, s := range ss {
		labels, err := turntaking.ParseLabels(s.Record)
		if err != nil || len(labels) != 1 {
			t.Fatalf("%s: labels %+v, %v", s.SampleID, labels, err)
		}
		l := labels[0]
		seen[l.Category] = true
		wantAnchor := l.OffsetMs
		if l.Category == turntaking.Interruption {
			wantAnchor = l.OnsetMs
		}
		if l.AnchorMs != wantAnchor || l.WindowMs <= 0 || s.Split != "turntaking" {
			t.Errorf("%s: label %+v (split %q)", s.SampleID, l, s.Split)
		}
		pcm, err := s.PCM(t.Context(), nil)
		if err != nil {
			t.Fatal(err)
		}
		speech := turntaking.VAD(audio.PCM16ToFloat(pcm), audio.InputRate, nil)
		near := func(v float64, starts bool) bool {
			for _, iv := range speech {
				e := iv.EndMs
				if starts {
					e = iv.StartMs
				}
				if math.Abs(e-v) <= 40 {
					return true
				}
			}
			return false
		}
		if !near(l.OnsetMs, true) || !near(l.OffsetMs, false) {
			t.Errorf("%s: label onset %v / offset %v not at a VAD edge of %+v", s.SampleID, l.OnsetMs, l.OffsetMs, speech)
		}
		if last := speech[len(speech)-1].EndMs; audio.BytesToMs(len(pcm), audio.InputRate)-last < 1000 {
			t.Errorf("%s: only %.0f ms of trailing silence", s.SampleID, audio.BytesToMs(len(pcm), audio.InputRate)-last)
		}
	}
	for _, c := range []turntaking.Category{turntaking.Pause, turntaking.Backchannel, turntaking.TurnEnd, turntaking.Interruption} {
		if !seen[c] {
			t.Errorf("no %s case", c)
		}
	}
}

// TestBuiltinSize: the bundled clips (both sets) stay within 2 MB.
func TestBuiltinSize(t *testing.T) {
	t.Parallel()
	var total int64
	for _, f := range []fs.FS{dataset.BuiltinFS} {
		err := fs.WalkDir(f, ".", func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			fi, err := d.Info()
			if err == nil {
				total += fi.Size()
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if total > 2_000_000 {
		t.Errorf("embedded builtin data is %d bytes, limit 2 000 000", total)
	}
	t.Logf("embedded builtin data: %d bytes", total)
}
