// Package session drives one full-duplex session against a vLLM-Omni
// `/v1/realtime?duplex=1` server (or the simulator), for the headless runner
// and the browser page alike: dial, session.update, input appends paced on an
// absolute schedule (or pushed by the page's audio clock), the final-commit
// tail rule, playback acknowledgements, the completion rule, and the close
// handshake (docs/protocol.md).
//
// A Session records every event it sends and receives, with the instant on
// its Clock, as a duplex-trace/v1 document (trace.Session) with audio
// payloads kept, so `duplexscope score` and `replay` read it; it publishes
// the same entries to Observers as they happen. session never runs the
// metrics accumulator: the caller attaches it as an Observer. It uses only
// metrics' pure rules (the nearest-rank percentile of its pacing lag).
//
// # Clocks
//
// Every t_ms in the wire log is the client monotonic clock (Config.Clock, in
// milliseconds since its arbitrary origin): for "recv" entries the instant
// the message was received (native: when the websocket Read returned; browser
// transport: performance.now() inside the WebSocket onmessage handler), for
// "send" entries the instant just before the write. stream_start_ms is taken
// on the same clock just before the first input append. Pacing lag is
// actual − scheduled send time on that clock. The simulated playback clock of
// headless mode advances with the same clock; in the browser the page passes
// its real playback progress (Session.Played). Server-reported values
// (response_request_metrics) are server clock and are recorded verbatim.
//
// # Wasm
//
// The package builds for GOOS=js GOARCH=wasm. Platform parts live in *_js.go
// and *_notjs.go files: the clock (performance.now() in the browser), and a
// transport that wraps the browser WebSocket directly so receive stamps are
// taken in onmessage (Config.Transport "browser", the default in wasm); the
// coder/websocket transport is kept as Config.Transport "coder" for
// comparison (in wasm through session/internal/coderws, a trimmed copy of
// its browser code that leaves out net/http, which would otherwise put
// crypto/tls into the session worker). Browsers ignore HTTP headers on websocket dials, so credentials
// must go in the URL. Go timers in wasm are setTimeout and are throttled in
// background tabs: the page should push frames from its AudioWorklet with
// Session.SendFrame instead of Session.Stream.
package session
