//go:build !js

package sim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"sort"
	"strings"
)

// Scenario is the simulator's behaviour: the JSON schema of --sim-scenario
// files and of the built-in profiles. A file may name a built-in profile in
// "base" and override any subset of keys; absent keys keep the base's value.
type Scenario struct {
	Name        string `json:"name"`
	Base        string `json:"base,omitempty"` // built-in profile a file extends ("" → minicpmo)
	Description string `json:"description,omitempty"`
	Seed        *int64 `json:"seed,omitempty"`

	Model          string   `json:"model,omitempty"`         // model when neither query nor session.update names one
	ChunkPeriodMs  int      `json:"chunk_period_ms"`         // capabilities.chunk_period_ms (1000 MiniCPM-o, 80 PersonaPlex)
	BargeIn        string   `json:"barge_in"`                // "keep_talking" (listen_only) | "truncate" (clear + cancel)
	ListenBeats    bool     `json:"listen_beats"`            // id-less response.listen once per chunk period of idle input
	StageMetrics   string   `json:"stage_metrics,omitempty"` // "auto" (when extra_body.return_stage_metrics) | "always" | "never"
	TextLeadMs     Dist     `json:"text_lead_ms"`            // ttft = ttfp − lead (clamped ≥ 0) when ttft_ms is absent
	TTFTMs         *Dist    `json:"ttft_ms,omitempty"`       // absolute TTFT; when set, text and audio are timed independently
	TTFPMs         Dist     `json:"ttfp_ms"`                 // request start → first audio
	RTF            float64  `json:"rtf"`                     // generation time per audio time between packets (0.8 → 1 s audio every 0.8 s)
	PacketMs       int      `json:"packet_ms"`               // audio per output delta
	ResponseMs     Dist     `json:"response_ms"`             // audio length of a spoken response (rounded to 10 ms)
	TokensPerOut   Dist     `json:"tokens_per_output"`       // stage-0 tokens per engine output (= per audio delta), ≥ 1
	VAD            VAD      `json:"vad"`                     // user-turn detection on the 16 kHz input
	PeriodMs       int      `json:"period_ms,omitempty"`     // also end a turn every N ms of input clock (0 = off)
	TurnsMs        []int    `json:"turns_ms,omitempty"`      // fixed schedule: input-clock ms at which turns end; disables VAD and period
	HandshakeDelay int      `json:"handshake_delay_ms"`      // slow_handshake: session.created delay
	StallMs        int      `json:"stall_ms"`                // stalled_reader: how long reading stops
	Faults         []string `json:"faults,omitempty"`        // default fault set (see doc.go)
	EventNames     string   `json:"event_names,omitempty"`   // "current" | "legacy"
	Behaviors      []string `json:"behaviors,omitempty"`     // turn-taking knobs (see doc.go)
}

// VAD configures the energy-based speech/silence detector.
type VAD struct {
	ThresholdDBFS float64 `json:"threshold_dbfs"` // a 20 ms frame is speech when its RMS ≥ this (dB re full scale)
	MinSpeechMs   int     `json:"min_speech_ms"`  // consecutive speech needed to start a user turn
	SilenceMs     int     `json:"silence_ms"`     // consecutive silence that ends a user turn
	MaxTurnMs     int     `json:"max_turn_ms"`    // a turn longer than this ends anyway (0 = never)
}

// Dist is a distribution of milliseconds (or counts). JSON forms:
// a number (fixed), {"dist":"fixed","value":v}, {"dist":"normal","mean":m,"stddev":s},
// {"dist":"lognormal","median":m,"sigma":s}, {"dist":"uniform","min":a,"max":b},
// {"dist":"quantiles","points":[[q,v],…]} (inverse CDF, linear between points,
// q from 0 to 1). Optional "min"/"max" clamp every draw.
type Dist struct {
	Kind   string       `json:"dist"`
	Value  float64      `json:"value,omitempty"`
	Mean   float64      `json:"mean,omitempty"`
	Stddev float64      `json:"stddev,omitempty"`
	Median float64      `json:"median,omitempty"`
	Sigma  float64      `json:"sigma,omitempty"`
	Min    *float64     `json:"min,omitempty"`
	Max    *float64     `json:"max,omitempty"`
	Points [][2]float64 `json:"points,omitempty"`
}

