package app

import "github.com/maxence-charriere/go-app/v10/pkg/app"

// plainViewCompo is the plain-language tab for non-engineers.
type plainViewCompo struct {
	app.Compo
	Plain    plainView
	Warnings []warning
	Final    bool
}

func (p *plainViewCompo) Render() app.UI {
	return app.Elem("section").Class("ds-panel").ID("plain").Body(
		app.P().ID("verdict").Class("ds-verdict").Attr("data-band", p.Plain.Band).Attr("data-verdict", p.Plain.Code).Text(p.Plain.Verdict),
		app.Div().Class("ds-cards").Body(app.Range(p.Plain.Cards).Slice(func(i int) app.UI {
			c := p.Plain.Cards[i]
			return app.Div().Class("ds-card ds-"+c.Band).Attr("data-band", c.Band).Body(
				app.Div().Class("ds-k").Text(c.Title),
				app.Div().Class("ds-v").Text(c.Value),
				app.P().Text(c.Explain),
			)
		})),
		app.P().ID("verdict-rule").Class("ds-hint").Text(p.Plain.Footnote),
		&warningsList{Warnings: p.Warnings},
	)
}
