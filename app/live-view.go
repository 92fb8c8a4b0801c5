package app

import (
	"strconv"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/duplexscope/duplexscope/chart"
	"github.com/duplexscope/duplexscope/report"
)

// liveView is the live numbers tab: big numbers, levels, per-metric charts,
// the waterfall and the validity warnings.
type liveView struct {
	app.Compo
	Snap liveSnapshot
}

func (v *liveView) Render() app.UI {
	s := v.Snap
	c := func(m chart.Metric) *echart {
		d := s.Charts[m]
		return &echart{ID: "chart-" + string(m), Option: d.Option, Points: d.Points, Shape: d.Shape}
	}
	return app.Div().ID("live").Body(
		&warningsList{Warnings: s.Warnings},
		app.Elem("section").Class("ds-panel").Body(
			app.Elem("h2").Text("Session numbers"),
			app.P().ID("live-verdict").Class("ds-verdict").Attr("data-band", s.Plain.Band).Attr("data-verdict", s.Plain.Code).Text(s.Plain.Verdict),
			&bigNumbers{ID: "numbers", Items: s.Numbers},
			app.P().Class("ds-hint").Text("Headline: end of your speech → first sound of the reply (what you wait), beside vLLM's TTFP (model turn start → first audio packet). A \"p99\" needs at least "+strconv.Itoa(report.MinP99Samples)+" replies; below that the tail is the slowest reply."),
			app.If(len(s.Stream) > 0, func() app.UI {
				return app.Div().Body(app.Elem("h2").Style("margin-top", "10px").Text("Input-stream window"),
					app.P().Class("ds-hint").Text("Measured from the first audio sent, so these include your own speech and the wait for your turn to end; they are not reply latencies and not headline numbers."),
					&bigNumbers{ID: "stream", Items: s.Stream})
			}),
			&levelMeters{In: s.InLevel, Out: s.OutLevel, Pacing: s.Pacing},
			app.If(s.Camera != "", func() app.UI {
				how := "~1 fps JPEG, quality 0.7, latest picture on the next append"
				if s.Camera != "Camera" {
					how = "1 fps, frame k on the first append at ≥ (k+0.5) s, as OmniInteract sends them"
				}
				return app.P().ID("camera-frames").Class("ds-hint").Text(s.Camera + ": " + strconv.Itoa(s.VideoFrames) + " video frames sent (" + how + ")")
			}),
		),
		app.Div().Class("ds-grid").Body(
			app.Div().Class("ds-panel").Body(c(chart.TTFP)),
			app.Div().Class("ds-panel").Body(c(chart.Heard)),
			app.Div().Class("ds-panel").Body(c(chart.TTFT)),
			app.Div().Class("ds-panel").Body(c(chart.RTF)),
			app.Div().Class("ds-panel").Body(c(chart.TPOT)),
		),
		&probePanel{Probes: s.Probes, Streaming: s.Phase == phaseStreaming},
		&ttCards{TT: s.TurnTaking, Labelled: s.TTLabelled},
		app.Elem("section").Class("ds-panel").Body(
			&echart{ID: "chart-waterfall", Class: "ds-tall", Option: s.Waterfall.Option, Points: s.Waterfall.Points, Shape: s.Waterfall.Shape},
			app.P().Class("ds-hint").Text("Server-clock and client-clock bars are separate: the two clocks are never added together. Heard latency (playback clock) is not part of vLLM's TTFP."),
		),
	)
}
