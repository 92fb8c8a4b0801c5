// Package report defines the archived report: the versioned JSON document
// ("duplexscope.report/v1") that a browser session, a headless run or a vLLM
// import produces and the archive stores.
//
// A Report says what was run (Run), carries the vLLM-Omni metrics payload
// unchanged (Metrics: duplex_request_metrics rows, duplex_session_metrics
// entries and the run-level keys of duplex_metrics.json, with their vLLM
// keys), duplexscope's own extras (heard latency, pacing, playback
// underruns), validity warnings, attachment references and a complete flag.
//
// FromMetrics builds a report from the metrics package's typed run report
// (the page, headless runs, load curves) without writing and re-reading
// JSON; New, ParseMetrics, Import and Decode read what really is JSON
// (a duplex_metrics.json, an upload, a stored report). Both give the same
// rows, byte for byte.
//
// Decode validates everything that crosses a trust boundary: size, nesting,
// array lengths, string lengths, UTF-8, non-finite numbers, enums and
// required fields, and reports each problem as a field path plus a reason.
//
// # Clocks
//
// Every number keeps the clock it came from. Row values follow docs/metrics.md#clocks:
// ttft_ms/ttfp_ms from the server clock when Row.Source says so (the row's
// measurement_origin names it), else from the client receive clock; rtf,
// audio_* and client_* from the client receive clock; tpot_ms from the
// engine (server) clock. Heard latency (ResponseExtra.HeardTTFPMs) comes from
// the playback clock and is never mixed into ttfp_ms; so does the end of
// the user's speech → first sound (ResponseExtra.SpeechEndToHeardMs,
// summarised as Report.SpeechEndToHeard), whose playback is "simulated"
// for headless runs, which are then never called "heard".
//
// # Verdict
//
// Judge is the one judgement every page shows (data-verdict): from the
// statistics of FactsOf, the one band table LatencyBands, the RTF rule
// (the share of responses at RTF ≥ 1) and the p99 label rule
// (MinP99Samples; "slowest of N" below it).
package report
