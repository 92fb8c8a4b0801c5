// Package loadcurve summarises a load curve: for each concurrency level N,
// N paced sessions run at once (plus one that joins while they run) and
// the level's TTFP p50/p99, RTF, underruns and pacing lag are pooled from
// what every session measured.
//
// Runners — the CLI (`duplexscope run --load-curve`), a browser page
// (/load), or several of them reporting to one server — describe each
// session they ran as a Session (its responses' TTFP with the clock each
// came from, RTF, playback underruns, input pacing lags). Levels are always
// recomputed from the pooled Sessions, never averaged from per-runner
// summaries, so the curve of three runners is the curve of their sessions.
//
// # Clocks
//
// TTFP is the server clock when the server reported it
// (response_request_metrics), else the client receive clock; each
// Response says which, and a level's TTFPOrigin says whether its
// percentiles mix them. RTF is client receive clock; pacing lag is the
// client send clock (actual − scheduled send of each input frame);
// underruns are counted on the runner's playback clock (simulated serial
// playback headless and in the load page).
//
// The package is pure (no I/O, no clock) and builds for wasm.
package loadcurve
