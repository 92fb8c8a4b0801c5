// Package charts is a trimmed copy of go-echarts v2.6.7's charts package
// (MIT licence, see LICENSE): base.go, series.go, rectangle.go and
// visitor.go, and line.go, bar.go and scatter.go (the chart types package
// chart builds) as one generic XYChart in xychart.go.
//
// Why a copy: upstream charts imports html/template (for JSONNotEscaped)
// and go-echarts/render (the HTML page renderer). Package chart only
// needs the option JSON, yet linking html/template keeps text/template's
// builtin function table in app.wasm, and every field of the chart
// structs links its types (with their equality functions and JSON
// metadata) whether it is set or not.
//
// Changes: no Renderer field and no JSONNotEscaped; no Assets or
// JSFunctions (the HTML page's script list and inline functions, never in
// the option JSON); no 3D axes (only the 3D chart types set them, and
// their promoted JSON tags collide, which go vet reports); none of the
// components chart never sets (polar, geo, radar, parallel, single axis,
// brush, calendar, visual map, dataset, axis pointer, aria, event
// listeners) nor the series options it never sets (mark areas and points,
// emphasis, encode, label layout and line, ripple, circular, series
// tooltip, the gauge's progress, pointer and detail), nor the series
// fields and options of chart types other than line, bar and scatter, nor
// progressive rendering, a toolbox setter, a palette setter or the bar's
// XY reversal, with the functions that set them; SetXAxis is RectChart's,
// once for all three types; RectChart's own Validate (which every chart
// type overrides) is gone. Those keys were only written when set, so the option
// JSON is unchanged; chart's golden tests hold it.
package charts
