package app

import (
	"github.com/duplexscope/duplexscope/session/probe"
	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

// probePanel injects barge-in and overlap probes of a chosen kind and lists
// what each one did.
type probePanel struct {
	app.Compo
	Probes    []probeView
	Streaming bool
	kind      string // chosen kind; unexported, so the parent's updates keep it
}

// selected is the chosen kind (interruption until one is chosen).
func (p *probePanel) selected() string {
	if _, ok := probeKinds[p.kind]; ok {
		return p.kind
	}
	return probe.KindInterruption
}

func (p *probePanel) Render() app.UI {
	kind := p.selected()
	k := probeKinds[kind]
	return app.Elem("section").Class("ds-panel").ID("probes").Body(
		app.Elem("h2").Text("Barge-in and overlap probes"),
		app.Div().Class("ds-row").Body(
			app.Elem("label").Attr("for", "in-probe-kind").Text("Probe kind"),
			app.Elem("select").ID("in-probe-kind").Body(app.Range(probe.Kinds).Slice(func(i int) app.UI {
				v := probe.Kinds[i]
				return app.Elem("option").Attr("value", v).Text(probeKinds[v].Label).Attr("selected", v == kind)
			})).OnChange(func(ctx app.Context, e app.Event) { p.kind = ctx.JSSrc().Get("value").String() }),
			app.Elem("button").ID("btn-probe").Class("ds-btn ds-ghost").Attr("disabled", !p.Streaming).Text(k.Button).
				// Read the kind at click time: go-app keeps the first
				// render's handler closure.
				OnClick(func(ctx app.Context, e app.Event) { ctx.NewActionWithValue(actionProbe, p.selected()) }),
			app.Elem("span").ID("probe-hint").Class("ds-hint").Text(k.Hint),
		),
		app.P().Class("ds-hint").Text("Mixes a standard clip into what is sent, as if someone spoke over the model. Stop latency: probe sent (client send clock) → the model's audio stopped playing (playback clock)."),
		app.If(len(p.Probes) > 0, func() app.UI { return probeTable(p.Probes) }),
	)
}

// probeTable lists the probes: what was talking, whether and when it
// stopped, and the verdict against the kind's expectation.
func probeTable(ps []probeView) app.UI {
	return app.Elem("table").Class("ds-table").Body(
		app.Elem("tr").Body(app.Elem("th").Text("probe"), app.Elem("th").Text("kind"), app.Elem("th").Text("response talking at onset"),
			app.Elem("th").Text("stop latency (send → playback clock)"), app.Elem("th").Text("played at the cut"), app.Elem("th").Text("received"),
			app.Elem("th").Text("model's next turn (response.created, receive clock, after onset)"), app.Elem("th").Text("verdict")),
		app.Range(ps).Slice(func(i int) app.UI {
			v := ps[i]
			return app.Elem("tr").Attr("data-outcome", v.Outcome).Attr("data-kind", v.Kind).Attr("data-pass", v.Pass).Body(
				app.Elem("td").Text(v.ID), app.Elem("td").Text(v.Kind), app.Elem("td").Text(v.Response), app.Elem("td").Text(v.StopLatency),
				app.Elem("td").Text(v.Played), app.Elem("td").Text(v.Received), app.Elem("td").Text(v.Resume), app.Elem("td").Text(v.Verdict))
		}),
	)
}
