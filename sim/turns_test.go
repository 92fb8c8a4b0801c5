//go:build !js

package sim

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestTurnClockTurnEnds: a fixed schedule wins over the period; each end
// is counted once, however many one append passes.
func TestTurnClockTurnEnds(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		sc     Scenario
		clocks []int64 // input clock after each append
		want   []int
	}{
		"schedule":              {Scenario{TurnsMs: []int{1000, 2500, 2600}}, []int64{999, 1000, 2000, 3000, 9000}, []int{0, 1, 0, 2, 0}},
		"schedule beats period": {Scenario{TurnsMs: []int{5000}, PeriodMs: 1000}, []int64{3000, 5000}, []int{0, 1}},
		"period":                {Scenario{PeriodMs: 3000}, []int64{2999, 3000, 5000, 12000}, []int{0, 1, 0, 3}},
		"neither":               {Scenario{}, []int64{1000, 100000}, []int{0, 0}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			c := newTurnClock(&tc.sc)
			var got []int
			for _, at := range tc.clocks {
				got = append(got, c.turnEnds(at))
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("turn ends (-want +got):\n%s", d)
			}
		})
	}
}

// TestTurnClockBeats: one beat per unit boundary an append crosses; a
// boundary is never counted twice.
func TestTurnClockBeats(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		unitMs  int
		appends [][2]int64 // before, after
		want    []int
	}{
		"200 ms appends, 1 s unit": {1000, [][2]int64{{0, 200}, {200, 400}, {400, 600}, {600, 800}, {800, 1000}, {1000, 1200}}, []int{0, 0, 0, 0, 1, 0}},
		"one long append":          {1000, [][2]int64{{0, 3500}, {3500, 4000}}, []int{3, 1}},
		"80 ms unit":               {80, [][2]int64{{0, 100}, {100, 200}}, []int{1, 1}},
		"first append late":        {1000, [][2]int64{{5000, 5200}, {5200, 6100}}, []int{0, 1}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			c := newTurnClock(&Scenario{ChunkPeriodMs: tc.unitMs})
			var got []int
			for _, a := range tc.appends {
				got = append(got, c.beats(a[0], a[1]))
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("beats (-want +got):\n%s", d)
			}
		})
	}
}

// TestHearListenBeats: an idle model sends one listen beat per chunk unit
// of input, saying whether the user is speaking; a busy one sends none.
func TestHearListenBeats(t *testing.T) {
	t.Parallel()
	silence := make([]int16, 16000)
	speech := make([]int16, 16000)
	for i := range speech {
		speech[i] = int16(8000 * ((i/20%2)*2 - 1)) // 400 Hz square wave, −12 dBFS
	}
	tests := map[string]struct {
		samples []int16
		busy    bool
		want    []string
	}{
		"silence": {silence, false, []string{"silence"}},
		"speech":  {speech, false, []string{"speech"}},
		"busy":    {silence, true, nil},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			h := newHarness(t, mustProfile(t, ProfileMiniCPMO), "")
			h.update(0)
			h.runUntil(0)
			h.out = nil
			if tc.busy {
				h.e.active = &response{kind: "speak"}
			}
			h.e.hear(ms, tc.samples, 0, 1000)
			h.runUntil(ms)
			var got []string
			for _, r := range h.ofType("response.listen") {
				got = append(got, str(r.ev, "response", "metadata", "reason"))
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("listen beats (-want +got):\n%s", d)
			}
		})
	}
}
