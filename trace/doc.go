// Package trace defines and decodes the duplex-trace/v1 document: a recorded
// duplex session (kind "session"), a benchmark run of several sessions with
// an optional earlier duplex_metrics.json (kind "run"), or one request's
// engine outputs (kind "engine_tpot").
//
// The same document is the wire log a live session records, the input of
// `duplexscope score` and `replay`, and the golden vectors' format, so every
// path gives one set of numbers. Decode accepts a missing "format" and a
// missing "kind" (= session) and rejects any other format (ErrFormat) or an
// unknown kind (ErrKind). Events stay raw JSON: metrics read them with the
// reference's Python type rules. Python's bare NaN/Infinity tokens are
// accepted (PythonJSON), as the reference's json.loads accepts them.
//
// # Null versus missing
//
// SessionMeta keeps session_id's three states apart: a string; present with
// null (SessionIDNull, stays null); absent (defaults to sample_id, see
// ResolvedSessionID). stream_start_ms absent or null means 0.0. A run's
// existing_report present with null (HasExistingReport) is a merge against
// a missing file; an engine output's segment missing (nil) is 0 while an
// explicit null is its own value.
//
// # Clocks
//
// Event.TMs is the client's monotonic clock in milliseconds: the receive time
// for "recv" entries (taken as close to the socket as the platform allows),
// the send time for "send" entries. "local" entries are client annotations
// (playback started, pacing lag, underruns, the stream start); metrics
// ignore them except the stream-start annotation (metrics.LocalStreamStart).
// SessionMeta.StreamStartMs is on the same clock.
package trace
