//go:build !js

package sim

import (
	"encoding/base64"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestTruthSettledMeansNoAnswerPending: while a user turn waits behind the
// active response, a truth reader never sees every listed response done —
// the next answer is listed before the active one is marked done. A
// client that settles on "all responses done" (TestConcurrentSessions,
// e2e) closed in that gap and cancelled the pending answer before its
// first audio. A reader polls the truth under its lock as the engine runs
// (the gap was a few microseconds wide: polling many sessions finds it).
func TestTruthSettledMeansNoAnswerPending(t *testing.T) {
	t.Parallel()
	sc := mustProfile(t, ProfileTest)
	pcm := speechPCM([2]int{300, 300}, [2]int{300, 300})
	for i := range 50 {
		h := newHarness(t, sc, "")
		h.update(0)
		// All input at once (the input clock is byte-based): turn 1 is
		// answered, turn 2 waits for it.
		for off := 0; off < len(pcm); off += 6400 {
			h.send(time.Millisecond, map[string]any{"type": "input_audio_buffer.append", "event_id": fmt.Sprintf("evt_%d", off),
				"audio": base64.StdEncoding.EncodeToString(pcm[off:min(off+6400, len(pcm))]), "format": "pcm16", "sample_rate_hz": 16000})
		}
		var stop atomic.Bool
		var torn atomic.Int64
		var wg sync.WaitGroup
		wg.Go(func() {
			for !stop.Load() {
				rec := h.e.truth
				rec.mu.Lock()
				open := 0
				for _, r := range rec.t.Responses {
					if r.DoneMs == nil {
						open++
					}
				}
				if open == 0 && len(rec.t.Responses) == 1 {
					torn.Add(1)
				}
				rec.mu.Unlock()
			}
		})
		h.runUntil(10 * time.Second)
		stop.Store(true)
		wg.Wait()
		tr := h.truth()
		speak := 0
		for _, r := range tr.Responses {
			if r.Kind == "speak" && r.DoneMs != nil && r.TTFPMs != nil {
				speak++
			}
		}
		if speak != 2 {
			t.Fatalf("run %d: %d answered turns, want 2 (the test's premise)", i, speak)
		}
		if n := torn.Load(); n > 0 {
			t.Fatalf("run %d: the truth showed every response done %d times while turn 2's answer was pending", i, n)
		}
	}
}
