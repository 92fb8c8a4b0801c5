package app

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

// echart draws option JSON (built by package chart) with the vendored
// echarts runtime. The element carries data-points (the point count of
// the option Go rendered) and, once echarts has finished drawing an
// option, data-drawn-points (that option's count): a test or benchmark
// waiting for a drawn chart waits for the second; the first is set before
// echarts has even run. It is an image to screen readers (role="img",
// named by its id: the canvas itself says nothing).
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
	// setPoints is the point count of the option last given to echarts,
	// shownPoints the one data-drawn-points says (-1: not set).
	setPoints, shownPoints int
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

func (c *echart) OnMount(ctx app.Context) { c.queue(ctx) }

func (c *echart) OnUpdate(ctx app.Context) {
	if c.inst == nil {
		c.queue(ctx) // not drawn yet: it draws the latest option in its turn
		return
	}
	ctx.Defer(c.draw)
}

// queue puts c in line for its first draw (see firstDraws).
func (c *echart) queue(ctx app.Context) {
	if firstDraws.add(c) {
		ctx.Defer(drawNext)
	}
}

func (c *echart) OnDismount() {
	firstDraws.remove(c)
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
	if c.inst == nil {
		// c's own element, not ctx.JSSrc(): drawNext draws every queued
		// chart with the context of the chart that started the line.
		c.inst = app.Window().Get("echarts").Call("init", c.JSValue(), nil, jsObject(map[string]any{"renderer": "canvas"}))
		c.shownPoints = -1
		c.listenFinished()
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
	c.drawn, c.drawnShape, c.setPoints = c.Option, c.Shape, c.Points
}

// listenFinished keeps data-drawn-points at the point count of the option
// echarts last finished drawing ("finished": rendered, no animation left).
func (c *echart) listenFinished() {
	el := c.JSValue()
	f := app.FuncOf(func(app.Value, []app.Value) any {
		if c.shownPoints != c.setPoints {
			c.shownPoints = c.setPoints
			el.Call("setAttribute", "data-drawn-points", strconv.Itoa(c.setPoints))
		}
		return nil
	})
	c.funcs = append(c.funcs, f)
	c.inst.Call("on", "finished", f)
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

// firstDraws holds the charts waiting for their first draw. A first draw
// (echarts.init, setOption) costs tens of milliseconds, the very first one
// more (echarts warms up): the dashboard's charts drawn in one task held
// its first paint about 350 ms. So one is drawn per animation frame, those
// with points first, and the page paints in between. Only the UI goroutine
// touches it (go-app's lifecycle calls and Dispatch run there).
var firstDraws drawQueue

// drawNext draws the next waiting chart and, while others wait, asks for
// the next animation frame.
func drawNext(ctx app.Context) {
	if app.Window().Get("echarts").IsUndefined() {
		// The deferred echarts script has not run yet: try again soon.
		ctx.After(20*time.Millisecond, drawNext)
		return
	}
	if c := firstDraws.next(); c != nil && c.Mounted() {
		c.draw(ctx)
	}
	if firstDraws.idle() {
		return
	}
	var f app.Func
	f = app.FuncOf(func(app.Value, []app.Value) any {
		f.Release()
		ctx.Dispatch(drawNext)
		return nil
	})
	app.Window().Call("requestAnimationFrame", f)
}

// drawQueue is the line of charts waiting for a first draw.
type drawQueue struct {
	pending []*echart
	running bool // a drawNext is scheduled
}

// add puts c in line once (a chart already in line keeps its place); it
// reports whether the line was idle, i.e. whether the caller must start
// drawNext.
func (q *drawQueue) add(c *echart) bool {
	if !slices.Contains(q.pending, c) {
		q.pending = append(q.pending, c)
	}
	start := !q.running
	q.running = true
	return start
}

// remove takes a dismounted chart out of line.
func (q *drawQueue) remove(c *echart) {
	q.pending = slices.DeleteFunc(q.pending, func(p *echart) bool { return p == c })
}

// next takes the first chart in line that has points (a drawn number is
// what a person waits for), else the first with an option. A chart with
// no option yet keeps its place: taken out, it went back in line behind
// the others when its first option came, and in cold loads where echarts
// ran before the first snapshot the TTFP chart was drawn fifth, about
// 300 ms late.
func (q *drawQueue) next() *echart {
	i := slices.IndexFunc(q.pending, func(c *echart) bool { return c.Option != "" && c.Points > 0 })
	if i < 0 {
		i = slices.IndexFunc(q.pending, drawable)
	}
	if i < 0 {
		return nil
	}
	c := q.pending[i]
	q.pending = slices.Delete(q.pending, i, i+1)
	return c
}

// drawable: c has an option to draw.
func drawable(c *echart) bool { return c.Option != "" }

// idle reports that no chart in line has anything to draw, and marks the
// line stopped (a chart's next option starts it again: OnUpdate → queue).
func (q *drawQueue) idle() bool {
	if slices.ContainsFunc(q.pending, drawable) {
		return false
	}
	q.running = false
	return true
}
