// Package chart builds echarts option JSON with go-echarts for duplexscope's
// live page and share pages: one scatter chart per metric (points labelled by
// clock origin), the per-response latency waterfall and the two-lane session
// timeline. The JSON is drawn by the vendored echarts runtime (web/echarts.min.js);
// this package never touches the browser and builds natively and for wasm.
//
// # Clocks
//
// Every Point carries the Origin of its number: OriginServer (the server's
// monotonic clock, e.g. vLLM's response_request_metrics), OriginClientReceive
// (the client's receive clock, performance.now() in onmessage) or
// OriginPlayback (the AudioContext output clock: when a sample was played).
// Series are split by origin so a legend entry never mixes two clocks, and
// heard latency (playback clock) has its own chart, never merged into TTFP.
package chart
