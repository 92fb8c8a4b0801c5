//go:build chartfloor

package main

import (
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/duplexscope/duplexscope/chart"
	"github.com/duplexscope/duplexscope/web"
)

// floor is the hello world with one chart: the heading, then #chart-ttfp
// drawn by echarts from the option chart.MetricOptions builds for one
// point, as the page's first TTFP chart is.
type floor struct {
	app.Compo
	finished app.Func
}

func newPage() app.Composer { return &floor{} }

func (*floor) Render() app.UI {
	return app.Div().Body(
		app.H1().Text("Hello, chart!"),
		app.Div().ID("chart-ttfp").Style("width", "640px").Style("height", "300px"),
	)
}

func (f *floor) OnMount(ctx app.Context) { ctx.Defer(f.draw) }

// draw waits for the deferred echarts script as the page's charts do
// (app/echart.go's drawNext), then draws.
func (f *floor) draw(ctx app.Context) {
	if app.Window().Get("echarts").IsUndefined() {
		ctx.After(20*time.Millisecond, f.draw)
		return
	}
	opt, err := chart.MetricOptions(chart.TTFP, []chart.Point{{ResponseID: "resp_0", Value: 400, Origin: chart.OriginServer}})
	if err != nil {
		app.Log(err)
		return
	}
	el := app.Window().GetElementByID("chart-ttfp")
	init := app.Window().Get("Object").New()
	init.Set("renderer", "canvas")
	inst := app.Window().Get("echarts").Call("init", el, nil, init)
	f.finished = app.FuncOf(func(app.Value, []app.Value) any {
		el.Call("setAttribute", "data-drawn-points", "1")
		return nil
	})
	inst.Call("on", "finished", f.finished)
	inst.Call("setOption", app.Window().Get("JSON").Call("parse", string(opt)))
}

// handler loads the floor as the duplexscope page loads: echarts deferred,
// the wasm's compile started from the head, app.js instantiating it.
func handler(h *app.Handler) http.Handler {
	h.Scripts = []string{"/web/echarts.min.js defer"}
	h.RawHeaders = web.BootHeaders()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/app.js" {
			h.ServeHTTP(w, r)
			return
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		for k, v := range rec.Header() {
			if k != "Content-Length" {
				w.Header()[k] = v
			}
		}
		w.WriteHeader(rec.Code)
		w.Write(web.EarlyAppJS(rec.Body.Bytes()))
	})
}
