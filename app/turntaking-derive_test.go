package app

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"testing"

	"github.com/duplexscope/duplexscope/audio"
	"github.com/duplexscope/duplexscope/metrics/turntaking"
	"github.com/duplexscope/duplexscope/trace"
)

func TestDerivedCases(t *testing.T) {
	iv := func(a, b float64) turntaking.Interval { return turntaking.Interval{StartMs: a, EndMs: b} }
	cases := []struct {
		name   string
		user   []turntaking.Interval
		probes []float64
		endMs  float64
		want   []turntaking.Case
	}{
		{"no speech", nil, nil, 10000, nil},
		{"pause shorter than the window is no case", []turntaking.Interval{iv(0, 1000), iv(2500, 4000)}, nil, 9000,
			[]turntaking.Case{{ID: "turn_end_1", Category: turntaking.TurnEnd, AnchorMs: 4000, WindowMs: 3000}}},
		{"speech end too close to the recording end is left out", []turntaking.Interval{iv(0, 1000), iv(5000, 7000)}, nil, 9000,
			[]turntaking.Case{{ID: "turn_end_1", Category: turntaking.TurnEnd, AnchorMs: 1000, WindowMs: 3000}}},
		{"probe is an interruption at its onset", nil, []float64{2500}, 9000,
			[]turntaking.Case{{ID: "probe_1", Category: turntaking.Interruption, AnchorMs: 2500, WindowMs: 3000}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := derivedCases(c.user, c.probes, c.endMs)
			if len(got) != len(c.want) {
				t.Fatalf("got %+v, want %+v", got, c.want)
			}
			for i := range got {
				if got[i] != c.want[i] {
					t.Errorf("case %d = %+v, want %+v", i, got[i], c.want[i])
				}
			}
		})
	}
}

// ttPCM returns ms of PCM16 at rate: a 300 Hz tone when loud, else silence.
func ttPCM(ms, rate int, loud bool) []byte {
	x := make([]float32, ms*rate/1000)
	if loud {
		for i := range x {
			x[i] = float32(0.2 * math.Sin(2*math.Pi*300*float64(i)/float64(rate)))
		}
	}
	return audio.FloatToPCM16(x)
}

// TestDerivedTurnTaking: user speaks 1000–2000 ms then is silent to 7000;
// the model answers 1.5 s of audio received at 2600 → one turn-end case,
// taken over with latency 600 ms; a probe at 4000 (model still talking
// from 2600, no new onset) is an interruption not taken over.
func TestDerivedTurnTaking(t *testing.T) {
	var s trace.Session
	add := func(tMs float64, dir, body string) {
		s.Events = append(s.Events, trace.Event{TMs: tMs, Dir: dir, Event: json.RawMessage(body)})
	}
	for k := range 30 {
		a := base64.StdEncoding.EncodeToString(ttPCM(200, 16000, k < 5))
		add(1000+float64(k)*200, trace.DirSend, fmt.Sprintf(`{"type":"input_audio_buffer.append","audio":%q}`, a))
	}
	a := base64.StdEncoding.EncodeToString(ttPCM(1500, 24000, true))
	add(2600, trace.DirRecv, fmt.Sprintf(`{"type":"response.output_audio.delta","response_id":"r1","delta":%q}`, a))
	add(7000, trace.DirRecv, `{"type":"response.done"}`)
	tt := traceTurnTaking(&s, nil, []float64{4000}, "sess_1") // no labels: derived cases
	if tt == nil {
		t.Fatal("no turn-taking")
	}
	want := map[turntaking.Category][2]int{turntaking.TurnEnd: {1, 1}, turntaking.Interruption: {0, 1}}
	if len(tt.Scores) != len(want) {
		t.Fatalf("scores %+v", tt.Scores)
	}
	for _, c := range tt.Scores {
		w := want[c.Category]
		if c.Takeovers != w[0] || c.Cases != w[1] {
			t.Errorf("%s: %d of %d, want %d of %d", c.Category, c.Takeovers, c.Cases, w[0], w[1])
		}
		if c.Category == turntaking.TurnEnd && (c.LatencyMeanMs == nil || math.Abs(*c.LatencyMeanMs-600) > 25) {
			t.Errorf("turn_end latency %v, want ≈600 ms", c.LatencyMeanMs)
		}
	}
}
