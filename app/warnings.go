package app

import (
	"fmt"

	"github.com/duplexscope/duplexscope/metrics"
	"github.com/duplexscope/duplexscope/report"
)

// warning is one validity warning shown on the page and stored in the
// report (Code is a report.WarningCodes key).
type warning struct {
	Code, Message string
	Bad           bool // the numbers are unreliable, not just worth a note
}

// warnInput is what the validity checks look at.
type warnInput struct {
	TabHidden     bool
	PacingMaxMs   float64
	FrameMs       int
	InputRate     float64 // input AudioContext rate (resampled to 16 kHz in the worklet)
	OutputRate    float64 // playback AudioContext rate (wanted 24 000)
	Rows          []metrics.Row
	Underruns     int
	Incomplete    bool
	LegacyNames   bool
	FramesDropped int
	FrameTick     string // the session's frame-size warning (append size vs the server's tick)
	// StallMs/StallEveryMs: the debug main-thread stall that was on.
	StallMs, StallEveryMs int
	// WorkerFallback: why the session worker could not start, when the
	// run fell back to the page's main thread.
	WorkerFallback string
}

// computeWarnings returns the validity warnings in a fixed order.
func computeWarnings(in warnInput) []warning {
	var out []warning
	add := func(code string, bad bool, format string, args ...any) {
		out = append(out, warning{Code: code, Bad: bad, Message: fmt.Sprintf(format, args...)})
	}
	if in.StallMs > 0 {
		add(report.WarnMainThreadStall, false, "Debug: the page's main thread was kept busy %d ms every %d ms on purpose (stall_ms, stall_every_ms): the numbers show what main-thread load does, not a normal run.", in.StallMs, in.StallEveryMs)
	}
	if in.WorkerFallback != "" {
		add(report.WarnWorkerUnavailable, false, "The session ran on the page's main thread (%s); drawing the page could delay its sends and receive stamps by tens of ms there.", in.WorkerFallback)
	}
	if in.TabHidden {
		add(report.WarnTabHidden, false, "The tab was hidden during the run. Audio pacing comes from the audio clock, but the browser may have delayed the page's other work.")
	}
	if in.FrameMs > 0 && in.PacingMaxMs > float64(in.FrameMs) {
		add(report.WarnPacingLag, true, "Input frames were sent up to %.0f ms late, more than one %d ms frame: the server heard the input later than real time.", in.PacingMaxMs, in.FrameMs)
	}
	if in.FramesDropped > 0 {
		add(report.WarnPacingLag, true, "%d input frames could not be sent in time and were dropped.", in.FramesDropped)
	}
	if in.OutputRate > 0 && in.OutputRate != 24000 {
		add(report.WarnAudioRateMismatch, false, "The playback audio context runs at %.0f Hz instead of 24 000 Hz; the browser resamples model audio.", in.OutputRate)
	}
	var missing, slow, n int
	for _, r := range in.Rows {
		if r.Raw == nil {
			continue
		}
		n++
		if r.Raw.TTFPClock != metrics.ClockServer || (r.Raw.TTFTMs != nil && r.Raw.TTFTClock != metrics.ClockServer) {
			missing++
		}
		if r.Raw.RTF != nil && *r.Raw.RTF >= 1 {
			slow++
		}
	}
	if slow > 0 {
		add(report.WarnRTF, true, "%d of %d responses were generated slower than real time (RTF ≥ 1): playback will stall.", slow, n)
	}
	if missing > 0 {
		add(report.WarnServerMetricsMissing, false, "%d of %d responses had no server timing (response_request_metrics); their TTFT/TTFP use this browser's receive clock instead.", missing, n)
	}
	if in.Underruns > 0 {
		add(report.WarnPlaybackUnderrun, true, "Playback ran out of audio %d time(s): the listener heard gaps.", in.Underruns)
	}
	if in.LegacyNames {
		add(report.WarnLegacyEventNames, false, "The server sent legacy event names (response.audio.delta); the audio played, but vLLM metrics ignore those events.")
	}
	if in.FrameTick != "" {
		add(report.WarnFrameTick, false, "The %s.", in.FrameTick)
	}
	if in.Incomplete {
		add(report.WarnIncompleteSession, true, "The session ended before it finished; the numbers cover what arrived.")
	}
	return out
}

// reportWarnings converts page warnings for the report.
func reportWarnings(ws []warning, sessionID string) []report.Warning {
	out := make([]report.Warning, 0, len(ws))
	for _, w := range ws {
		out = append(out, report.Warning{Code: w.Code, Message: w.Message, SessionID: sessionID})
	}
	return out
}
