// Package metrics computes vLLM-Omni's full-duplex benchmark metrics exactly
// as the reference does (docs/metrics.md in the repository): per-response rows
// (TTFT, TTFP, RTF, TPOT, client latencies), the session summary with the
// input-stream window, the run-level duplex_metrics.json with merge on
// resume, and the engine's token-weighted TPOT rule.
//
// There are two ways in and one definition. Accumulator is fed trace events
// one by one (the live UI and the headless runner attach it as an observer)
// and Snapshot can be taken at any time; ScoreSession feeds a recorded
// trace.Session into an Accumulator, so the batch and the live numbers are
// the same code. The package is pure: no I/O, no clock, no goroutines; it
// builds and tests identically under GOOS=js GOARCH=wasm.
//
// # Clocks
//
// Every number carries its clock origin:
//   - client receive clock: trace.Event.TMs of "recv" entries (client
//     monotonic milliseconds, performance.now() in the browser). All
//     client-computed values (client_*, audio_generation_ms, rtf, stream_*,
//     ttft_ms/ttfp_ms fallbacks) are differences of these instants taken in
//     seconds (t_ms/1000.0) and multiplied by 1000, exactly as the reference.
//   - server clock: response_request_metrics ttft_ms/ttfp_ms (the server's
//     monotonic clock) and the engine stage-0 tpot_ms/stage0_tokens. Server
//     and client instants are never compared.
//
// RawMetric.TTFTClock/TTFPClock name the clock of each latency and
// ResponseTiming gives the client receive instants (created, first text,
// first and last audio packet) for waterfalls.
//
// # Numbers
//
// Values are float64 milliseconds (not time.Duration): parity with the
// reference needs its float arithmetic and Python round() semantics
// (Round). Percentiles are nearest rank over all samples, never
// approximated (Percentile, Summarize).
//
// # JSON
//
// Row, SessionSummary, SessionResult and Report marshal in the reference's
// key order, with null and absent keys kept apart; Report.File writes the
// exact bytes of duplex_metrics.json (Python indent=2, Python float repr).
//
// # Python semantics (issue 16)
//
// Events are read as the reference's json.loads and Python see them: a
// response id is a non-empty string (protocol.IdentityOf; lone surrogates
// stay distinct and are written back as \uXXXX escapes); token counts are
// Python ints, exact at any size (Int); numeric strings parse as
// int()/float() (Unicode digits, underscores, whitespace);
// server_event_seq compares exactly; a base64 payload with a non-ASCII
// character decodes to nothing; engine segments compare with Python ==.
//
// Nothing here writes a non-finite number. Object.MarshalJSON (the `score`
// writer) refuses one with a *NonFiniteError naming its JSON path, and
// Score refuses a conversion Python raises on (Fault) — where the
// reference raises. Report.File and Report.MarshalJSON, which must not lose
// a run, write such values as null (Finite) and name them
// (Report.NonFinite, Report.Faults) for validity warnings.
package metrics
