// Command worker is the page's session worker, built to
// web/session-worker.wasm with GOOS=js GOARCH=wasm (make wasm) and started
// by web/session-worker.js in a dedicated Web Worker.
//
// It owns what the page's numbers rest on, off the main thread that draws:
// the WebSocket (either transport), the input send schedule (frames arrive
// from the input AudioWorklet over a MessagePort, never through the page),
// receive stamps, the playback feed (model audio goes to the playback
// AudioWorklet over its own port) and the playback acks built from the
// worklet's played-sample reports, and the wire log. Every stamp is on the
// page's timeline (session.SetTimelineOffset): the worker's
// performance.now() plus (worker timeOrigin − page timeOrigin), both origins
// recorded in the wire log as session.duplexscope.time_origins.
//
// The page gets each wire-log entry, each sent frame and the lifecycle as
// messages (see worker_js.go for the message shapes) and, at the end, the
// wire log and result. It imports session (not go-app, not the charts), so
// its wasm stays small.
//
// In its load mode (load_js.go) one worker runs every session of the /load
// page's run, each streaming its clip on the worker's clock with simulated
// playback; the page gets each one's finished responses and, at its end,
// its wire log.
package main
