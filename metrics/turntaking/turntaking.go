package turntaking

import (
	"math"
	"slices"
)

// Interval is one speech segment, in milliseconds.
type Interval struct {
	StartMs float64 `json:"start_ms"`
	EndMs   float64 `json:"end_ms"`
}

// DurationMs is EndMs − StartMs.
func (iv Interval) DurationMs() float64 { return iv.EndMs - iv.StartMs }

// VADOptions tunes VAD; nil or zero fields mean the defaults.
type VADOptions struct {
	FrameMs       float64 // frame length, default 20
	ThresholdDBFS float64 // speech when frame RMS ≥ this, default −40
	MinSpeechMs   float64 // drop shorter segments, default 100
	MinSilenceMs  float64 // join segments separated by less, default 200
}

func (o *VADOptions) withDefaults() VADOptions {
	var v VADOptions
	if o != nil {
		v = *o
	}
	if v.FrameMs <= 0 {
		v.FrameMs = 20
	}
	if v.ThresholdDBFS == 0 {
		v.ThresholdDBFS = -40
	}
	if v.MinSpeechMs <= 0 {
		v.MinSpeechMs = 100
	}
	if v.MinSilenceMs <= 0 {
		v.MinSilenceMs = 200
	}
	return v
}

// VAD returns the speech intervals of mono samples (full scale ±1.0) at
// rate Hz by the energy rule in the package doc. A trailing partial frame
// counts as a frame.
func VAD(samples []float32, rate int, opt *VADOptions) []Interval {
	o := opt.withDefaults()
	if rate <= 0 || len(samples) == 0 {
		return nil
	}
	raw := o.frames(nil, 0, len(samples), rate, func(i int) float64 { return float64(samples[i]) })
	return o.dropShort(raw)
}

// frames appends the speech frames of n samples at rate, placed at startMs,
// to raw, joining frames closer than MinSilenceMs.
func (o VADOptions) frames(raw []Interval, startMs float64, n, rate int, sample func(int) float64) []Interval {
	frame := max(1, int(math.Round(o.FrameMs*float64(rate)/1000)))
	thr := math.Pow(10, o.ThresholdDBFS/20)
	for i := 0; i < n; i += frame {
		end := min(i+frame, n)
		var sum float64
		for k := i; k < end; k++ {
			s := sample(k)
			sum += s * s
		}
		if math.Sqrt(sum/float64(end-i)) < thr {
			continue
		}
		iv := Interval{StartMs: startMs + float64(i)*1000/float64(rate), EndMs: startMs + float64(end)*1000/float64(rate)}
		if k := len(raw); k > 0 && iv.StartMs-raw[k-1].EndMs < o.MinSilenceMs {
			raw[k-1].EndMs = max(raw[k-1].EndMs, iv.EndMs)
			continue
		}
		raw = append(raw, iv)
	}
	return raw
}

// dropShort removes segments shorter than MinSpeechMs.
func (o VADOptions) dropShort(raw []Interval) []Interval {
	var out []Interval
	for _, iv := range raw {
		if iv.DurationMs() >= o.MinSpeechMs {
			out = append(out, iv)
		}
	}
	return out
}

// Category is a Full-Duplex-Bench case category.
type Category string

// Case categories.
const (
	Pause        Category = "pause"        // user pauses mid-utterance; lower TOR is better
	Backchannel  Category = "backchannel"  // user backchannels while the model talks; lower is better
	TurnEnd      Category = "turn_end"     // user finishes a turn; higher is better
	Interruption Category = "interruption" // user interrupts the model; higher is better
)

// LowerIsBetter reports whether a lower TOR is better for c.
func (c Category) LowerIsBetter() bool { return c == Pause || c == Backchannel }

// DefaultWindowMs is the case window when Case.WindowMs is 0.
const DefaultWindowMs = 3000

// Backchannel limits: model speech shorter than BackchannelMaxMs, and of at
// most BackchannelMaxWords words where a transcript exists, is a
// backchannel, not a takeover.
const (
	BackchannelMaxMs    = 1000
	BackchannelMaxWords = 3
)

