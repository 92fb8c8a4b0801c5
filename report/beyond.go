package report

import (
	"fmt"

	"github.com/duplexscope/duplexscope/turntaking"
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
// the fields of session.ProbeResult.
type Probe struct {
	SampleID         string   `json:"sample_id,omitempty"`
	Split            string   `json:"split,omitempty"`
	SessionID        string   `json:"session_id,omitempty"`
	Kind             string   `json:"kind"`
	Clip             string   `json:"clip"`
	OffsetS          float64  `json:"offset_s"`
	OnsetMs          float64  `json:"onset_ms"`
	ActiveResponseID string   `json:"active_response_id,omitempty"`
	StoppedBy        string   `json:"stopped_by,omitempty"` // cleared | ended | ""
	StopLatencyMs    *float64 `json:"stop_latency_ms,omitempty"`
	PlayedMs         *int     `json:"played_ms,omitempty"`
	CommittedMs      *int     `json:"committed_ms,omitempty"`
	ReceivedMs       *float64 `json:"received_ms,omitempty"`
	ResumeAfterMs    *float64 `json:"resume_after_ms,omitempty"`
	NextResponseMs   *float64 `json:"next_response_ms,omitempty"`
	Clock            string   `json:"clock"`
}

// LoadCurve is a `duplexscope run --load-curve` result: one entry per
// concurrency level.
type LoadCurve struct {
	Clock  string      `json:"clock"`
	Levels []LoadLevel `json:"levels"`
}

// LoadLevel is one level of a load curve: N concurrent paced sessions plus
// one that joins 1 s later (join_ttfp_ms).
type LoadLevel struct {
	Sessions       int      `json:"sessions"`
	Failed         int      `json:"failed"`
	Responses      int      `json:"responses"`
	TTFPP50Ms      *float64 `json:"ttfp_p50_ms"`
	TTFPP99Ms      *float64 `json:"ttfp_p99_ms"`
	TTFPOrigin     string   `json:"ttfp_origin"`
	RTFP50         *float64 `json:"rtf_p50"`
	PacingLagP99Ms float64  `json:"pacing_lag_p99_ms"`
	PacingLagMaxMs float64  `json:"pacing_lag_max_ms"`
	Underruns      int      `json:"underruns"`
	JoinTTFPMs     *float64 `json:"join_ttfp_ms"` // first response of the session that joined 1 s later
	JoinTTFPOrigin string   `json:"join_ttfp_origin,omitempty"`
	WallSeconds    float64  `json:"wall_s"`
	// CPUSecondsPerSession is the runner process's CPU time over the level
	// divided by its sessions; PeakHeapMiB the largest in-use heap sampled.
	CPUSecondsPerSession float64  `json:"cpu_s_per_session"`
	PeakHeapMiB          float64  `json:"peak_heap_mib"`
	FailureMessages      []string `json:"failures,omitempty"`
}

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
		c.enum(p+".stopped_by", pr.StoppedBy, "", "cleared", "ended")
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
	}
}

// mergeBeyond pools a shard's turn-taking cases (cards recomputed from the
// pooled cases: never averaged averages) and probes into out; the first
// shard's load curve is kept.
func mergeBeyond(out, s *Report) {
	out.Probes = append(out.Probes, s.Probes...)
	if out.LoadCurve == nil {
		out.LoadCurve = s.LoadCurve
	}
	if s.TurnTaking == nil {
		return
	}
	if out.TurnTaking == nil {
		out.TurnTaking = &TurnTaking{Rule: s.TurnTaking.Rule, Clock: s.TurnTaking.Clock}
	}
	out.TurnTaking.Cases = append(out.TurnTaking.Cases, s.TurnTaking.Cases...)
	out.TurnTaking.Scores = turntaking.Cards(caseResults(out.TurnTaking.Cases))
}
