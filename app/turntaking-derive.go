package app

import (
	"fmt"
	"strconv"

	"github.com/duplexscope/duplexscope/metrics"
	"github.com/duplexscope/duplexscope/metrics/turntaking"
	"github.com/duplexscope/duplexscope/report"
	"github.com/duplexscope/duplexscope/trace"
)

// derivedRule documents how the page derives cases for unlabelled input
// (mic, dropped WAV, a dataset without labels): there are no labels, so
// only what the input itself shows is scored.
const derivedRule = turntaking.Rule + "; derived cases (no labels): each interruption probe is an interruption anchored at its onset; " +
	"each user speech end followed by ≥ 3 s without user speech (within the recording) is a turn end"

// labelledRule documents the page's labelled cases (a labelled dataset).
var labelledRule = turntaking.Rule + "; labelled cases: the dataset's clips are streamed as one input, joined with " +
	strconv.Itoa(labelledGapMs/1000) + " s of silence (rounded up so each clip starts on a frame boundary), and each clip's labels are moved by the clip's offset in that stream; " +
	"each interruption probe is a derived interruption case anchored at its onset"

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
	return append(cases, probeCases(probeOnsets)...)
}

// probeCases makes each probe an interruption case anchored at its onset.
func probeCases(onsets []float64) []turntaking.Case {
	var cases []turntaking.Case
	for i, on := range onsets {
		cases = append(cases, turntaking.Case{ID: fmt.Sprintf("probe_%d", i+1), Category: turntaking.Interruption, AnchorMs: on, WindowMs: turntaking.DefaultWindowMs})
	}
	return cases
}

// traceTurnTaking scores a finished run from its wire log (what the saved
// report holds; the events `duplexscope run` would score). Cost: one
// decode of the whole trace and a VAD pass, once at the end.
func traceTurnTaking(wireLog *trace.Session, labels *streamLabels, probeOnsets []float64, sid string) *report.TurnTaking {
	if wireLog == nil || len(wireLog.Events) == 0 {
		return nil
	}
	return pageTurnTaking(turntaking.RecordTrace(*wireLog), labels, probeOnsets, sid, false)
}

// pageTurnTaking scores a page run from both channels of its events. With
// labels (a labelled dataset) the cases are the labelled ones, scored and
// stored exactly as `duplexscope run` does (turntaking.ScoreTrace's rule,
// report.LabelledCases), plus each probe as a derived interruption case;
// without, derived cases only. live keeps only cases whose window has
// closed by the last event: an open window would read "not taken" too
// early. nil when the run sent no input or has no case yet.
func pageTurnTaking(rec *turntaking.Recorder, labels *streamLabels, probeOnsets []float64, sid string, live bool) *report.TurnTaking {
	var ls []turntaking.Label
	if labels != nil {
		ls = labels.Labels
	}
	sc, ok := rec.Score(ls, nil)
	if !ok {
		return nil
	}
	endMs := rec.LastMs()
	closed := func(anchor, window float64) bool { return !live || anchor+window <= endMs }
	var cases []report.TurnTakingCase
	rule, derived := derivedRule, []turntaking.Case(nil)
	if labels != nil {
		rule, derived = labelledRule, probeCases(probeOnsets)
		for i, c := range report.LabelledCases(sc, sid, func(i int) report.CaseClip { return labels.Clips[i] }) {
			if closed(sc.Cases[i].AnchorMs, sc.Cases[i].WindowMs) {
				cases = append(cases, c)
			}
		}
	} else {
		derived = derivedCases(sc.User, probeOnsets, endMs)
	}
	results, _ := turntaking.Score(derived, sc.Model)
	for i, r := range results {
		if !closed(derived[i].AnchorMs, derived[i].WindowMs) {
			continue
		}
		src := "vad" // turn end: a detected user speech end
		if r.Category == turntaking.Interruption {
			src = "label" // probe: the known injection onset
		}
		cases = append(cases, report.TurnTakingCase{SessionID: sid, ID: r.ID, Category: string(r.Category),
			AnchorMs: metrics.Round(derived[i].AnchorMs, 3), WindowMs: derived[i].WindowMs, AnchorSource: src,
			TookTurn: r.TookTurn, OnsetMs: r.OnsetMs, LatencyMs: r.LatencyMs})
	}
	return report.NewTurnTaking(rule, cases)
}

// ttEveryMs throttles the live recompute: events are decoded once as they
// are logged (liveTurns.rec), but each pass still runs VAD over both
// channels (O(session length)) on the page's only thread, so it runs at
// most every 2 s, off the send loop, and once more when the run ends.
const ttEveryMs = 2000

// probeOnsets are the send instants of the interruption probes sent so far.
func (r *liveRun) probeOnsets() []float64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.probes.interruptionOnsets()
}

// maybeScoreTT starts a background recompute when due (r.mu not held).
func (r *liveRun) maybeScoreTT(now float64) {
	r.mu.Lock()
	connected := r.sess != nil || r.worker != nil
	r.mu.Unlock()
	if !connected {
		return
	}
	if pass := r.turns.due(now); pass != nil {
		go pass(r.probeOnsets)
	}
}
