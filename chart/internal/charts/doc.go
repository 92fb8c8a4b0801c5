// Package charts is a trimmed copy of go-echarts v2.6.7's charts package
// (MIT licence, see LICENSE): base.go, series.go, rectangle.go, visitor.go,
// line.go, bar.go and scatter.go, the chart types package chart builds.
//
// Why a copy: upstream charts imports html/template (for JSONNotEscaped)
// and go-echarts/render (the HTML page renderer). package chart only
// needs the option JSON, yet linking html/template keeps text/template's
// builtin function table in app.wasm (about 16 KB of brotli). Changes:
// no Renderer field, no JSONNotEscaped, no 3D axes (only the 3D chart
// types set them, and their promoted JSON tags collide, which go vet
// reports), and none of the components chart never sets (polar, geo,
// radar, parallel, single axis, brush, calendar, visual map, dataset, axis
// pointer, aria, event listeners; the series' mark areas and points,
// emphasis, encode, label layout and line, ripple, circular, series
// tooltip, and the gauge's progress, pointer and detail): each field's types, with their
// equality functions and JSON metadata, were linked into app.wasm. The
// option JSON is unchanged (those keys were only written when set);
// chart's golden tests hold it.
package charts
