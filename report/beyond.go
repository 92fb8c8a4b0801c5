package report

import (
	"fmt"

	"github.com/duplexscope/duplexscope/metrics"
	"github.com/duplexscope/duplexscope/metrics/loadcurve"
	"github.com/duplexscope/duplexscope/metrics/turntaking"
)

// TurnTaking holds the turn-taking scores of a run over labelled cases
// (Full-Duplex-Bench definitions, package turntaking): per-category cards
// with their denominators and every case's outcome.
type TurnTaking struct {
	// Rule is the speech detection rule (the energy VAD of package turntaking).
	Rule string `json:"rule"`
	// Clock names the clock of every *_ms value (trace ms of each session).
	Clock  string           `json:"clock"`
	Scores []TurnTakingCard `json:"scores"`
	Cases  []TurnTakingCase `json:"cases"`
}

// TurnTakingCard is one category's card: TOR = takeovers / cases, latency
// mean over the latency_count takeover cases (null when none).
type TurnTakingCard = turntaking.CategoryScore

// BetterWay says in words which way a card's TOR is better.
func BetterWay(c TurnTakingCard) string {
	if c.LowerIsBetter {
		return "lower is better"
	}
	return "higher is better"
}

// TurnTakingCase is one labelled case of one session.
type TurnTakingCase struct {
	SampleID      string   `json:"sample_id"`
	Split         string   `json:"split"`
	SessionID     string   `json:"session_id,omitempty"`
	ID            string   `json:"id"`
	Category      string   `json:"category"`
	LabelAnchorMs float64  `json:"label_anchor_ms"` // clip clock
	AnchorMs      float64  `json:"anchor_ms"`       // session trace clock
	WindowMs      float64  `json:"window_ms"`
	AnchorSource  string   `json:"anchor_source"` // vad | label
	TookTurn      bool     `json:"took_turn"`
	OnsetMs       *float64 `json:"onset_ms"`   // model onset that took the turn (trace clock)
	LatencyMs     *float64 `json:"latency_ms"` // onset − anchor
}

// Probe is one barge-in / overlap probe result (`duplexscope run --probe`):
// the fields of probe.Result.
type Probe struct {
	SampleID         string   `json:"sample_id,omitempty"`
	Split            string   `json:"split,omitempty"`
	SessionID        string   `json:"session_id,omitempty"`
	Kind             string   `json:"kind"`
	Clip             string   `json:"clip"`
	OffsetS          float64  `json:"offset_s"`
	OnsetMs          float64  `json:"onset_ms"`
	ActiveResponseID string   `json:"active_response_id,omitempty"`
	StoppedBy        string   `json:"stopped_by,omitempty"` // cleared | ended | later_probe | ""
	StopLatencyMs    *float64 `json:"stop_latency_ms,omitempty"`
	PlayedMs         *int     `json:"played_ms,omitempty"`
	CommittedMs      *int     `json:"committed_ms,omitempty"`
	ReceivedMs       *float64 `json:"received_ms,omitempty"`
	ResumeAfterMs    *float64 `json:"resume_after_ms,omitempty"`
	NextResponseMs   *float64 `json:"next_response_ms,omitempty"`
	Clock            string   `json:"clock"`
}

// LoadCurve is a load-curve result (`duplexscope run --load-curve`, the
// /load page, or several runners of one run id): one entry per
// concurrency level, recomputed from the pooled Sessions when present.
type LoadCurve struct {
	Clock string `json:"clock"`
	// Requested are the levels asked for, in run order (absent in older reports).
	Requested []int       `json:"requested,omitempty"`
	Levels    []LoadLevel `json:"levels"`
	// Sessions are what each session measured; shards pool them.
	Sessions []LoadSession `json:"sessions,omitempty"`
}

// LoadLevel is one level of a load curve (package loadcurve).
type LoadLevel = loadcurve.Level

// LoadSession is one session of a load curve (package loadcurve).
type LoadSession = loadcurve.Session

var categories = []string{string(turntaking.Pause), string(turntaking.Backchannel), string(turntaking.TurnEnd), string(turntaking.Interruption)}

