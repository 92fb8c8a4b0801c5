package app

import (
	"fmt"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/duplexscope/duplexscope/report"
)

// ttCards shows the derived turn-taking scores, one card per category.
type ttCards struct {
	app.Compo
	TT *report.TurnTaking
}

func (c *ttCards) Render() app.UI {
	var cards []report.TurnTakingCard
	if c.TT != nil {
		cards = c.TT.Scores
	}
	return app.Section().Class("ds-panel").ID("turntaking").Body(
		app.H2().Text("Turn-taking (derived cases)"),
		app.If(len(cards) == 0, func() app.UI { return app.P().Class("ds-hint").Text("No case yet.") }),
		app.Range(cards).Slice(func(i int) app.UI {
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
				app.Strong().Text(string(s.Category)),
				app.Div().Text(fmt.Sprintf("TOR %d of %d cases (%s)", s.Takeovers, s.Cases, better)),
				app.Div().Text(fmt.Sprintf("latency %s over %d takeover cases (client trace clock)", lat, s.LatencyCount)),
			)
		}),
		app.P().Class("ds-hint").Text("Without labels the cases are derived: each interruption probe is an interruption at its onset; each user speech end followed by ≥ 3 s without user speech is a turn end. Energy VAD (−40 dBFS, 20 ms frames) on both channels; a model burst < 1 s is a backchannel. Recomputed at most every 2 s."),
	)
}
