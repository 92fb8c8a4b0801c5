package report

import (
	"github.com/duplexscope/duplexscope/metrics"
	"github.com/duplexscope/duplexscope/metrics/turntaking"
)

// CaseClip names the dataset clip a labelled case belongs to and where the
// clip starts on the clock its labels were placed on: 0 when a session
// streams one clip (`duplexscope run`), the clip's offset in the joined
// stream when the page streams a dataset's clips as one input.
type CaseClip struct {
	SampleID, Split string
	OffsetMs        float64
}

// LabelledCases converts the scored cases of one session
// (turntaking.ScoreTrace) to report cases; clipOf(i) is case i's clip.
// label_anchor_ms goes back to the clip's own clock (label − clip
// offset), so the CLI and the page store the same label; trace-clock
// times are rounded to 3 decimals.
func LabelledCases(sc turntaking.SessionScores, sessionID string, clipOf func(i int) CaseClip) []TurnTakingCase {
	out := make([]TurnTakingCase, 0, len(sc.Cases))
	for i, k := range sc.Cases {
		c := clipOf(i)
		out = append(out, TurnTakingCase{
			SampleID: c.SampleID, Split: c.Split, SessionID: sessionID, ID: k.ID, Category: string(k.Category),
			LabelAnchorMs: round3(k.LabelAnchorMs - c.OffsetMs), AnchorMs: round3(k.AnchorMs), WindowMs: k.WindowMs,
			AnchorSource: k.AnchorSource, TookTurn: k.TookTurn, OnsetMs: round3p(k.OnsetMs), LatencyMs: round3p(k.LatencyMs),
		})
	}
	return out
}

// NewTurnTaking summarises cases as the report's turn_taking: one card per
// category by turntaking.Cards (TOR and mean latency rounded to 3
// decimals), every value on the trace clock (turntaking.ClockTrace). It
// returns nil when there is no case.
func NewTurnTaking(rule string, cases []TurnTakingCase) *TurnTaking {
	if len(cases) == 0 {
		return nil
	}
	cards := turntaking.Cards(caseResults(cases))
	for i := range cards {
		cards[i].TOR = round3p(cards[i].TOR)
		cards[i].LatencyMeanMs = round3p(cards[i].LatencyMeanMs)
	}
	return &TurnTaking{Rule: rule, Clock: turntaking.ClockTrace, Scores: cards, Cases: cases}
}

// caseResults turns stored cases back into the scorer's results (cards
// are always recomputed from cases, never averaged).
func caseResults(cases []TurnTakingCase) []turntaking.CaseResult {
	out := make([]turntaking.CaseResult, len(cases))
	for i, c := range cases {
		out[i] = turntaking.CaseResult{ID: c.ID, Category: turntaking.Category(c.Category), TookTurn: c.TookTurn, OnsetMs: c.OnsetMs, LatencyMs: c.LatencyMs}
	}
	return out
}

func round3(v float64) float64 { return metrics.Round(v, 3) }

func round3p(v *float64) *float64 {
	if v == nil {
		return nil
	}
	r := round3(*v)
	return &r
}
