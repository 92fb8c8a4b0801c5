package app

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

// timelineView is the two-lane timeline; a click plays that moment.
type timelineView struct {
	app.Compo
	Snap liveSnapshot
	ctx  app.Context
	on   bool
}

func (t *timelineView) OnMount(ctx app.Context) { t.ctx, t.on = ctx, true }
func (t *timelineView) OnDismount()             { t.on = false }

func (t *timelineView) Render() app.UI {
	return app.Elem("section").Class("ds-panel").ID("timeline").Body(
		&echart{ID: "chart-timeline", Class: "ds-tall", Option: t.Snap.Timeline.Option, Points: t.Snap.Timeline.Points,
			OnLaneClick: t.play},
		app.P().Class("ds-hint").Text("Top: what was sent (your voice or the clip). Bottom: model audio as received, with markers for response.created, first text, first audio, playback start, cleared buffer and response.done (client receive clock; playback start on the playback clock), and each probe's onset (client send clock) and the cut it caused (probe stop, playback clock) on one line. Scroll to zoom; click a lane to hear that moment."),
	)
}

// play asks the controller to play the clicked moment (JS callback).
func (t *timelineView) play(lane int, x float64) {
	if !t.on {
		return
	}
	t.ctx.NewActionWithValue(actionPlayMoment, moment{Lane: lane, TS: x})
}
