package app

import "github.com/maxence-charriere/go-app/v10/pkg/app"

// probePanel injects barge-in probes and lists what each one did.
type probePanel struct {
	app.Compo
	Probes    []probeView
	Streaming bool
}

func (p *probePanel) Render() app.UI {
	return app.Section().Class("ds-panel").ID("probes").Body(
		app.H2().Text("Barge-in probes"),
		app.Div().Class("ds-row").Body(
			app.Button().ID("btn-probe").Class("ds-btn ds-ghost").Disabled(!p.Streaming).Text("Interrupt now").
				OnClick(func(ctx app.Context, e app.Event) { ctx.NewAction(actionProbe) }),
			app.Span().Class("ds-hint").Text("Mixes a short spoken clip into what is sent, as if you talked over the model. Stop latency: probe sent (client send clock) → the model's audio stopped playing (playback clock)."),
		),
		app.If(len(p.Probes) > 0, func() app.UI {
			return app.Table().Class("ds-table").Body(
				app.Tr().Body(app.Th().Text("probe"), app.Th().Text("response talking"), app.Th().Text("stop latency"), app.Th().Text("model's next turn"), app.Th().Text("outcome")),
				app.Range(p.Probes).Slice(func(i int) app.UI {
					v := p.Probes[i]
					return app.Tr().Attr("data-outcome", v.Outcome).Body(app.Td().Text(v.ID+" ("+v.Kind+")"), app.Td().Text(v.Response),
						app.Td().Text(v.StopLatency), app.Td().Text(v.Resume), app.Td().Text(v.Outcome))
				}),
			)
		}),
	)
}
