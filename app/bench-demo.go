package app

import (
	"fmt"
	"math"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/duplexscope/duplexscope/chart"
	"github.com/duplexscope/duplexscope/metrics"
)

// demoResult fabricates a session result with n responses whose values
// move with tick (the live view's load benchmark: ?demo=N).
func demoResult(n, tick int) (metrics.SessionResult, map[string]respView) {
	res := metrics.SessionResult{}
	resp := map[string]respView{}
	var ttfp []float64
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("resp_%d", i)
		v := 400 + 150*math.Sin(float64(i+tick)/3)
		tt := v - 60
		rtf := 0.6 + 0.2*math.Cos(float64(i)/5)
		tp := 12.5
		c := v + 30
		created := float64(i) * 3000
		res.Rows = append(res.Rows, metrics.Row{RequestIndex: i, ResponseID: id, Raw: &metrics.RawMetric{
			TTFTMs: &tt, TTFTClock: metrics.ClockServer, TTFPMs: v, TTFPClock: metrics.ClockServer,
			RTF: &rtf, HasTPOT: true, TPOTMs: &tp, ClientTTFTMs: &tt, ClientTTFPMs: &c,
		}})
		resp[id] = respView{ID: id, CreatedMs: created, PlayStartMs: created + v + 180}
		ttfp = append(ttfp, v)
	}
	res.Summary = metrics.SessionSummary{AudioTurnCount: n, TTFPMs: metrics.Summarize(ttfp, 3)}
	return res, resp
}

// runDemo publishes synthetic live updates every 250 ms for 60 s.
func runDemo(ctx app.Context, n int) {
	publish := publisher[liveSnapshot](ctx, stateLive)
	ctx.Async(func() {
		t := time.NewTicker(250 * time.Millisecond)
		for tick := 0; tick < 240; tick++ {
			res, resp := demoResult(n, tick)
			var user, model []chart.Level
			for i := 0; i < n*15; i++ {
				user = append(user, chart.Level{TS: float64(i) * 0.2, Level: 0.3 + 0.2*math.Sin(float64(i))})
			}
			tab := shownTab()
			snap := buildView(viewInput{Phase: phaseStreaming, Status: fmt.Sprintf("Demo: %d synthetic responses, update %d", n, tick),
				Result: res, Resp: resp, User: user, Model: model, SkipTimeline: tab != "timeline", SkipWaterfall: tab != "live"})
			publish(snap)
			<-t.C
		}
		t.Stop()
	})
}
