// Package protocol defines the wire events of vLLM-Omni's full-duplex
// Realtime endpoint (/v1/realtime?duplex=1): typed client→server and
// server→client events with their exact JSON names, a decoder that keeps
// unknown events and unknown fields instead of failing, required-field
// validation, base64 PCM16 helpers, audio-duration arithmetic at declared
// sample rates, the realtime URL rules and the benchmark-style session.update.
//
// The package is stdlib-only and builds for GOOS=js GOARCH=wasm.
//
// # Decoding
//
// [Decode] reads one text frame. A frame whose "type" is not a known event
// becomes an [*Unknown] carrying the raw bytes, and no error. A known event
// keeps the exact bytes it was decoded from (Header.Raw) and every key the
// Go type does not model (Header.Extra, and Extra on nested objects);
// [Marshal] writes the modelled fields in struct order followed by the
// unknown keys in sorted order, so a decode → encode round trip keeps all
// information except explicit JSON nulls of modelled optional fields.
// Decoding does not validate; call Event.Validate for the required-field
// rules of docs/protocol.md, which fail with a [*FieldError] naming event and field.
//
// Metrics do not read these types: they read the raw JSON of the recorded
// trace with the reference's own quirks (docs/metrics.md#event-log). The typed events
// serve the session driver, the UI and the simulator.
//
// # Clocks
//
// Nothing here reads a clock. Durations computed from byte counts are audio
// time at the declared sample rate, not wall time.
package protocol

//go:generate go run ./internal/gen/protogen
