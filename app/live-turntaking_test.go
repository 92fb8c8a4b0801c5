package app

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/duplexscope/duplexscope/metrics/turntaking"
	"github.com/duplexscope/duplexscope/trace"
)

// TestLiveTurns: the live passes are throttled and never overlap, score
// what was recorded, and the end-of-run score is kept for good. The
// exchange is TestDerivedTurnTaking's: user speech 1000–2000 ms, the model
// answers at 2600; a probe onset at 4000 adds an interruption case.
func TestLiveTurns(t *testing.T) {
	t.Parallel()
	var lt liveTurns
	var wire trace.Session
	for k := range 30 {
		a := base64.StdEncoding.EncodeToString(ttPCM(200, 16000, k < 5))
		ev := trace.Event{TMs: 1000 + float64(k)*200, Dir: trace.DirSend, Event: json.RawMessage(fmt.Sprintf(`{"type":"input_audio_buffer.append","audio":%q}`, a))}
		wire.Events = append(wire.Events, ev)
		lt.addEvent(ev, nil) // no decode handed over: the recorder reads the append
	}
	lt.addInput(turntaking.Input{TMs: 2600, Kind: turntaking.InputModel, PCM: ttPCM(1500, 24000, true), Rate: 24000})
	a := base64.StdEncoding.EncodeToString(ttPCM(1500, 24000, true))
	wire.Events = append(wire.Events, trace.Event{TMs: 2600, Dir: trace.DirRecv, Event: json.RawMessage(fmt.Sprintf(`{"type":"response.output_audio.delta","response_id":"r1","delta":%q}`, a))})
	done := trace.Event{TMs: 7000, Dir: trace.DirRecv, Event: json.RawMessage(`{"type":"response.done"}`)}
	wire.Events = append(wire.Events, done)
	lt.addEvent(done, nil)
	probe := func() []float64 { return []float64{4000} }
	categories := func() map[turntaking.Category]int {
		_, tt, _ := lt.current()
		if tt == nil {
			return nil
		}
		out := map[turntaking.Category]int{}
		for _, s := range tt.Scores {
			out[s.Category] = s.Takeovers
		}
		return out
	}

	if lt.due(ttEveryMs-1) != nil {
		t.Errorf("a pass was due %d ms after the last (the run's start), want every %d ms at most", ttEveryMs-1, ttEveryMs)
	}
	pass := lt.due(5000)
	if pass == nil {
		t.Fatal("no pass due at 5000 ms")
	}
	if lt.due(9000) != nil {
		t.Error("a second pass was due while the first runs")
	}
	pass(probe)
	got := categories()
	if got[turntaking.TurnEnd] != 1 || len(got) != 2 {
		t.Errorf("live pass scored %v, want a turn end taken over and the probe's interruption", got)
	}
	if _, _, user := lt.current(); len(user) != 1 || user[0].StartMs > 1100 || user[0].EndMs < 1900 {
		t.Errorf("user speech %+v, want one interval ≈ 1000–2000 ms", user)
	}
	if lt.due(5000+ttEveryMs-1) != nil {
		t.Error("a pass was due before ttEveryMs had passed since the last")
	}

	// A pass that ends after the end-of-run score does not replace it.
	late := lt.due(5000 + ttEveryMs)
	if late == nil {
		t.Fatal("no pass due ttEveryMs after the last")
	}
	lt.finish(&wire, nil) // no probe onsets: the final score has no interruption
	late(probe)
	if got := categories(); got[turntaking.TurnEnd] != 1 || len(got) != 1 {
		t.Errorf("after the end-of-run score and a late pass: %v, want the final score (turn end only)", got)
	}
	if lt.due(1e9) != nil {
		t.Error("a pass was due after the end-of-run score")
	}
}
