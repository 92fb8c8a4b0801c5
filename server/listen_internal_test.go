//go:build !js

package server

import (
	"encoding/base64"
	"encoding/json"
	"testing"

	"github.com/duplexscope/duplexscope/trace"
)

func dcB64(n int, v int16) string {
	b := make([]byte, 2*n)
	for i := 0; i < n; i++ {
		b[2*i], b[2*i+1] = byte(uint16(v)), byte(uint16(v)>>8)
	}
	return base64.StdEncoding.EncodeToString(b)
}

func ev(t *testing.T, tms float64, dir string, e map[string]any) trace.Event {
	t.Helper()
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	return trace.Event{TMs: tms, Dir: dir, Event: b}
}

// TestAlignSessionEdges: the placement rule at its edges — a barge-in
// drops the queued rest, other rates are resampled, a wild or negative
// time neither overflows nor lands a reply at the wrong place, bad base64
// is skipped.
func TestAlignSessionEdges(t *testing.T) {
	delta := func(tms float64, id, b64 string, rate int) trace.Event {
		m := map[string]any{"type": "response.output_audio.delta", "response_id": id, "delta": b64}
		if rate > 0 {
			m["sample_rate_hz"] = rate
		}
		return ev(t, tms, "recv", m)
	}
	cases := []struct {
		name      string
		events    []trace.Event
		wantStart map[string]float64
		wantLenS  float64
		wantCut   bool
	}{
		{"barge-in drops the queued rest", []trace.Event{
			delta(1000, "a", dcB64(12000, 100), 0), // 1.0–1.5 s
			ev(t, 1300, "recv", map[string]any{"type": "output_audio_buffer.cleared", "response_id": "a"}),
			delta(1400, "b", dcB64(2400, 100), 0), // 1.4–1.5 s
		}, map[string]float64{"a": 1.0, "b": 1.4}, 1.5, false},
		{"12 kHz reply resampled", []trace.Event{delta(0, "a", dcB64(6000, 100), 12000)}, map[string]float64{"a": 0}, 0.5, false},
		{"before stream start clamps to 0", []trace.Event{delta(-5000, "a", dcB64(2400, 100), 0)}, map[string]float64{"a": 0}, 0.1, false},
		{"wild time is cut, not wrapped", []trace.Event{delta(1e15, "a", dcB64(2400, 100), 0), delta(100, "b", dcB64(2400, 100), 0)},
			map[string]float64{"b": 0.1}, 0.2, true},
		{"bad base64 skipped", []trace.Event{delta(0, "a", "!!notbase64", 0), delta(200, "b", dcB64(2400, 100), 0)},
			map[string]float64{"b": 0.2}, 0.3, false},
	}
	zero := 0.0
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sa := alignSession(trace.Session{Events: c.events}, &zero)
			if len(sa.ReplyStartS) != len(c.wantStart) {
				t.Errorf("reply starts %v, want %v", sa.ReplyStartS, c.wantStart)
			}
			for id, w := range c.wantStart {
				if got, ok := sa.ReplyStartS[id]; !ok || got < w-1e-9 || got > w+1e-9 {
					t.Errorf("reply %s starts at %v (%v), want %v", id, got, ok, w)
				}
			}
			if got := sa.DurationS(); got < c.wantLenS-1e-4 || got > c.wantLenS+1e-4 {
				t.Errorf("duration %.4f s, want %.4f s", got, c.wantLenS)
			}
			if sa.Cut != c.wantCut {
				t.Errorf("cut = %v, want %v", sa.Cut, c.wantCut)
			}
		})
	}
}
