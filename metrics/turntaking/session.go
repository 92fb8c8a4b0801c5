package turntaking

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/duplexscope/duplexscope/trace"
)

// Label is one labelled case of a dataset clip, on the clip's own input
// clock (ms from its first sample), as in the "turntaking" member of a
// dataset record: {"turntaking": {"cases": [Label…]}}.
type Label struct {
	ID       string   `json:"id"`
	Category Category `json:"category"`
	OnsetMs  float64  `json:"onset_ms"`  // labelled user speech start
	OffsetMs float64  `json:"offset_ms"` // labelled user speech end
	AnchorMs float64  `json:"anchor_ms"` // window start: OffsetMs, or OnsetMs for an interruption
	WindowMs float64  `json:"window_ms"` // 0 = DefaultWindowMs
}

// ParseLabels reads the labels of a dataset record (the whole manifest
// object). A record without a "turntaking" member has none (nil, nil).
func ParseLabels(record json.RawMessage) ([]Label, error) {
	if len(record) == 0 {
		return nil, nil
	}
	var r struct {
		TurnTaking *struct {
			Cases []Label `json:"cases"`
		} `json:"turntaking"`
	}
	if err := json.Unmarshal(record, &r); err != nil {
		return nil, fmt.Errorf("turntaking labels: %w", err)
	}
	if r.TurnTaking == nil {
		return nil, nil
	}
	for i, l := range r.TurnTaking.Cases {
		switch l.Category {
		case Pause, Backchannel, TurnEnd, Interruption:
		default:
			return nil, fmt.Errorf("turntaking labels: case %d: unknown category %q", i, l.Category)
		}
		if l.AnchorMs < 0 || l.WindowMs < 0 || l.OffsetMs < l.OnsetMs || math.IsNaN(l.AnchorMs) {
			return nil, fmt.Errorf("turntaking labels: case %d (%s): bad times", i, l.ID)
		}
	}
	return r.TurnTaking.Cases, nil
}

// SnapMs is how far (ms) a labelled anchor may move to the user channel's
// detected speech edge: a VAD interval end (start, for an interruption)
// within ±SnapMs of the mapped label replaces it.
const SnapMs = 150

// SessionCase is one case of a recorded session: the outcome plus where
// its window was placed.
type SessionCase struct {
	CaseResult
	LabelAnchorMs float64 `json:"label_anchor_ms"` // clip clock
	AnchorMs      float64 `json:"anchor_ms"`       // trace clock (client send clock of the input media)
	WindowMs      float64 `json:"window_ms"`
	AnchorSource  string  `json:"anchor_source"` // "vad" (snapped to the user channel) | "label"
}

// SessionScores are the turn-taking scores of one recorded session.
type SessionScores struct {
	// Clock names the one clock of every *_ms value below (trace ms).
	Clock string `json:"clock"`
	// OriginMs is the trace time of the clip's first sample (the first
	// input append's send time).
	OriginMs float64         `json:"origin_ms"`
	User     []Interval      `json:"user_speech"`
	Model    []Speech        `json:"model_speech"`
	Cases    []SessionCase   `json:"cases"`
	Scores   []CategoryScore `json:"scores"`
}

// ClockTrace describes the clock of SessionScores.
const ClockTrace = "client monotonic trace ms: user = input media laid from the first append's send time; model = simulated serial playback of received audio (cleared stops it)"

// Rule states, for people reading a stored score, the speech detection and
// takeover rule of ScoreTrace with the default VADOptions.
const Rule = "energy VAD on both channels: 20 ms frames, speech when frame RMS ≥ −40 dBFS, gaps < 200 ms joined, segments < 100 ms dropped; " +
	"takeover = first model segment starting in [anchor, anchor+window) that is not a backchannel (< 1 s and ≤ 3 words where a transcript exists)"

// ScoreTrace scores labelled cases against a recorded session: labels are
// mapped from the clip clock to the trace clock by the first append's
// send time, snapped to the user channel's detected speech edge (SnapMs),
// and judged against the model channel's speech segments (Words from the
// transcripts of the responses heard in each segment, −1 when none had
// one). ok is false when the session sent no input audio.
func ScoreTrace(s trace.Session, labels []Label, opt *VADOptions) (SessionScores, bool) {
	return RecordTrace(s).Score(labels, opt)
}

