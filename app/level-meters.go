package app

import (
	"fmt"
	"math"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

// levelMeters shows input/output levels and input pacing lag.
type levelMeters struct {
	app.Compo
	In, Out float64
	Pacing  pacingView
}

func meterWidth(rms float64) string {
	db := 20 * math.Log10(math.Max(rms, 1e-5)) // −100..0 dBFS
	return fmt.Sprintf("%.0f%%", math.Max(0, math.Min(100, (db+60)/60*100)))
}

func (m *levelMeters) Render() app.UI {
	p := m.Pacing
	return app.Div().Class("ds-row").Style("margin-top", "10px").Body(
		app.Div().Class("ds-field").Body(app.Elem("label").Text("input level (mic / clip)"),
			app.Div().Class("ds-meter").Body(app.Div().Style("width", meterWidth(m.In)))),
		app.Div().Class("ds-field").Body(app.Elem("label").Text("output level (played)"),
			app.Div().Class("ds-meter ds-model").Body(app.Div().Style("width", meterWidth(m.Out)))),
		app.Div().Class("ds-field").ID("pacing").Body(app.Elem("label").Text("input pacing lag (actual − scheduled send, client clock)"),
			app.Elem("span").Text(fmt.Sprintf("last %.1f ms · p99 %.1f ms · max %.1f ms · %d frames of %d ms", p.LastMs, p.P99Ms, p.MaxMs, p.Frames, p.FrameMs))),
	)
}