// Case is one labelled moment of a session.
type Case struct {
	ID       string   `json:"id"`
	Category Category `json:"category"`
	AnchorMs float64  `json:"anchor_ms"` // user speech end, or interruption onset
	WindowMs float64  `json:"window_ms"` // 0 = DefaultWindowMs
}

// Speech is one model speech segment; Words < 0 means no transcript.
type Speech struct {
	Interval
	Words int `json:"words"`
}

// IsBackchannel applies the backchannel rule.
func (s Speech) IsBackchannel() bool {
	return s.DurationMs() < BackchannelMaxMs && (s.Words < 0 || s.Words <= BackchannelMaxWords)
}

// CaseResult is the outcome of one case.
type CaseResult struct {
	ID        string   `json:"id"`
	Category  Category `json:"category"`
	TookTurn  bool     `json:"took_turn"`
	OnsetMs   *float64 `json:"onset_ms"`   // model onset that took the turn
	LatencyMs *float64 `json:"latency_ms"` // OnsetMs − AnchorMs
}

// ScoreCase decides whether the model took the turn in c's window: the
// first model segment (by start) starting in [AnchorMs, AnchorMs+window)
// that is not a backchannel.
func ScoreCase(c Case, model []Speech) CaseResult {
	w := c.WindowMs
	if w <= 0 {
		w = DefaultWindowMs
	}
	res := CaseResult{ID: c.ID, Category: c.Category}
	sorted := slices.Clone(model)
	slices.SortStableFunc(sorted, func(a, b Speech) int { return cmpF(a.StartMs, b.StartMs) })
	for _, s := range sorted {
		if s.StartMs < c.AnchorMs || s.StartMs >= c.AnchorMs+w || s.IsBackchannel() {
			continue
		}
		on, lat := s.StartMs, s.StartMs-c.AnchorMs
		res.TookTurn, res.OnsetMs, res.LatencyMs = true, &on, &lat
		break
	}
	return res
}

func cmpF(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// CategoryScore is a category's card: TOR = Takeovers / Cases and the mean
// latency over the LatencyCount takeover cases (nil when none).
type CategoryScore struct {
	Category      Category `json:"category"`
	Cases         int      `json:"cases"`
	Takeovers     int      `json:"takeovers"`
	TOR           *float64 `json:"tor"` // nil when Cases == 0
	LatencyCount  int      `json:"latency_count"`
	LatencyMeanMs *float64 `json:"latency_mean_ms"`
	LowerIsBetter bool     `json:"lower_is_better"`
}

// Score scores every case and summarises per category, in the order
// Pause, Backchannel, TurnEnd, Interruption (categories without cases are
// omitted; unknown categories follow in first-seen order).
func Score(cases []Case, model []Speech) ([]CaseResult, []CategoryScore) {
	results := make([]CaseResult, len(cases))
	for i, c := range cases {
		results[i] = ScoreCase(c, model)
	}
	return results, Cards(results)
}

// SpeechFromIntervals wraps VAD intervals as model speech without
// transcripts (Words = −1).
func SpeechFromIntervals(ivs []Interval) []Speech {
	out := make([]Speech, len(ivs))
	for i, iv := range ivs {
		out[i] = Speech{Interval: iv, Words: -1}
	}
	return out
}

// LastEndBefore returns the end of the last user interval that ends at or
// before tMs (the "user speech end" anchor of a turn-end or pause case),
// and false when there is none.
func LastEndBefore(user []Interval, tMs float64) (float64, bool) {
	best, ok := 0.0, false
	for _, iv := range user {
		if iv.EndMs <= tMs && (!ok || iv.EndMs > best) {
			best, ok = iv.EndMs, true
		}
	}
	return best, ok
}

// FirstStartAfter returns the start of the first user interval starting at
// or after tMs (an interruption onset), and false when there is none.
func FirstStartAfter(user []Interval, tMs float64) (float64, bool) {
	best, ok := 0.0, false
	for _, iv := range user {
		if iv.StartMs >= tMs && (!ok || iv.StartMs < best) {
			best, ok = iv.StartMs, true
		}
	}
	return best, ok
}
