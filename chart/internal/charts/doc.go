// Package charts is a trimmed copy of go-echarts v2.6.7's charts package
// (MIT licence, see LICENSE): base.go, series.go, rectangle.go, visitor.go,
// line.go, bar.go and scatter.go, the chart types package chart builds.
//
// Why a copy: upstream charts imports html/template (for JSONNotEscaped)
// and go-echarts/render (the HTML page renderer). package chart only
// needs the option JSON, yet linking html/template keeps text/template's
// builtin function table in app.wasm (about 16 KB of brotli). Changes:
// no Renderer field, no JSONNotEscaped, and no 3D axes (only the 3D chart
// types set them, and their promoted JSON tags collide, which go vet
// reports). The option JSON is unchanged; chart's golden tests hold it.
package charts
