//go:build !js

package sim

import (
	"flag"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Event-name generations (--sim-event-names / sim_event_names).
const (
	EventNamesCurrent = "current"
	EventNamesLegacy  = "legacy"
)

// Options configures a Server. nil means the defaults. Per-session
// websocket query parameters override the corresponding fields.
type Options struct {
	Profile      string  // --sim-profile / sim_profile (default "minicpmo")
	Fault        string  // --sim-fault / sim_fault, comma-separated (default none)
	EventNames   string  // --sim-event-names / sim_event_names: current | legacy
	ScenarioFile string  // --sim-scenario FILE (JSON, see Scenario); used when no profile is named per session
	Seed         int64   // --sim-seed / sim_seed (default 1)
	RTF          float64 // --sim-rtf / sim_rtf; 0 = the scenario's
	Behavior     string  // --sim-behavior / sim_behavior, comma-separated turn-taking knobs
	// VideoFrameMs is the per-frame cost of video_frames (--sim-video-frame-ms /
	// sim_video_frame_ms); nil means DefaultVideoFrameMs.
	VideoFrameMs *float64

	// Scenario, when non-nil, replaces Profile/ScenarioFile as the process scenario.
	Scenario *Scenario
	// Clock is the server-monotonic clock (nil → SystemClock at New).
	Clock Clock
	// KeepSessions is how many sessions' truth is kept (0 → 1000).
	KeepSessions int
	// MaxSessions caps the websocket sessions open at once (--sim-max-sessions;
	// 0 → DefaultMaxSessions); the next is refused with HTTP 503.
	MaxSessions int
}

// Bounds of the simulator's parameters (query, flags and scenario files):
// realistic ranges, so no link can make one session allocate or schedule
// without limit.
const (
	MinRTF        = 0.05   // sim_rtf, --sim-rtf, scenario rtf
	MaxRTF        = 10.0   // (generation 10× slower than real time)
	MaxTTFPMs     = 60000  // sim_ttfp_ms and every TTFP/TTFT draw
	MaxResponseMs = 300000 // sim_response_ms and every response_ms draw: 5 min of audio
	MaxTurns      = 10000  // entries of sim_turns_ms / turns_ms
	MinPacketMs   = 10     // sim_packet_ms and scenario packet_ms: audio per output delta
	MaxPacketMs   = 10000
	MaxInputMs    = 86400000
	// DefaultMaxSessions is --sim-max-sessions' default.
	DefaultMaxSessions = 256
	// MaxIdleTimeout caps session.update's idle_timeout_s (benchmarks ask 900 s).
	MaxIdleTimeout = time.Hour
)

// validate checks the process-level options (flags) that resolve does not.
func (o *Options) validate() error {
	if o.RTF != 0 && !(o.RTF >= MinRTF && o.RTF <= MaxRTF) {
		return fmt.Errorf("sim: --sim-rtf %g: want 0 (the profile's) or a number from %g to %g", o.RTF, MinRTF, MaxRTF)
	}
	if o.MaxSessions < 0 {
		return fmt.Errorf("sim: --sim-max-sessions %d: want a positive number (0 = %d)", o.MaxSessions, DefaultMaxSessions)
	}
	return nil
}

// RegisterFlags registers the simulator flags on fs and returns the Options
// they fill. `serve` and `sim` share these names.
func RegisterFlags(fs *flag.FlagSet) *Options {
	o := &Options{}
	fs.StringVar(&o.Profile, "sim-profile", "", "simulator profile: "+strings.Join(Profiles(), ", ")+" (default "+DefaultProfile+")")
	fs.StringVar(&o.Fault, "sim-fault", "", "simulator fault modes, comma-separated (see `go doc sim`)")
	fs.StringVar(&o.EventNames, "sim-event-names", "", "simulator event names: current or legacy (default current)")
	fs.StringVar(&o.ScenarioFile, "sim-scenario", "", "simulator scenario JSON file (extends a profile via \"base\")")
	fs.Int64Var(&o.Seed, "sim-seed", 1, "simulator random seed")
	fs.Float64Var(&o.RTF, "sim-rtf", 0, "simulator real-time factor of output generation (0 = profile's)")
	fs.StringVar(&o.Behavior, "sim-behavior", "", "simulator turn-taking behaviours, comma-separated (see `go doc sim`)")
	fs.IntVar(&o.MaxSessions, "sim-max-sessions", DefaultMaxSessions, "simulator sessions open at once; more are refused with HTTP 503")
	fs.Func("sim-video-frame-ms", fmt.Sprintf("simulator cost of one video frame, added to the next response's TTFT/TTFP (0…%d, default %d)", MaxVideoFrameMs, DefaultVideoFrameMs), func(v string) error {
		ms, err := parseVideoFrameMs(v)
		o.VideoFrameMs = &ms
		return err
	})
	return o
}

// sessionConfig is one session's resolved behaviour.
type sessionConfig struct {
	sc           Scenario
	faults       faultSet
	behaviors    map[string]bool
	legacy       bool
	seed         int64
	seedFixed    bool // sim_seed given per session: use it as is
	queryModel   string
	videoFrameMs float64 // cost of one video frame (video.go)
}

// baseScenario resolves the process-level scenario.
func (o *Options) baseScenario() (Scenario, error) {
	switch {
	case o.Scenario != nil:
		s := *o.Scenario
		return s, s.Validate()
	case o.ScenarioFile != "" && o.Profile == "":
		return LoadScenario(o.ScenarioFile)
	case o.Profile != "":
		return Profile(o.Profile)
	}
	return Profile(DefaultProfile)
}

// resolve merges process options with one session's query.
func (o *Options) resolve(base Scenario, q url.Values) (*sessionConfig, error) {
	sc := base
	if p := q.Get("sim_profile"); p != "" {
		var err error
		if sc, err = Profile(p); err != nil {
			return nil, err
		}
	}
	cfg := &sessionConfig{sc: sc, seed: o.Seed, queryModel: q.Get("model")}
	if sc.Seed != nil {
		cfg.seed = *sc.Seed
	}
	var err error
	if cfg.faults, err = parseFaults(listSetting(sc.Faults, o.Fault, q, "sim_fault")); err != nil {
		return nil, err
	}
	if cfg.behaviors, err = parseBehaviors(listSetting(sc.Behaviors, o.Behavior, q, "sim_behavior")); err != nil {
		return nil, err
	}
	names := sc.EventNames
	if o.EventNames != "" {
		names = o.EventNames
	}
	if v := q.Get("sim_event_names"); v != "" {
		names = v
	}
	switch names {
	case "", EventNamesCurrent:
	case EventNamesLegacy:
		cfg.legacy = true
	default:
		return nil, fmt.Errorf("sim: sim_event_names %q: want current or legacy", names)
	}
	if err := o.applyOverrides(cfg, q); err != nil {
		return nil, err
	}
	cfg.videoFrameMs = DefaultVideoFrameMs
	if o.VideoFrameMs != nil {
		cfg.videoFrameMs = *o.VideoFrameMs
	}
	if v := q.Get("sim_video_frame_ms"); v != "" {
		if cfg.videoFrameMs, err = parseVideoFrameMs(v); err != nil {
			return nil, err
		}
	}
	applyBehaviors(&cfg.sc, cfg.behaviors)
	return cfg, nil
}

// listSetting is a comma list from the query (when the key is present,
// even empty), else the flag, else the scenario.
func listSetting(scenario []string, flag string, q url.Values, key string) string {
	s := strings.Join(scenario, ",")
	if flag != "" {
		s = flag
	}
	if v, ok := q[key]; ok {
		s = strings.Join(v, ",")
	}
	return s
}

// applyOverrides applies the flag's RTF and the query's fixed timings,
// seed and turn schedule to cfg.
func (o *Options) applyOverrides(cfg *sessionConfig, q url.Values) error {
	if o.RTF > 0 {
		cfg.sc.RTF = o.RTF
	}
	if v := q.Get("sim_rtf"); v != "" {
		r, err := strconv.ParseFloat(v, 64)
		if err != nil || !(r >= MinRTF && r <= MaxRTF) {
			return fmt.Errorf("sim: sim_rtf %q: want a number from %g to %g", v, MinRTF, MaxRTF)
		}
		cfg.sc.RTF = r
	}
	if v := q.Get("sim_seed"); v != "" {
		s, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return fmt.Errorf("sim: sim_seed %q: %w", v, err)
		}
		cfg.seed, cfg.seedFixed = s, true
	}
	if v := q.Get("sim_ttfp_ms"); v != "" {
		ms, err := strconv.ParseFloat(v, 64)
		if err != nil || !(ms >= 0 && ms <= MaxTTFPMs) {
			return fmt.Errorf("sim: sim_ttfp_ms %q: want a number from 0 to %d ms", v, MaxTTFPMs)
		}
		cfg.sc.TTFPMs = Fixed(ms)
	}
	if v := q.Get("sim_response_ms"); v != "" {
		ms, err := strconv.ParseFloat(v, 64)
		if err != nil || !(ms > 0 && ms <= MaxResponseMs) {
			return fmt.Errorf("sim: sim_response_ms %q: want a number above 0 and at most %d ms (%d min)", v, MaxResponseMs, MaxResponseMs/60000)
		}
		cfg.sc.ResponseMs = Fixed(ms)
	}
	if v := q.Get("sim_packet_ms"); v != "" {
		ms, err := strconv.Atoi(v)
		if err != nil || ms < MinPacketMs || ms > MaxPacketMs {
			return fmt.Errorf("sim: sim_packet_ms %q: want whole ms from %d to %d", v, MinPacketMs, MaxPacketMs)
		}
		cfg.sc.PacketMs = ms
	}
	if v := q.Get("sim_turns_ms"); v != "" {
		turns, err := parseTurnsMs(v)
		if err != nil {
			return err
		}
		cfg.sc.TurnsMs = turns
	}
	return nil
}

// parseTurnsMs reads sim_turns_ms: at most MaxTurns comma-separated
// input-clock ms, each 0…MaxInputMs.
func parseTurnsMs(v string) ([]int, error) {
	fields := strings.Split(v, ",")
	if len(fields) > MaxTurns {
		return nil, fmt.Errorf("sim: sim_turns_ms: %d turns, want at most %d", len(fields), MaxTurns)
	}
	var turns []int
	for _, f := range fields {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 0 || n > MaxInputMs {
			return nil, fmt.Errorf("sim: sim_turns_ms %q: want comma-separated input-clock ms (0 to %d)", v, MaxInputMs)
		}
		turns = append(turns, n)
	}
	return turns, nil
}

func applyBehaviors(sc *Scenario, b map[string]bool) {
	if b[BehaviorInterruptsPauses] {
		sc.VAD.SilenceMs = 150
	}
	if b[BehaviorRespondsBackchannels] {
		sc.VAD.MinSpeechMs = 60
	}
	if b[BehaviorYieldsToBargeIn] {
		sc.BargeIn = "truncate"
	}
	if b[BehaviorHoldsFloor] {
		sc.BargeIn = "keep_talking"
	}
}