// Fixed returns a fixed distribution.
func Fixed(v float64) Dist { return Dist{Kind: "fixed", Value: v} }

// UnmarshalJSON accepts a bare number as a fixed distribution and replaces
// (never merges into) the previous value.
func (d *Dist) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] != '{' {
		var v float64
		if err := json.Unmarshal(b, &v); err != nil {
			return fmt.Errorf("distribution: %w", err)
		}
		*d = Fixed(v)
		return nil
	}
	type plain Dist
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*d = Dist(p)
	return d.validate()
}

// maxScenarioDelayMs bounds a scenario's fixed delays (handshake, stall, VAD).
const maxScenarioDelayMs = 120000

func (d Dist) validate() error {
	for _, v := range []float64{d.Value, d.Mean, d.Stddev, d.Median, d.Sigma} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("distribution: parameters must be finite numbers")
		}
	}
	for _, p := range d.Points {
		if math.IsNaN(p[0]) || math.IsNaN(p[1]) || math.IsInf(p[1], 0) {
			return fmt.Errorf("distribution: points must be finite numbers")
		}
	}
	if (d.Min != nil && (math.IsNaN(*d.Min) || math.IsInf(*d.Min, 0))) || (d.Max != nil && (math.IsNaN(*d.Max) || math.IsInf(*d.Max, 0))) {
		return fmt.Errorf("distribution: min and max must be finite numbers")
	}
	switch d.Kind {
	case "fixed", "":
	case "normal":
		if d.Stddev < 0 {
			return fmt.Errorf("normal distribution: negative stddev")
		}
	case "lognormal":
		if d.Median <= 0 || d.Sigma < 0 {
			return fmt.Errorf("lognormal distribution: need median > 0, sigma ≥ 0")
		}
	case "uniform":
		if d.Min == nil || d.Max == nil || *d.Max < *d.Min {
			return fmt.Errorf("uniform distribution: need min ≤ max")
		}
	case "quantiles":
		if len(d.Points) < 2 {
			return fmt.Errorf("quantiles distribution: need ≥ 2 points")
		}
		for i, p := range d.Points {
			if p[0] < 0 || p[0] > 1 || (i > 0 && (p[0] <= d.Points[i-1][0] || p[1] < d.Points[i-1][1])) {
				return fmt.Errorf("quantiles distribution: points must rise in q ∈ [0,1] and value")
			}
		}
		if d.Points[0][0] != 0 || d.Points[len(d.Points)-1][0] != 1 {
			return fmt.Errorf("quantiles distribution: first q must be 0 and last 1")
		}
	default:
		return fmt.Errorf("unknown distribution %q (fixed, normal, lognormal, uniform, quantiles)", d.Kind)
	}
	return nil
}

// Sample draws one value.
func (d Dist) Sample(r *rand.Rand) float64 {
	var v float64
	switch d.Kind {
	case "normal":
		v = d.Mean + d.Stddev*r.NormFloat64()
	case "lognormal":
		v = d.Median * math.Exp(d.Sigma*r.NormFloat64())
	case "uniform":
		v = *d.Min + (*d.Max-*d.Min)*r.Float64()
	case "quantiles":
		v = d.quantile(r.Float64())
	default:
		v = d.Value
	}
	if d.Min != nil && v < *d.Min {
		v = *d.Min
	}
	if d.Max != nil && v > *d.Max {
		v = *d.Max
	}
	return v
}

func (d Dist) quantile(u float64) float64 {
	i := sort.Search(len(d.Points), func(i int) bool { return d.Points[i][0] >= u })
	if i == 0 {
		return d.Points[0][1]
	}
	if i >= len(d.Points) {
		return d.Points[len(d.Points)-1][1]
	}
	a, b := d.Points[i-1], d.Points[i]
	return a[1] + (b[1]-a[1])*(u-a[0])/(b[0]-a[0])
}

func f(v float64) *float64 { return &v }

// Built-in profile names.
const (
	ProfileMiniCPMO    = "minicpmo"
	ProfilePersonaPlex = "personaplex"
	ProfileTest        = "test"
	ProfilePeriodic    = "periodic"
)

