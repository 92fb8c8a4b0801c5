package app

import (
	"strconv"
	"strings"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

// echart draws option JSON (built by package chart) with the vendored
// echarts runtime. The element carries data-points (the chart's point
// count) for tests, and is an image to screen readers (role="img", named
// by its id: the canvas itself says nothing).
type echart struct {
	app.Compo
	ID, Class string
	Option    string
	Points    int
	// Shape names the option's series set; while it stays the same an
	// update merges (cheap), otherwise series are replaced. "" = always
	// replace.
	Shape string
	// OnLaneClick, when set, gets clicks on the timeline's grids (lane =
	// grid index, x = axis value).
	OnLaneClick func(lane int, x float64)

	inst       app.Value
	drawn      string
	drawnShape string
	funcs      []app.Func
}

func (c *echart) Render() app.UI {
	return app.Div().ID(c.ID).Class("ds-chart "+c.Class).
		Attr("data-points", strconv.Itoa(c.Points)).
		Role("img").Aria("label", c.label())
}

// label is the chart's accessible name: "ttfp chart" for id "chart-ttfp".
func (c *echart) label() string {
	return strings.ReplaceAll(strings.TrimPrefix(c.ID, "chart-"), "-", " ") + " chart"
}

func (c *echart) OnMount(ctx app.Context)  { ctx.Defer(c.draw) }
func (c *echart) OnUpdate(ctx app.Context) { ctx.Defer(c.draw) }

func (c *echart) OnDismount() {
	if c.inst != nil {
		c.inst.Call("dispose")
		c.inst = nil
	}
	for _, f := range c.funcs {
		f.Release()
	}
	c.funcs, c.drawn, c.drawnShape = nil, "", ""
}

// OnResize keeps the canvas the size of its box.
func (c *echart) OnResize(ctx app.Context) {
	if c.inst != nil {
		c.inst.Call("resize")
	}
}

// draw (re)applies the option; deferred so the element exists and is sized.
func (c *echart) draw(ctx app.Context) {
	if c.Option == "" || c.Option == c.drawn {
		return
	}
	ec := app.Window().Get("echarts")
	if ec.IsUndefined() {
		// The deferred echarts script has not run yet: try again soon.
		ctx.After(20*time.Millisecond, func(ctx app.Context) {
			if c.Mounted() {
				c.draw(ctx)
			}
		})
		return
	}
	if c.inst == nil {
		c.inst = ec.Call("init", ctx.JSSrc(), nil, jsObject(map[string]any{"renderer": "canvas"}))
		if c.OnLaneClick != nil {
			c.listenClicks()
		}
	}
	opt := app.Window().Get("JSON").Call("parse", c.Option)
	o := map[string]any{"lazyUpdate": true}
	if c.Shape == "" || c.Shape != c.drawnShape {
		o["replaceMerge"] = []any{"series"}
	}
	c.inst.Call("setOption", opt, jsObject(o))
	c.drawn, c.drawnShape = c.Option, c.Shape
}

func (c *echart) listenClicks() {
	inst := c.inst
	f := app.FuncOf(func(_ app.Value, args []app.Value) any {
		if len(args) == 0 || c.OnLaneClick == nil {
			return nil
		}
		px := []any{args[0].Get("offsetX").Float(), args[0].Get("offsetY").Float()}
		for lane := 0; lane < 2; lane++ {
			finder := jsObject(map[string]any{"gridIndex": lane})
			if inst.Call("containPixel", finder, px).Bool() {
				v := inst.Call("convertFromPixel", finder, px)
				c.OnLaneClick(lane, v.Index(0).Float())
				return nil
			}
		}
		return nil
	})
	c.funcs = append(c.funcs, f)
	inst.Call("getZr").Call("on", "click", f)
}
