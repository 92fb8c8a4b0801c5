//go:build !js

package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	"github.com/duplexscope/duplexscope/dataset"
	"github.com/duplexscope/duplexscope/metrics/turntaking"
	"github.com/duplexscope/duplexscope/report"
	"github.com/duplexscope/duplexscope/session/probe"
	"github.com/duplexscope/duplexscope/trace"
)

// ttCollector gathers the turn-taking cases of a run's wire logs.
type ttCollector struct {
	cases []report.TurnTakingCase
	errs  []string
}

// add scores the labelled cases of sample s (none: nothing) against its
// wire log t.
func (c *ttCollector) add(s dataset.Sample, sessionID string, t *trace.Session) {
	labels, err := turntaking.ParseLabels(s.Record)
	if err != nil {
		c.errs = append(c.errs, fmt.Sprintf("%s/%s: %v", s.Split, s.SampleID, err))
		return
	}
	if len(labels) == 0 {
		return
	}
	sc, ok := turntaking.ScoreTrace(*t, labels, nil)
	if !ok {
		return
	}
	clip := report.CaseClip{SampleID: s.SampleID, Split: s.Split} // one clip per session: labels on its own clock
	c.cases = append(c.cases, report.LabelledCases(sc, sessionID, func(int) report.CaseClip { return clip })...)
}

// report returns the report field, nil when no sample had labels.
func (c *ttCollector) report() *report.TurnTaking {
	return report.NewTurnTaking(turntaking.Rule, c.cases)
}

// printTurnTaking prints one line per category card (with denominators).
func printTurnTaking(w io.Writer, tt *report.TurnTaking) {
	if tt == nil {
		return
	}
	for _, s := range tt.Scores {
		lat := "–"
		if s.LatencyMeanMs != nil {
			lat = strconv.FormatFloat(*s.LatencyMeanMs, 'f', 1, 64) + " ms"
		}
		fmt.Fprintf(w, "turn-taking %-12s TOR %d/%d (%s)  latency %s over %d takeover cases (client trace clock)\n",
			s.Category, s.Takeovers, s.Cases, report.BetterWay(s), lat, s.LatencyCount)
	}
}

// turnTakingJSON is the result.json member, "" when none.
func turnTakingJSON(tt *report.TurnTaking) []byte {
	if tt == nil {
		return nil
	}
	b, err := json.Marshal(tt)
	if err != nil {
		return nil
	}
	return b
}

// probeReport converts probe results to the report's field.
func probeReport(rs []probe.Result) []report.Probe {
	out := make([]report.Probe, 0, len(rs))
	for _, r := range rs {
		out = append(out, report.Probe{
			SampleID: r.SampleID, Split: r.Split, SessionID: r.SessionID, Kind: r.Kind, Clip: r.Clip, OffsetS: r.OffsetS,
			OnsetMs: r.OnsetMs, ActiveResponseID: r.ActiveResponseID, StoppedBy: r.StoppedBy, StopLatencyMs: r.StopLatencyMs,
			PlayedMs: r.PlayedMs, CommittedMs: r.CommittedMs, ReceivedMs: r.ReceivedMs, ResumeAfterMs: r.ResumeAfterMs,
			NextResponseMs: r.NextResponseMs, Clock: r.Clock,
		})
	}
	return out
}
