package app

import (
	"fmt"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/duplexscope/duplexscope/report"
)

// ttCards shows the turn-taking scores, one card per category, and the
// cases they count.
type ttCards struct {
	app.Compo
	TT       *report.TurnTaking
	Labelled int // labelled cases of the input; 0: derived cases
}

func (c *ttCards) Render() app.UI {
	var cards []report.TurnTakingCard
	var cases []report.TurnTakingCase
	if c.TT != nil {
		cards, cases = c.TT.Scores, c.TT.Cases
	}
	kind := "derived cases"
	if c.Labelled > 0 {
		kind = "labelled cases"
	}
	return app.Elem("section").Class("ds-panel").ID("turntaking").Attr("data-kind", kind).Body(
		app.Elem("h2").Text("Turn-taking ("+kind+")"),
		app.If(len(cards) == 0, func() app.UI { return app.P().Class("ds-hint").Text("No case yet.") }),
		app.Div().Class("ds-cards").Body(app.Range(cards).Slice(func(i int) app.UI {
			s := cards[i]
			better := "higher is better"
			if s.LowerIsBetter {
				better = "lower is better"
			}
			lat := "—"
			if s.LatencyMeanMs != nil {
				lat = fmt.Sprintf("%.0f ms", *s.LatencyMeanMs)
			}
			return app.Div().Class("ds-card").Attr("data-category", string(s.Category)).
				Attr("data-takeovers", s.Takeovers).Attr("data-cases", s.Cases).Body(
				app.Elem("strong").Text(string(s.Category)),
				app.Div().Text(fmt.Sprintf("TOR %d of %d cases (%s)", s.Takeovers, s.Cases, better)),
				app.Div().Text(fmt.Sprintf("latency %s over %d takeover cases (client trace clock)", lat, s.LatencyCount)),
			)
		})),
		&ttCaseTable{Cases: cases},
		app.P().Class("ds-hint").Text(ttHint(c.Labelled, len(cases))),
	)
}

// ttHint says where the cases come from and how they are judged.
func ttHint(labelled, shown int) string {
	const judged = " Energy VAD (−40 dBFS, 20 ms frames) on both channels; a model burst < 1 s (and ≤ 3 words where a transcript exists) is a backchannel, not a takeover. Recomputed at most every 2 s."
	if labelled == 0 {
		return "Without labels the cases are derived: each interruption probe is an interruption at its onset; each user speech end followed by ≥ 3 s without user speech is a turn end." + judged
	}
	return fmt.Sprintf("The dataset's labelled cases: clips joined with ≥ %d s of silence, each clip's labels moved by its offset in the stream; a case counts once its window has closed. Interruption probes add derived interruption cases.", labelledGapMs/1000) + judged
}
