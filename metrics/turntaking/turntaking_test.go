package turntaking_test

import (
	"math"
	"testing"

	"github.com/duplexscope/duplexscope/metrics/turntaking"
	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// signal builds 16 kHz mono audio: a sine at amp for each [start, end) ms
// span, silence elsewhere, total ms long.
func signal(totalMs int, amp float64, spans ...[2]int) []float32 {
	const rate = 16000
	out := make([]float32, totalMs*rate/1000)
	for _, sp := range spans {
		for i := sp[0] * rate / 1000; i < sp[1]*rate/1000 && i < len(out); i++ {
			out[i] = float32(amp * math.Sin(2*math.Pi*220*float64(i)/rate))
		}
	}
	return out
}

func TestVAD(t *testing.T) {
	t.Parallel()
	loud := 0.1 // RMS ≈ −23 dBFS
	tests := []struct {
		name    string
		samples []float32
		opt     *turntaking.VADOptions
		want    []turntaking.Interval
	}{
		{"two utterances", signal(3000, loud, [2]int{200, 1000}, [2]int{1600, 2400}), nil,
			[]turntaking.Interval{{StartMs: 200, EndMs: 1000}, {StartMs: 1600, EndMs: 2400}}},
		{"gap under 200 ms joins", signal(2000, loud, [2]int{200, 600}, [2]int{700, 1000}), nil,
			[]turntaking.Interval{{StartMs: 200, EndMs: 1000}}},
		{"blip under 100 ms dropped", signal(2000, loud, [2]int{200, 260}, [2]int{1000, 1400}), nil,
			[]turntaking.Interval{{StartMs: 1000, EndMs: 1400}}},
		{"quiet speech below −40 dBFS is silence", signal(2000, 0.005, [2]int{200, 1000}), nil, nil},
		{"threshold option", signal(2000, 0.005, [2]int{200, 1000}), &turntaking.VADOptions{ThresholdDBFS: -60},
			[]turntaking.Interval{{StartMs: 200, EndMs: 1000}}},
		{"empty", nil, nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := turntaking.VAD(tc.samples, 16000, tc.opt)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func sp(start, end float64, words int) turntaking.Speech {
	return turntaking.Speech{Interval: turntaking.Interval{StartMs: start, EndMs: end}, Words: words}
}

func f(v float64) *float64 { return &v }

func TestScoreCase(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		c     turntaking.Case
		model []turntaking.Speech
		want  turntaking.CaseResult
	}{
		{"turn end: reply 640 ms after the user stops",
			turntaking.Case{ID: "t", Category: turntaking.TurnEnd, AnchorMs: 5000},
			[]turntaking.Speech{sp(1000, 3000, 12), sp(5640, 8000, 20)},
			turntaking.CaseResult{ID: "t", Category: turntaking.TurnEnd, TookTurn: true, OnsetMs: f(5640), LatencyMs: f(640)}},
		{"pause: model jumps in", turntaking.Case{ID: "p", Category: turntaking.Pause, AnchorMs: 2000, WindowMs: 1500},
			[]turntaking.Speech{sp(2900, 4500, -1)},
			turntaking.CaseResult{ID: "p", Category: turntaking.Pause, TookTurn: true, OnsetMs: f(2900), LatencyMs: f(900)}},
		{"pause: model waits past the window", turntaking.Case{ID: "p", Category: turntaking.Pause, AnchorMs: 2000, WindowMs: 1500},
			[]turntaking.Speech{sp(3500, 4500, -1)},
			turntaking.CaseResult{ID: "p", Category: turntaking.Pause}},
		{"mm-hm is a backchannel, the later reply takes the turn",
			turntaking.Case{ID: "b", Category: turntaking.TurnEnd, AnchorMs: 1000},
			[]turntaking.Speech{sp(1200, 1600, 1), sp(2000, 4000, 9)},
			turntaking.CaseResult{ID: "b", Category: turntaking.TurnEnd, TookTurn: true, OnsetMs: f(2000), LatencyMs: f(1000)}},
		{"short but wordy speech is not a backchannel",
			turntaking.Case{ID: "w", Category: turntaking.Backchannel, AnchorMs: 1000},
			[]turntaking.Speech{sp(1100, 1900, 6)},
			turntaking.CaseResult{ID: "w", Category: turntaking.Backchannel, TookTurn: true, OnsetMs: f(1100), LatencyMs: f(100)}},
		{"interruption: speech under way at the onset is not a takeover",
			turntaking.Case{ID: "i", Category: turntaking.Interruption, AnchorMs: 3000},
			[]turntaking.Speech{sp(1000, 6000, 30)},
			turntaking.CaseResult{ID: "i", Category: turntaking.Interruption}},
		{"interruption: model stops and answers",
			turntaking.Case{ID: "i", Category: turntaking.Interruption, AnchorMs: 3000},
			[]turntaking.Speech{sp(4200, 5600, -1), sp(1000, 3200, 30)},
			turntaking.CaseResult{ID: "i", Category: turntaking.Interruption, TookTurn: true, OnsetMs: f(4200), LatencyMs: f(1200)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tc.want, turntaking.ScoreCase(tc.c, tc.model)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestScoreCards(t *testing.T) {
	t.Parallel()
	model := []turntaking.Speech{sp(1500, 3000, -1), sp(10400, 12000, -1), sp(20900, 22000, -1)}
	cases := []turntaking.Case{
		{ID: "te1", Category: turntaking.TurnEnd, AnchorMs: 10000},
		{ID: "te2", Category: turntaking.TurnEnd, AnchorMs: 20000},
		{ID: "te3", Category: turntaking.TurnEnd, AnchorMs: 30000},
		{ID: "p1", Category: turntaking.Pause, AnchorMs: 1000, WindowMs: 1000},
	}
	_, cards := turntaking.Score(cases, model)
	want := []turntaking.CategoryScore{
		{Category: turntaking.Pause, Cases: 1, Takeovers: 1, TOR: f(1), LatencyCount: 1, LatencyMeanMs: f(500), LowerIsBetter: true},
		{Category: turntaking.TurnEnd, Cases: 3, Takeovers: 2, TOR: f(2.0 / 3), LatencyCount: 2, LatencyMeanMs: f(650)},
	}
	if diff := cmp.Diff(want, cards); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestAnchors(t *testing.T) {
	t.Parallel()
	user := []turntaking.Interval{{StartMs: 0, EndMs: 1000}, {StartMs: 2000, EndMs: 3500}}
	if end, ok := turntaking.LastEndBefore(user, 3000); !ok || end != 1000 {
		t.Errorf("LastEndBefore = %v, %v", end, ok)
	}
	if start, ok := turntaking.FirstStartAfter(user, 1500); !ok || start != 2000 {
		t.Errorf("FirstStartAfter = %v, %v", start, ok)
	}
	if _, ok := turntaking.FirstStartAfter(user, 4000); ok {
		t.Error("found a start after the last interval")
	}
}

// Card laws: 0 ≤ TOR ≤ 1, takeovers ≤ cases, latencies inside the window.
func TestScoreProperties(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		var model []turntaking.Speech
		for range rapid.IntRange(0, 20).Draw(t, "segments") {
			s := rapid.Float64Range(0, 60000).Draw(t, "start")
			model = append(model, sp(s, s+rapid.Float64Range(50, 5000).Draw(t, "dur"), rapid.IntRange(-1, 10).Draw(t, "words")))
		}
		var cases []turntaking.Case
		for range rapid.IntRange(1, 20).Draw(t, "cases") {
			cases = append(cases, turntaking.Case{
				Category: rapid.SampledFrom([]turntaking.Category{turntaking.Pause, turntaking.Backchannel, turntaking.TurnEnd, turntaking.Interruption}).Draw(t, "cat"),
				AnchorMs: rapid.Float64Range(0, 60000).Draw(t, "anchor"),
				WindowMs: rapid.Float64Range(0, 5000).Draw(t, "window"),
			})
		}
		results, cards := turntaking.Score(cases, model)
		for i, r := range results {
			w := cases[i].WindowMs
			if w == 0 {
				w = turntaking.DefaultWindowMs
			}
			if r.TookTurn && (*r.LatencyMs < 0 || *r.LatencyMs >= w) {
				t.Fatalf("latency %v outside window %v", *r.LatencyMs, w)
			}
		}
		total := 0
		for _, c := range cards {
			total += c.Cases
			if c.Takeovers > c.Cases || *c.TOR < 0 || *c.TOR > 1 || c.LatencyCount != c.Takeovers {
				t.Fatalf("bad card %+v", c)
			}
		}
		if total != len(cases) {
			t.Fatalf("cards cover %d of %d cases", total, len(cases))
		}
	})
}
