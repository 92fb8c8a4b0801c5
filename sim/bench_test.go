//go:build !js

package sim

import (
	"testing"
	"time"

	"github.com/duplexscope/duplexscope/protocol"
)

// BenchmarkEmitAudioDelta measures the stamp-to-frame interval of a
// MiniCPM-o-like 1000 ms audio delta (~64 KB frame): the work between
// reading the emit time and handing the frame to the websocket write,
// after the writer's prepare step. Truth times are early by about this much.
// Regression (session engineer, 15:47): stamps of 64 KB deltas were 5–10 ms
// early because PCM synthesis and base64 ran after the stamp; they now run
// in prepare, before it.
func BenchmarkEmitAudioDelta(b *testing.B) {
	b.StopTimer()
	for range b.N {
		h := newHarness(b, mustProfile(b, ProfileMiniCPMO), "sim_ttfp_ms=100")
		h.update(0)
		h.stream(0, speechPCM([2]int{600, 600}), 200)
		var it *item
		for {
			n, _ := h.e.next()
			it = h.e.dueItem(n)
			if it != nil && it.prepare != nil {
				break
			}
			h.e.pop(n)
		}
		it.runPrepare()
		at := it.at
		b.StartTimer()
		out, ok := h.e.pop(at)
		b.StopTimer()
		if !ok || len(out.frame) < 60000 {
			b.Fatalf("frame of %d bytes", len(out.frame))
		}
	}
}

// BenchmarkSession measures the engine cost of one whole test-profile
// session (3 turns, injected time): the simulator's CPU per session.
func BenchmarkSession(b *testing.B) {
	sc := mustProfile(b, ProfileTest)
	pcm := speechPCM(threeTurns...)
	for b.Loop() {
		h := newHarness(b, sc, "")
		h.update(0)
		end := h.stream(0, pcm, 200)
		h.runUntil(end + 2*time.Second)
		if len(h.ofType(protocol.TypeResponseDone)) < 3 {
			b.Fatal("responses missing")
		}
	}
}
