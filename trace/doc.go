// Package trace defines the duplex-trace/v1 document: a recorded duplex
// session (or run, or engine TPOT case) as the client observed it.
//
// The same document is the wire log a live session records, the input of
// `duplexscope score` and `replay`, and the golden vectors' format, so every
// path gives one set of numbers.
//
// # Clocks
//
// Event.TMs is the client's monotonic clock in milliseconds: the receive time
// for "recv" entries (taken as close to the socket as the platform allows),
// the send time for "send" entries. "local" entries are client annotations
// (playback started, pacing lag, underruns); metrics ignore them.
package trace
