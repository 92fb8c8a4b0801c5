package app

import (
	"fmt"
	"strconv"

	"github.com/duplexscope/duplexscope/chart"
	"github.com/duplexscope/duplexscope/metrics/loadcurve"
	"github.com/duplexscope/duplexscope/server/loadrun"
)

// sessDot is one session of the running level, as a dot on the page.
type sessDot struct {
	Level, Index int
	Joiner       bool
	State        string
	Responses    int
}

// loadViewInput is what the load runner hands the view model.
type loadViewInput struct {
	Phase, Status, Error string
	Own                  []loadcurve.Level // this page's finished levels
	Running              *loadcurve.Level  // the level running now (partial)
	Pooled               *loadrun.Status   // the server's pooled view (run_id)
	Sessions             []sessDot
	Share                shareInfo
	RunID                string
	Shards               int
	Watch                bool
	TicksDropped         int
	RunLinks             []string // the other shards' /load links (with cap=)
	WorkerFallback       string   // why the session worker could not start (the sessions run on the main thread)
}

// loadRow is a row of the levels table.
type loadRow struct {
	Sessions, Reported, Responses, P50, P99, Origin, Join, RTF, Lag, Underruns, Failed string
	N                                                                                  int
	Complete                                                                           bool
}

// loadSnapshot is the /load page's state.
type loadSnapshot struct {
	Phase, Status, Error string
	Chart                string // echarts option JSON (chart.LoadCurveOptions)
	Points               int    // levels with a TTFP point
	Source               string // whose sessions the curve holds
	Rows                 []loadRow
	Sessions             []sessDot
	Share                shareInfo
	Warnings             []string
	RunLinks             []string // the other shards' runner links
}

// buildLoadView turns the runner's state into the page's snapshot: the
// pooled curve of every runner when the run is shared (shard=i/n or
// watch=1), else this page's levels plus the running one.
func buildLoadView(in loadViewInput) *loadSnapshot {
	s := &loadSnapshot{Phase: in.Phase, Status: in.Status, Error: in.Error, Sessions: in.Sessions, Share: in.Share, RunLinks: in.RunLinks}
	levels := append([]loadcurve.Level(nil), in.Own...)
	if in.Running != nil {
		levels = append(levels, *in.Running)
	}
	s.Source = "the sessions of this page"
	if in.Pooled != nil && (in.Shards > 1 || in.Watch) {
		levels = in.Pooled.Levels
		s.Source = fmt.Sprintf("the sessions of every runner of run %s (%d of %d heard from, pooled by the server)", in.RunID, len(in.Pooled.Runners), in.Pooled.Shards)
	}
	if b, err := chart.LoadCurveOptions(levels); err == nil && len(levels) > 0 {
		s.Chart = string(b)
	}
	for _, l := range levels {
		if l.TTFPP50Ms != nil {
			s.Points++
		}
		ttfpClock := ""
		if l.TTFPOrigin != "" {
			ttfpClock = l.TTFPOrigin
		}
		s.Rows = append(s.Rows, loadRow{
			N: l.Sessions, Sessions: strconv.Itoa(l.Sessions), Reported: fmt.Sprintf("%d of %d", l.Reported, l.Sessions+1), Complete: l.Complete(),
			Responses: strconv.Itoa(l.Responses), P50: optMs(l.TTFPP50Ms), P99: optMs(l.TTFPP99Ms), Origin: ttfpClock,
			Join: optMs(l.JoinTTFPMs), RTF: optRatio(l.RTFP50), Lag: fmt.Sprintf("%.1f ms", l.PacingLagP99Ms),
			Underruns: strconv.Itoa(l.Underruns), Failed: strconv.Itoa(l.Failed),
		})
	}
	if in.WorkerFallback != "" {
		s.Warnings = append(s.Warnings, "The sessions run on this page's main thread ("+in.WorkerFallback+"): drawing the page can delay their sends and receive stamps.")
	}
	if in.TicksDropped > 0 {
		s.Warnings = append(s.Warnings, fmt.Sprintf("%d frame ticks were dropped because the page was too busy: those frames went out late, and the pacing lag shows it.", in.TicksDropped))
	}
	for _, l := range levels {
		if l.Failed > 0 {
			s.Warnings = append(s.Warnings, fmt.Sprintf("Level %d: %d sessions failed (%s); their numbers are left out.", l.Sessions, l.Failed, firstOr(l.FailureMessages, "no reason given")))
		}
	}
	return s
}

func firstOr(ss []string, def string) string {
	if len(ss) == 0 {
		return def
	}
	return ss[0]
}
