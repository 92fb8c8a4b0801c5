// Package tracker follows one session's wire log as it grows and keeps what
// the live views draw of it: each response's state, the timeline's marks,
// model captions and levels, the folded event log, the input pacing lags
// and the metrics accumulator.
//
// It is the page's per-response tracker, taken out of the page's run
// controller so it is tested natively and so the session worker can run it
// too (it imports neither go-app nor the chart code). Pure: no clocks, no
// I/O, no syscall/js; every instant comes in on the events (trace clock,
// performance.now() milliseconds). A Tracker is not safe for concurrent use.
//
// The views read a View, fed by the Tracker's Deltas (what changed since
// the last one): the session worker posts them to the page through Encode
// and Decode, the page's main-thread path merges its own tracker's
// directly — one drawing path for both.
package tracker
