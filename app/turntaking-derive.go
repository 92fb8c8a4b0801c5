package app

import (
	"fmt"

	"github.com/duplexscope/duplexscope/metrics"
	"github.com/duplexscope/duplexscope/report"
	"github.com/duplexscope/duplexscope/trace"
	"github.com/duplexscope/duplexscope/turntaking"
)

// derivedRule documents how the page derives cases for unlabelled input
// (mic, dropped WAV): there are no labels, so only what the input itself
// shows is scored.
const derivedRule = "energy VAD on both channels: 20 ms frames, speech when frame RMS ≥ −40 dBFS, gaps < 200 ms joined, segments < 100 ms dropped; " +
	"takeover = first model segment starting in [anchor, anchor+3 s) that is not a backchannel (< 1 s; no word count on the page); " +
	"derived cases (no labels): each interruption probe is an interruption anchored at its onset; each user speech end followed by ≥ 3 s without user speech (within the recording) is a turn end"

// derivedCases builds the unlabelled cases on the trace clock: probes
// (onset ms) are interruptions; a user speech end followed by at least
// the window of no user speech before endMs (the last trace event) is a
// turn end. A speech end closer than the window to endMs is left out: we
// cannot tell yet whether the user paused or finished.
func derivedCases(user []turntaking.Interval, probeOnsets []float64, endMs float64) []turntaking.Case {
	w := float64(turntaking.DefaultWindowMs)
	var cases []turntaking.Case
	for i, iv := range user {
		next := endMs
		if i+1 < len(user) {
			next = user[i+1].StartMs
		}
		if next-iv.EndMs >= w {
			cases = append(cases, turntaking.Case{ID: fmt.Sprintf("turn_end_%d", len(cases)+1), Category: turntaking.TurnEnd, AnchorMs: iv.EndMs, WindowMs: w})
		}
	}
	for i, on := range probeOnsets {
		cases = append(cases, turntaking.Case{ID: fmt.Sprintf("probe_%d", i+1), Category: turntaking.Interruption, AnchorMs: on, WindowMs: w})
	}
	return cases
}

// derivedTurnTaking scores a finished page run with derived cases; nil
// when the run sent no input or yields no case. Cost: one VAD pass over
// both channels of the trace (decoding its base64 audio), done once at
// save time.
func derivedTurnTaking(tr *trace.Session, probeOnsets []float64, sid string) *report.TurnTaking {
	if tr == nil || len(tr.Events) == 0 {
		return nil
	}
	user, model := turntaking.Channels(*tr, nil)
	cases := derivedCases(user, probeOnsets, tr.Events[len(tr.Events)-1].TMs)
	if len(cases) == 0 {
		return nil
	}
	results, cards := turntaking.Score(cases, turntaking.SpeechFromIntervals(model))
	out := &report.TurnTaking{Rule: derivedRule, Clock: turntaking.ClockTrace, Scores: cards}
	for i, r := range results {
		src := "vad" // turn end: a detected user speech end
		if r.Category == turntaking.Interruption {
			src = "label" // probe: the known injection onset
		}
		out.Cases = append(out.Cases, report.TurnTakingCase{SessionID: sid, ID: r.ID, Category: string(r.Category),
			AnchorMs: metrics.Round(cases[i].AnchorMs, 3), WindowMs: cases[i].WindowMs, AnchorSource: src,
			TookTurn: r.TookTurn, OnsetMs: r.OnsetMs, LatencyMs: r.LatencyMs})
	}
	return out
}

// ttEveryMs throttles the live recompute: each pass re-decodes the whole
// trace (O(session length)), so it runs at most every 2 s, off the send
// loop, and once more when the run ends.
const ttEveryMs = 2000

// probeOnsets are the send instants of the interruption probes sent so far.
func (r *liveRun) probeOnsets() []float64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []float64
	for _, p := range r.probes {
		if on, ok := p.interruptionOnset(); ok {
			out = append(out, on)
		}
	}
	return out
}

// maybeScoreTT starts a background recompute when due (r.mu not held).
func (r *liveRun) maybeScoreTT(now float64) {
	r.mu.Lock()
	if r.ttBusy || now-r.ttAtMs < ttEveryMs || r.sess == nil {
		r.mu.Unlock()
		return
	}
	r.ttBusy, r.ttAtMs = true, now
	s := r.sess
	r.mu.Unlock()
	go func() {
		tt := derivedTurnTaking(s.Trace(), r.probeOnsets(), "")
		r.mu.Lock()
		if r.final == nil { // the end-of-run score wins
			r.tt = tt
		}
		r.ttBusy = false
		r.mu.Unlock()
	}()
}
