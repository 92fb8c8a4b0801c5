package app

import "github.com/maxence-charriere/go-app/v10/pkg/app"

// bigNumbers shows headline figures, each with its clock origin.
type bigNumbers struct {
	app.Compo
	ID    string
	Items []bigNumber
}

func (b *bigNumbers) Render() app.UI {
	return app.Div().ID(b.ID).Class("ds-numbers").Body(app.Range(b.Items).Slice(func(i int) app.UI {
		n := b.Items[i]
		return app.Div().Class("ds-number").Attr("data-key", n.Key).Body(
			app.Div().Class("ds-k").Text(n.Key),
			app.Div().Class("ds-v").Text(n.Value),
			app.Div().Class("ds-o").Text(n.Origin),
		)
	}))
}