// Score is ScoreTrace over the events added so far.
func (r *Recorder) Score(labels []Label, opt *VADOptions) (SessionScores, bool) {
	c := r.c
	out := SessionScores{Clock: ClockTrace, OriginMs: c.originMs}
	if !c.hasUser {
		return out, false
	}
	out.User = VADChunks(c.user, opt)
	out.Model = c.speech(opt)
	cases := make([]Case, len(labels))
	out.Cases = make([]SessionCase, len(labels))
	for i, l := range labels {
		anchor, src := c.originMs+l.AnchorMs, "label"
		var edge float64
		var found bool
		if l.Category == Interruption {
			edge, found = nearest(out.User, anchor, true)
		} else {
			edge, found = nearest(out.User, anchor, false)
		}
		if found && math.Abs(edge-anchor) <= SnapMs {
			anchor, src = edge, "vad"
		}
		w := l.WindowMs
		if w <= 0 {
			w = DefaultWindowMs
		}
		cases[i] = Case{ID: l.ID, Category: l.Category, AnchorMs: anchor, WindowMs: w}
		out.Cases[i] = SessionCase{LabelAnchorMs: l.AnchorMs, AnchorMs: anchor, WindowMs: w, AnchorSource: src}
	}
	results, scores := Score(cases, out.Model)
	for i := range results {
		out.Cases[i].CaseResult = results[i]
	}
	out.Scores = scores
	return out, true
}

// nearest returns the interval start (starts) or end closest to t.
func nearest(ivs []Interval, t float64, starts bool) (float64, bool) {
	best, ok := 0.0, false
	for _, iv := range ivs {
		v := iv.EndMs
		if starts {
			v = iv.StartMs
		}
		if !ok || math.Abs(v-t) < math.Abs(best-t) {
			best, ok = v, true
		}
	}
	return best, ok
}

// speech runs VAD on the model channel and attaches word counts.
func (c channels) speech(opt *VADOptions) []Speech {
	ivs := VADChunks(c.model, opt)
	out := SpeechFromIntervals(ivs)
	for i, iv := range ivs {
		seen := map[string]bool{}
		words, any := 0, false
		for k, ch := range c.model {
			end := ch.StartMs + float64(len(ch.PCM)/2)*1000/float64(ch.Rate)
			id := c.modelResp[k]
			if end <= iv.StartMs || ch.StartMs >= iv.EndMs || seen[id] {
				continue
			}
			seen[id] = true
			if t, ok := c.transcript[id]; ok && strings.TrimSpace(t) != "" {
				words += len(strings.Fields(t))
				any = true
			}
		}
		if any {
			out[i].Words = words
		}
	}
	return out
}

// Merge combines the category cards of several sessions (summing cases,
// takeovers and latencies), in the order of Score.
func Merge(sessions []SessionScores) []CategoryScore {
	var all []CaseResult
	for _, s := range sessions {
		for _, c := range s.Cases {
			all = append(all, c.CaseResult)
		}
	}
	return Cards(all)
}

// Cards summarises case results per category exactly as Score does.
func Cards(results []CaseResult) []CategoryScore {
	order := []Category{Pause, Backchannel, TurnEnd, Interruption}
	acc := map[Category]*CategoryScore{}
	sums := map[Category]float64{}
	for _, r := range results {
		cs := acc[r.Category]
		if cs == nil {
			cs = &CategoryScore{Category: r.Category, LowerIsBetter: r.Category.LowerIsBetter()}
			acc[r.Category] = cs
			if !slices.Contains(order, r.Category) {
				order = append(order, r.Category)
			}
		}
		cs.Cases++
		if r.TookTurn && r.LatencyMs != nil {
			cs.Takeovers++
			cs.LatencyCount++
			sums[r.Category] += *r.LatencyMs
		}
	}
	var scores []CategoryScore
	for _, cat := range order {
		cs := acc[cat]
		if cs == nil {
			continue
		}
		tor := float64(cs.Takeovers) / float64(cs.Cases)
		cs.TOR = &tor
		if cs.LatencyCount > 0 {
			m := sums[cat] / float64(cs.LatencyCount)
			cs.LatencyMeanMs = &m
		}
		scores = append(scores, *cs)
	}
	return scores
}
