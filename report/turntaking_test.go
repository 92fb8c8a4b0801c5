package report_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duplexscope/duplexscope/metrics/turntaking"
	"github.com/duplexscope/duplexscope/report"
)

// TestLabelledCases: scored cases become report cases with their clip's
// name, the label back on the clip's own clock (label − clip offset, so a
// joined stream stores what a one-clip session stores) and trace-clock
// times rounded to 3 decimals; NewTurnTaking recomputes the cards from
// those cases.
func TestLabelledCases(t *testing.T) {
	t.Parallel()
	f := func(v float64) *float64 { return &v }
	sc := turntaking.SessionScores{Cases: []turntaking.SessionCase{
		{CaseResult: turntaking.CaseResult{ID: "pause", Category: turntaking.Pause}, LabelAnchorMs: 2190, AnchorMs: 5637.12345, WindowMs: 1000, AnchorSource: "vad"},
		{CaseResult: turntaking.CaseResult{ID: "turn_end", Category: turntaking.TurnEnd, TookTurn: true, OnsetMs: f(31012.00049), LatencyMs: f(212.4567)},
			LabelAnchorMs: 24418.0625 + 2805, AnchorMs: 30799.5438, WindowMs: 3000, AnchorSource: "label"},
	}}
	clips := []report.CaseClip{{SampleID: "pause", Split: "turntaking"}, {SampleID: "turn_end", Split: "turntaking", OffsetMs: 24418.0625}}
	got := report.LabelledCases(sc, "sess", func(i int) report.CaseClip { return clips[i] })
	want := []report.TurnTakingCase{
		{SampleID: "pause", Split: "turntaking", SessionID: "sess", ID: "pause", Category: "pause", LabelAnchorMs: 2190, AnchorMs: 5637.123, WindowMs: 1000, AnchorSource: "vad"},
		{SampleID: "turn_end", Split: "turntaking", SessionID: "sess", ID: "turn_end", Category: "turn_end", LabelAnchorMs: 2805, AnchorMs: 30799.544, WindowMs: 3000,
			AnchorSource: "label", TookTurn: true, OnsetMs: f(31012), LatencyMs: f(212.457)},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("cases (-want +got):\n%s", diff)
	}
	tt := report.NewTurnTaking("rule", got)
	wantCards := []report.TurnTakingCard{
		{Category: turntaking.Pause, Cases: 1, TOR: f(0), LowerIsBetter: true},
		{Category: turntaking.TurnEnd, Cases: 1, Takeovers: 1, TOR: f(1), LatencyCount: 1, LatencyMeanMs: f(212.457)},
	}
	if diff := cmp.Diff(wantCards, tt.Scores); diff != "" || tt.Rule != "rule" || tt.Clock != turntaking.ClockTrace {
		t.Errorf("rule %q clock %q cards (-want +got):\n%s", tt.Rule, tt.Clock, diff)
	}
	if report.NewTurnTaking("rule", nil) != nil {
		t.Error("no case: want no turn_taking")
	}
}
