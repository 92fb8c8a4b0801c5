//go:build !js

package server

import (
	"fmt"

	"github.com/duplexscope/duplexscope/report"
)

// beyondView is the share page's turn-taking / probe / load-curve data
// (issue 11); empty when the report has none.
type beyondView struct {
	TTRule, TTClock string
	TTCards         []ttCardView
	Probes          []probeView
	ProbeClock      string
	LoadClock       string
	Levels          []loadView
}

type ttCardView struct{ Category, TOR, Fraction, Better, Latency string }

type probeView struct{ Session, Kind, Clip, Offset, StoppedBy, Stop, Played, Committed, Received, Resume string }

type loadView struct{ Sessions, Reported, Responses, TTFPP50, TTFPP99, Origin, Join, RTF, Lag, Underruns, Failed string }

func fmtInt(v *int) string {
	if v == nil {
		return "—"
	}
	return fmt.Sprint(*v)
}

func beyondFor(r *report.Report) beyondView {
	var b beyondView
	if tt := r.TurnTaking; tt != nil {
		b.TTRule, b.TTClock = tt.Rule, tt.Clock
		for _, c := range tt.Scores {
			tor := "—"
			if c.TOR != nil {
				tor = fmt.Sprintf("%.2f", *c.TOR)
			}
			b.TTCards = append(b.TTCards, ttCardView{Category: string(c.Category), TOR: tor,
				Fraction: fmt.Sprintf("%d/%d", c.Takeovers, c.Cases), Better: report.BetterWay(c),
				Latency: fmt.Sprintf("%s (n=%d)", fmtMs(c.LatencyMeanMs), c.LatencyCount)})
		}
	}
	for _, p := range r.Probes {
		b.ProbeClock = p.Clock
		b.Probes = append(b.Probes, probeView{Session: p.SampleID, Kind: p.Kind, Clip: p.Clip, Offset: fmt.Sprintf("%.2f s", p.OffsetS),
			StoppedBy: p.StoppedBy, Stop: fmtMs(p.StopLatencyMs), Played: fmtInt(p.PlayedMs), Committed: fmtInt(p.CommittedMs),
			Received: fmtMs(p.ReceivedMs), Resume: fmtMs(p.ResumeAfterMs)})
	}
	if lc := r.LoadCurve; lc != nil {
		b.LoadClock = lc.Clock
		for _, l := range lc.Levels {
			rep := "—" // reports from before sessions were kept
			if l.Reported > 0 {
				rep = fmt.Sprintf("%d of %d", l.Reported, l.Sessions+1)
			}
			b.Levels = append(b.Levels, loadView{Sessions: fmt.Sprint(l.Sessions), Reported: rep, Responses: fmt.Sprint(l.Responses),
				TTFPP50: fmtMs(l.TTFPP50Ms), TTFPP99: fmtMs(l.TTFPP99Ms), Origin: l.TTFPOrigin, Join: fmtMs(l.JoinTTFPMs),
				RTF: fmtRTF(l.RTFP50), Lag: fmtMs(&l.PacingLagP99Ms), Underruns: fmt.Sprint(l.Underruns), Failed: fmt.Sprint(l.Failed)})
		}
	}
	return b
}