// DefaultProfile is the profile of `serve` and `sim` when none is named.
const DefaultProfile = ProfileMiniCPMO

// Profiles returns the built-in profile names, sorted.
func Profiles() []string {
	names := make([]string, 0, len(builtins))
	for n := range builtins {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

var builtins = map[string]func() Scenario{
	ProfileMiniCPMO: minicpmoProfile,
	ProfilePersonaPlex: func() Scenario {
		return Scenario{
			Name:        ProfilePersonaPlex,
			Description: "PersonaPlex-like: 80 ms ticks, barge-in truncates (output_audio_buffer.cleared + cancelled response.done), TTFP median 160 ms",
			Model:       "nvidia/personaplex-7b-v1", ChunkPeriodMs: 80, BargeIn: "truncate", StageMetrics: "auto",
			TextLeadMs: Fixed(0),
			TTFPMs:     Dist{Kind: "lognormal", Median: 160, Sigma: 0.35, Max: f(1500)},
			RTF:        0.9, PacketMs: 80,
			ResponseMs:     Dist{Kind: "normal", Mean: 2000, Stddev: 500, Min: f(600), Max: f(5000)},
			TokensPerOut:   Fixed(1),
			VAD:            VAD{ThresholdDBFS: -40, MinSpeechMs: 80, SilenceMs: 300, MaxTurnMs: 4000},
			HandshakeDelay: 35000, StallMs: 5000,
		}
	},
	ProfileTest: func() Scenario {
		return Scenario{
			Name:        ProfileTest,
			Description: "fast profile for tests: TTFP 30 ms, 400 ms responses at RTF 0.25 in 100 ms packets, 200 ms silence ends a turn",
			Model:       "duplexscope/sim-test", ChunkPeriodMs: 1000, BargeIn: "keep_talking", StageMetrics: "always",
			TextLeadMs: Fixed(10),
			TTFPMs:     Fixed(30),
			RTF:        0.25, PacketMs: 100,
			ResponseMs:     Fixed(400),
			TokensPerOut:   Fixed(3),
			VAD:            VAD{ThresholdDBFS: -40, MinSpeechMs: 60, SilenceMs: 200, MaxTurnMs: 2000},
			HandshakeDelay: 35000, StallMs: 1000,
		}
	},
	ProfilePeriodic: func() Scenario {
		s := minicpmoProfile()
		s.Name = ProfilePeriodic
		s.Description = "MiniCPM-o-like timing, but answers every 3 s of input whatever it contains (silent or muted input too)"
		s.PeriodMs = 3000
		s.VAD.MaxTurnMs = 0
		s.VAD.ThresholdDBFS = 10 // above full scale: never speech, turns come only from the period
		return s
	},
}

// Profile returns a copy of the named built-in profile.
func Profile(name string) (Scenario, error) {
	mk, ok := builtins[name]
	if !ok {
		return Scenario{}, fmt.Errorf("sim: unknown profile %q (have %s)", name, strings.Join(Profiles(), ", "))
	}
	return mk(), nil
}

// LoadScenario reads a scenario file: its "base" profile (default
// minicpmo) overlaid with the file's keys.
func LoadScenario(path string) (Scenario, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Scenario{}, fmt.Errorf("sim: scenario: %w", err)
	}
	s, err := ParseScenario(b)
	if err != nil {
		return Scenario{}, fmt.Errorf("sim: scenario %s: %w", path, err)
	}
	return s, nil
}

// ParseScenario parses scenario JSON (see LoadScenario).
func ParseScenario(b []byte) (Scenario, error) {
	var head struct {
		Base string `json:"base"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return Scenario{}, err
	}
	base := head.Base
	if base == "" {
		base = DefaultProfile
	}
	s, err := Profile(base)
	if err != nil {
		return Scenario{}, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return Scenario{}, err
	}
	s.Base = base
	if s.Name == base {
		s.Name = "file"
	}
	return s, s.Validate()
}

// Validate checks ranges and names.
func (s *Scenario) Validate() error {
	for name, d := range map[string]Dist{"text_lead_ms": s.TextLeadMs, "ttfp_ms": s.TTFPMs, "response_ms": s.ResponseMs, "tokens_per_output": s.TokensPerOut} {
		if err := d.validate(); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	if s.TTFTMs != nil {
		if err := s.TTFTMs.validate(); err != nil {
			return fmt.Errorf("ttft_ms: %w", err)
		}
	}
	for name, v := range map[string]int{"handshake_delay_ms": s.HandshakeDelay, "stall_ms": s.StallMs, "vad.min_speech_ms": s.VAD.MinSpeechMs,
		"vad.silence_ms": s.VAD.SilenceMs, "vad.max_turn_ms": s.VAD.MaxTurnMs} {
		if v < 0 || v > maxScenarioDelayMs {
			return fmt.Errorf("%s must be 0…%d", name, maxScenarioDelayMs)
		}
	}
	if math.IsNaN(s.VAD.ThresholdDBFS) || math.IsInf(s.VAD.ThresholdDBFS, 0) {
		return fmt.Errorf("vad.threshold_dbfs must be a finite number")
	}
	if len(s.TurnsMs) > MaxTurns {
		return fmt.Errorf("turns_ms: at most %d turns", MaxTurns)
	}
	for _, n := range s.TurnsMs {
		if n < 0 || n > MaxInputMs {
			return fmt.Errorf("turns_ms: %d, want 0…%d", n, MaxInputMs)
		}
	}
	switch {
	case s.ChunkPeriodMs < 10 || s.ChunkPeriodMs > 60000:
		return fmt.Errorf("chunk_period_ms must be 10…60000")
	case !(s.RTF >= MinRTF && s.RTF <= MaxRTF):
		return fmt.Errorf("rtf must be %g…%g", MinRTF, MaxRTF)
	case s.PacketMs < MinPacketMs || s.PacketMs > MaxPacketMs:
		return fmt.Errorf("packet_ms must be %d…%d", MinPacketMs, MaxPacketMs)
	case s.PeriodMs < 0 || s.PeriodMs > MaxInputMs:
		return fmt.Errorf("period_ms must be 0…%d", MaxInputMs)
	case s.BargeIn != "keep_talking" && s.BargeIn != "truncate":
		return fmt.Errorf("barge_in must be keep_talking or truncate")
	case s.EventNames != "" && s.EventNames != EventNamesCurrent && s.EventNames != EventNamesLegacy:
		return fmt.Errorf("event_names must be current or legacy")
	case s.StageMetrics != "" && s.StageMetrics != "auto" && s.StageMetrics != "always" && s.StageMetrics != "never":
		return fmt.Errorf("stage_metrics must be auto, always or never")
	}
	if _, err := parseFaults(strings.Join(s.Faults, ",")); err != nil {
		return err
	}
	if _, err := parseBehaviors(strings.Join(s.Behaviors, ",")); err != nil {
		return err
	}
	return nil
}

func minicpmoProfile() Scenario {
	return Scenario{
		Name:        ProfileMiniCPMO,
		Description: "MiniCPM-o 4.5-like: 1000 ms units, listen_only (keeps talking over the user), TTFP p50≈490 ms p99≈970 ms mean≈550 ms (vLLM-Omni OmniInteract figures)",
		Model:       "openbmb/MiniCPM-o-4_5", ChunkPeriodMs: 1000, BargeIn: "keep_talking", ListenBeats: true, StageMetrics: "auto",
		TextLeadMs: Fixed(40),
		// Piecewise-linear inverse CDF: p50 = 490, p99 = 970, mean ≈ 552.
		TTFPMs: Dist{Kind: "quantiles", Points: [][2]float64{{0, 360}, {0.5, 490}, {0.8, 680}, {0.95, 880}, {0.99, 970}, {1, 1100}}},
		RTF:    0.7, PacketMs: 1000,
		ResponseMs:     Dist{Kind: "normal", Mean: 2600, Stddev: 700, Min: f(1000), Max: f(6000)},
		TokensPerOut:   Dist{Kind: "normal", Mean: 10, Stddev: 2, Min: f(1), Max: f(20)},
		VAD:            VAD{ThresholdDBFS: -40, MinSpeechMs: 120, SilenceMs: 500, MaxTurnMs: 4000},
		HandshakeDelay: 35000, StallMs: 5000,
	}
}
