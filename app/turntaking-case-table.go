package app

import (
	"fmt"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/duplexscope/duplexscope/report"
)

// ttCaseTable lists the turn-taking cases behind the cards: where each
// window was anchored, whether the model took the turn in it, and how
// long after the anchor (client trace clock).
type ttCaseTable struct {
	app.Compo
	Cases []report.TurnTakingCase
}

func (t *ttCaseTable) Render() app.UI {
	return app.Div().ID("turntaking-cases").Style("margin-top", "10px").Body(app.If(len(t.Cases) > 0, func() app.UI {
		return app.Elem("table").Class("ds-table").Body(
			app.Elem("thead").Body(app.Elem("tr").Body(
				app.Elem("th").Text("case"), app.Elem("th").Text("category"), app.Elem("th").Text("clip"),
				app.Elem("th").Text("anchor (ms, trace clock)"), app.Elem("th").Text("took the turn?"), app.Elem("th").Text("latency (ms)"),
			)),
			app.Elem("tbody").Body(app.Range(t.Cases).Slice(func(i int) app.UI {
				c := t.Cases[i]
				took, took01, lat := "no", "0", "—"
				if c.TookTurn {
					took, took01 = "yes", "1"
				}
				if c.LatencyMs != nil {
					lat = fmt.Sprintf("%.0f", *c.LatencyMs)
				}
				clip := c.SampleID
				if clip == "" {
					clip = "— (derived)"
				}
				// Not data-category: "#turntaking [data-category]" selects the cards.
				return app.Elem("tr").Attr("data-case", c.ID).Attr("data-case-category", c.Category).Attr("data-took", took01).Body(
					app.Elem("td").Text(c.ID), app.Elem("td").Text(c.Category), app.Elem("td").Text(clip),
					app.Elem("td").Text(fmt.Sprintf("%.0f (%s)", c.AnchorMs, c.AnchorSource)), app.Elem("td").Text(took), app.Elem("td").Text(lat),
				)
			})),
		)
	}))
}
