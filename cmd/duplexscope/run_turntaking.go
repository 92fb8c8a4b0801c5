//go:build !js

package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"runtime"
	"strconv"
	"time"

	"github.com/duplexscope/duplexscope/dataset"
	"github.com/duplexscope/duplexscope/metrics"
	"github.com/duplexscope/duplexscope/report"
	"github.com/duplexscope/duplexscope/session"
	"github.com/duplexscope/duplexscope/trace"
	"github.com/duplexscope/duplexscope/turntaking"
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
		better := "higher is better"
		if s.LowerIsBetter {
			better = "lower is better"
		}
		lat := "–"
		if s.LatencyMeanMs != nil {
			lat = strconv.FormatFloat(*s.LatencyMeanMs, 'f', 1, 64) + " ms"
		}
		fmt.Fprintf(w, "turn-taking %-12s TOR %d/%d (%s)  latency %s over %d takeover cases (client trace clock)\n",
			s.Category, s.Takeovers, s.Cases, better, lat, s.LatencyCount)
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
func probeReport(rs []session.ProbeResult) []report.Probe {
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

// loadCurveClock labels the load curve's numbers.
const loadCurveClock = "TTFP: server clock when reported, else client receive clock; pacing lag: client send clock"

// loadCurveReport builds report.json for a --load-curve run: the metrics
// of every load session plus the curve.
func loadCurveReport(o *runOptions, results []metrics.SessionResult, levels []report.LoadLevel, failed int, started time.Time) (*report.Report, error) {
	dm := metrics.BuildReport(results)
	mb, err := dm.MarshalJSON()
	if err != nil {
		return nil, fmt.Errorf("run: metrics: %w", err)
	}
	host, _ := os.Hostname()
	conc := 0
	for _, l := range levels {
		conc = max(conc, l.Sessions+1)
	}
	run := report.Run{
		TargetURL: o.URL, Model: o.Model, FrameMs: o.FrameMs, Version: version, Client: report.ClientCLI,
		Machine:     report.Machine{OS: runtime.GOOS, Arch: runtime.GOARCH, CPUs: runtime.NumCPU(), Hostname: host, GoVersion: runtime.Version()},
		Source:      report.Source{Kind: report.SourceDataset, Dataset: o.Dataset, Split: o.Split},
		Concurrency: conc, RunID: o.RunID,
		StartedAt: started.UTC().Format(time.RFC3339), EndedAt: time.Now().UTC().Format(time.RFC3339),
	}
	if u, err := url.Parse(o.URL); err == nil {
		run.Profile = u.Query().Get("sim_profile")
	}
	rep, err := report.New(run, mb)
	if err != nil {
		return nil, fmt.Errorf("run: report: %w", err)
	}
	rep.LoadCurve = &report.LoadCurve{Clock: loadCurveClock, Levels: levels}
	report.Finish(rep)
	if failed > 0 {
		rep.Complete = false
	}
	return rep, nil
}
