//go:build !js

package sim

import (
	"fmt"
	"sort"
	"strings"
)

// Fault names (--sim-fault / sim_fault, comma-separated). doc.go describes
// what each does and what a client must do.
const (
	FaultNoRequestMetrics      = "no_request_metrics"
	FaultLegacyAudio           = "legacy_audio"
	FaultNoSampleRate          = "no_sample_rate"
	FaultNoAudioDuration       = "no_audio_duration"
	FaultAudioField            = "audio_field"
	FaultFlatError             = "flat_error"
	FaultUnexpectedClose       = "unexpected_close"
	FaultSlowHandshake         = "slow_handshake"
	FaultDroppedEvent          = "dropped_event"
	FaultDroppedDone           = "dropped_done"
	FaultMalformedJSON         = "malformed_json"
	FaultErrorEvent            = "error_event"
	FaultDelayedBurst          = "delayed_burst"
	FaultDisconnectMidResponse = "disconnect_mid_response"
	FaultStalledReader         = "stalled_reader"
	FaultSlowWriter            = "slow_writer"
	FaultReplayedEvents        = "replayed_events"
)

var faultDocs = map[string]string{
	FaultNoRequestMetrics:      "no response_request_metrics anywhere; clients fall back to their receive clock",
	FaultLegacyAudio:           "audio deltas/done use legacy response.audio.* names; clients play them, metrics do not count them",
	FaultNoSampleRate:          "audio deltas omit sample_rate_hz; clients assume 24000",
	FaultNoAudioDuration:       "audio deltas omit metadata.audio_duration_ms; clients count decoded bytes",
	FaultAudioField:            "audio payload in \"audio\" instead of \"delta\"; clients read delta, else audio",
	FaultFlatError:             "errors use the flat shape {\"error\":\"msg\",\"code\":…}; clients parse both shapes",
	FaultUnexpectedClose:       "after the first response.done: session.closed reason server_shutdown, then close 1000; clients fail the session (unexpected close) and keep what arrived",
	FaultSlowHandshake:         "session.created only after handshake_delay_ms (35 s): past the 20–30 s client handshake timeout; clients fail with a handshake timeout",
	FaultDroppedEvent:          "the second audio delta of the first response is never sent; metadata.audio_duration_ms jumps; clients keep going (gap in playback)",
	FaultDroppedDone:           "the first response's response.done is never sent; clients' completion wait times out and flags the session incomplete, naming the open response",
	FaultMalformedJSON:         "one truncated, invalid JSON text frame right after the first response.created; clients skip it, count it and continue",
	FaultErrorEvent:            "an error {server_error, engine_error} after the first response.done; the session continues; benchmark clients fail the session but keep its metrics",
	FaultDelayedBurst:          "every response's audio after the first packet is held back and sent in one burst 1 s (BurstDelay) after the last packet's normal time; client and true RTF rise, server TTFP unchanged",
	FaultDisconnectMidResponse: "the TCP connection is dropped (no close frame, no session.closed) right after the first response's second audio delta; clients flag the session incomplete and keep its metrics",
	FaultStalledReader:         "when the first response starts the server stops reading input for stall_ms (5 s); client sends may block; clients must keep receiving and not deadlock",
	FaultReplayedEvents:        "every event carries server_event_seq; after the first response.done the last 3 frames are sent again with their original seqs; clients drop seq ≤ last accepted (no duplicate response.done)",
	FaultSlowWriter:            "every frame is written in 1 KiB fragments 20 ms apart (~50 KiB/s); deltas arrive late and bunched; clients must not time out mid-frame",
}

// Faults returns every fault name with its one-line description, sorted by name.
func Faults() [][2]string { return sortedDocs(faultDocs) }

func sortedDocs(m map[string]string) [][2]string {
	out := make([][2]string, 0, len(m))
	for k, v := range m {
		out = append(out, [2]string{k, v})
	}
	sort.Slice(out, func(i, j int) bool { return out[i][0] < out[j][0] })
	return out
}

type faultSet map[string]bool

func parseFaults(s string) (faultSet, error) { return parseNames(s, faultDocs, "fault") }

// parseNames reads a comma list of documented names ("none" and blanks
// name nothing).
func parseNames(s string, docs map[string]string, kind string) (map[string]bool, error) {
	set := map[string]bool{}
	for _, name := range strings.Split(s, ",") {
		name = strings.TrimSpace(name)
		if name == "" || name == "none" {
			continue
		}
		if _, ok := docs[name]; !ok {
			return nil, fmt.Errorf("sim: unknown %s %q", kind, name)
		}
		set[name] = true
	}
	return set, nil
}

func (fs faultSet) list() []string {
	out := make([]string, 0, len(fs))
	for k := range fs {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Behaviour knobs for turn-taking tests (issue 11), --sim-behavior / sim_behavior.
const (
	BehaviorInterruptsPauses     = "interrupts_pauses"     // answers after 150 ms of silence: takes the turn at user pauses
	BehaviorIgnoresBackchannels  = "ignores_backchannels"  // user speech shorter than 1 s never gets an answer nor truncates
	BehaviorRespondsBackchannels = "responds_backchannels" // any user speech ≥ 60 ms gets an answer, backchannels too
	BehaviorSlowTakeover         = "slow_takeover"         // +1500 ms on every TTFP/TTFT
	BehaviorYieldsToBargeIn      = "yields"                // truncate on user speech (as barge_in "truncate") and answer after
	BehaviorHoldsFloor           = "holds_floor"           // never truncate (as barge_in "keep_talking")
	BehaviorContended            = "contended"             // +ContendedMsPerSession on TTFT/TTFP per other open session
)

// ContendedMsPerSession is what each other session open on the simulator
// adds to a turn's TTFT and TTFP under the contended behaviour: one GPU
// shared by every session, so a load curve has a known slope.
const ContendedMsPerSession = 40

var behaviorDocs = map[string]string{
	BehaviorInterruptsPauses:     "answers after 150 ms of silence, so it takes the turn at short user pauses",
	BehaviorIgnoresBackchannels:  "user turns shorter than 1 s of speech are never answered; with truncating barge-in, only speech lasting 1 s truncates",
	BehaviorRespondsBackchannels: "every user turn of ≥ 60 ms speech is answered, backchannels included",
	BehaviorSlowTakeover:         "adds 1500 ms to every TTFT and TTFP",
	BehaviorYieldsToBargeIn:      "user speech during a response truncates it (cleared + cancelled), then the turn is answered",
	BehaviorHoldsFloor:           "user speech during a response never truncates it",
	BehaviorContended:            "adds 40 ms to TTFT and TTFP for every other session open on this simulator when the turn starts (a shared GPU: load curves get a known slope)",
}

// Behaviors returns every behaviour knob with its description, sorted.
func Behaviors() [][2]string { return sortedDocs(behaviorDocs) }

func parseBehaviors(s string) (map[string]bool, error) {
	return parseNames(s, behaviorDocs, "behavior")
}