// beyond validates the optional turn-taking, probe and load-curve fields.
func (c *checker) beyond(r *Report) {
	if tt := r.TurnTaking; tt != nil {
		c.str("turn_taking.rule", tt.Rule, 1024, false)
		c.str("turn_taking.clock", tt.Clock, 1024, false)
		for i, s := range tt.Scores {
			p := fmt.Sprintf("turn_taking.scores[%d]", i)
			c.enum(p+".category", string(s.Category), categories...)
			if s.Cases < 0 || s.Takeovers < 0 || s.Takeovers > s.Cases || s.LatencyCount < 0 || s.LatencyCount > s.Takeovers {
				c.add(p, "need 0 ≤ latency_count ≤ takeovers ≤ cases")
			}
			c.num(p+".tor", s.TOR, true)
			c.num(p+".latency_mean_ms", s.LatencyMeanMs, false)
		}
		for i, k := range tt.Cases {
			p := fmt.Sprintf("turn_taking.cases[%d]", i)
			c.enum(p+".category", k.Category, categories...)
			c.enum(p+".anchor_source", k.AnchorSource, "vad", "label")
			for _, f := range []struct {
				n string
				v string
			}{{"sample_id", k.SampleID}, {"split", k.Split}, {"session_id", k.SessionID}, {"id", k.ID}} {
				c.str(p+"."+f.n, f.v, 256, false)
			}
			c.num(p+".onset_ms", k.OnsetMs, false)
			c.num(p+".latency_ms", k.LatencyMs, false)
		}
	}
	for i, pr := range r.Probes {
		p := fmt.Sprintf("probes[%d]", i)
		c.str(p+".kind", pr.Kind, 64, true)
		c.str(p+".clip", pr.Clip, 1024, false)
		c.enum(p+".stopped_by", pr.StoppedBy, "", "cleared", "ended", "later_probe")
		c.num(p+".stop_latency_ms", pr.StopLatencyMs, false)
		c.num(p+".received_ms", pr.ReceivedMs, true)
		c.num(p+".resume_after_ms", pr.ResumeAfterMs, false)
		c.num(p+".next_response_ms", pr.NextResponseMs, false)
	}
	if lc := r.LoadCurve; lc != nil {
		c.str("load_curve.clock", lc.Clock, 1024, false)
		for i, l := range lc.Levels {
			p := fmt.Sprintf("load_curve.levels[%d]", i)
			if l.Sessions < 0 || l.Failed < 0 || l.Responses < 0 || l.Underruns < 0 {
				c.add(p, "negative count")
			}
			c.num(p+".ttfp_p50_ms", l.TTFPP50Ms, false)
			c.num(p+".ttfp_p99_ms", l.TTFPP99Ms, false)
			c.num(p+".rtf_p50", l.RTFP50, true)
			c.num(p+".join_ttfp_ms", l.JoinTTFPMs, false)
		}
		for i, ls := range lc.Sessions {
			p := fmt.Sprintf("load_curve.sessions[%d]", i)
			if ls.Level < 1 || ls.Level > loadcurve.MaxLevel || ls.Index < 0 || ls.Index > ls.Level || ls.Underruns < 0 {
				c.add(p, "need 1 ≤ level ≤ 4096, 0 ≤ index ≤ level, underruns ≥ 0")
			}
			c.str(p+".runner", ls.Runner, 256, false)
			c.str(p+".session_id", ls.SessionID, 256, false)
			c.str(p+".error", ls.Error, 4096, false)
			for j, r := range ls.Responses {
				q := fmt.Sprintf("%s.responses[%d]", p, j)
				c.enum(q+".ttfp_clock", r.TTFPClock, "server", "client_receive")
				c.num(q+".rtf", r.RTF, true)
			}
		}
	}
}

// mergeBeyond pools a shard's turn-taking cases (cards recomputed from the
// pooled cases: never averaged averages), probes and load-curve sessions
// into out.
func mergeBeyond(out, s *Report) {
	out.Probes = append(out.Probes, s.Probes...)
	mergeLoadCurve(out, s.LoadCurve)
	if s.TurnTaking == nil {
		return
	}
	if out.TurnTaking == nil {
		out.TurnTaking = &TurnTaking{Rule: s.TurnTaking.Rule, Clock: s.TurnTaking.Clock}
	}
	out.TurnTaking.Cases = append(out.TurnTaking.Cases, s.TurnTaking.Cases...)
	out.TurnTaking.Scores = turntaking.Cards(caseResults(out.TurnTaking.Cases))
}

// mergeLoadCurve pools lc's sessions into out's curve and recomputes its
// levels from them: the curve of several runners is the curve of all their
// sessions. Runner resources pool as the slowest wall time, the largest
// heap and the session-weighted CPU per session. Curves without sessions
// (older reports) cannot be pooled: the first one is kept.
func mergeLoadCurve(out *Report, lc *LoadCurve) {
	if lc == nil {
		return
	}
	if out.LoadCurve == nil {
		cp := *lc
		cp.Levels = append([]LoadLevel(nil), lc.Levels...)
		cp.Sessions = append([]LoadSession(nil), lc.Sessions...)
		out.LoadCurve = &cp
		return
	}
	o := out.LoadCurve
	if len(o.Sessions) == 0 || len(lc.Sessions) == 0 {
		return
	}
	prev := map[int]LoadLevel{}
	for _, l := range o.Levels {
		prev[l.Sessions] = l
	}
	o.Sessions = append(o.Sessions, lc.Sessions...)
	if len(o.Requested) == 0 {
		o.Requested = lc.Requested
	}
	levels := o.Requested
	if len(levels) == 0 {
		for _, l := range o.Levels {
			levels = append(levels, l.Sessions)
		}
	}
	add := map[int]LoadLevel{}
	for _, l := range lc.Levels {
		add[l.Sessions] = l
	}
	o.Levels = loadcurve.Curve(levels, o.Sessions)
	for i := range o.Levels {
		l := &o.Levels[i]
		a, b := prev[l.Sessions], add[l.Sessions]
		l.WallSeconds = max(a.WallSeconds, b.WallSeconds)
		l.PeakHeapMiB = max(a.PeakHeapMiB, b.PeakHeapMiB)
		if n := a.Reported + b.Reported; n > 0 {
			l.CPUSecondsPerSession = (a.CPUSecondsPerSession*float64(a.Reported) + b.CPUSecondsPerSession*float64(b.Reported)) / float64(n)
		}
	}
}

// NewLoadCurve builds the report of a load curve: the metrics of every
// session it ran plus the curve; incomplete when a session failed.
func NewLoadCurve(run Run, results []metrics.SessionResult, lc *LoadCurve) (*Report, error) {
	for _, l := range lc.Levels {
		run.Concurrency = max(run.Concurrency, l.Sessions+1)
	}
	dm := metrics.BuildReport(results)
	rep, err := FromMetrics(run, dm)
	if err != nil {
		return nil, fmt.Errorf("load curve: %w", err)
	}
	rep.Warnings = append(rep.Warnings, ValueWarnings(dm)...)
	rep.LoadCurve = lc
	Finish(rep)
	for _, s := range lc.Sessions {
		if s.Error != "" {
			rep.Complete = false
		}
	}
	return rep, nil
}
