// Package app is duplexscope's browser page: go-app v10 components compiled
// to WebAssembly (cmd/wasm), plus Handler, the http.Handler that serves the
// page and its assets from the server.
//
// The live dashboard captures the microphone (or streams a dataset clip)
// through an AudioWorklet whose messages pace the session's input frames,
// plays model audio through a playback worklet, feeds every timed event of
// the shared session driver to the incremental metrics accumulator and draws
// the numbers with echarts options built by package chart. At the end it
// saves the report to the archive with its wire log and audio attachments.
//
// Only this package imports go-app. It builds natively too (go-app stubs the
// browser APIs), so its pure parts — URL parameters, warnings, the plain
// language verdict, view models, a live run's lifecycle (lifecycle.go),
// playback bookkeeping (playback.go) and turn-taking (live-turntaking.go) —
// are tested with `go test`.
//
// # Clocks
//
// Receive times come from the session's transport (performance.now() in the
// WebSocket onmessage handler); input frames are timed by the AudioWorklet's
// audio clock; heard latency uses the playback AudioContext's output clock
// mapped to performance.now() with getOutputTimestamp. Every number shown
// says which of the three it came from.
//
// # Wasm
//
// Go timers are setTimeout in the browser and are throttled in background
// tabs, so nothing here paces audio with time.Sleep or tickers: the worklets'
// messages drive both input frames and playback acknowledgements.
//
// Elements other than div, p, h1 and img (which go-app itself uses) are
// built with app.Elem / app.ElemSelfClosing and Attr: the same tags and
// attributes, but each typed element (app.Td, app.Input…) would add its own
// type, method table and methods to app.wasm.
package app
