package app

import "github.com/maxence-charriere/go-app/v10/pkg/app"

// warningsList shows validity warnings (also stored in the report).
type warningsList struct {
	app.Compo
	Warnings []warning
}

func (w *warningsList) Render() app.UI {
	if len(w.Warnings) == 0 {
		return app.Div().ID("warnings").Attr("data-count", "0")
	}
	return app.Elem("section").Class("ds-panel").ID("warnings").Attr("data-count", len(w.Warnings)).Body(
		app.Elem("h2").Text("Validity warnings"),
		app.Elem("ul").Class("ds-warnings").Body(app.Range(w.Warnings).Slice(func(i int) app.UI {
			x := w.Warnings[i]
			cls := ""
			if x.Bad {
				cls = "ds-bad"
			}
			return app.Elem("li").Class(cls).Attr("data-code", x.Code).Text(x.Message)
		})),
	)
}
