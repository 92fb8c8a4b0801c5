package app

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/duplexscope/duplexscope/session/probe"
)

// Source kinds of a session's input.
const (
	SourceMic     = "mic"
	SourceDataset = "dataset"
)

// Settings are the connect panel's values; URL parameters prefill them so a
// link reproduces a test.
type Settings struct {
	URL       string // websocket base URL (the client adds duplex=1, autostart=0)
	Model     string
	Source    string // "mic" or "dataset:NAME"
	FrameMs   int
	Profile   string // simulator profile / model preset name
	Behavior  string // simulator behaviours, comma list of SimBehaviors, sent as sim_behavior
	Proxy     bool   // route through the server's /proxy?target=
	Autostart bool
	DurationS float64 // 0 = until Stop
	Audible   bool    // play dataset clips locally
	View      string  // initial tab
	// Transport picks the session's browser transport: "browser" (the
	// default: WebSocket wrapped directly, receive stamped in onmessage) or
	// "coder" (coder/websocket, stamped when Read returns) — for the
	// stamping benchmark.
	Transport string
	// Probes are the scheduled probes, in time order: each kind's standard
	// clip is mixed in after OffsetS seconds of sent input
	// (probe_s=4,backchannel@9.5; a bare number is an interruption).
	Probes []probe.At

	// Video is the video source beside the audio: VideoOff (default) or
	// VideoCamera (the latest ~1 fps camera JPEG rides the next append).
	Video string

	// SessionThread is where the page's session (socket, send schedule,
	// receive stamps) runs: SessionThreadWorker (the default, a Web
	// Worker no page work can delay) or SessionThreadMain (the page's main
	// thread, kept as the baseline). Runs with video use the main thread:
	// the worker has no video source.
	SessionThread string
	// StallMs and StallEveryMs are the debug main-thread stall
	// (stall_ms, stall_every_ms): the page busy-loops StallMs ms every
	// StallEveryMs ms while it is open, to show what main-thread load does
	// to the numbers. 0: off.
	StallMs, StallEveryMs int

	// DroppedPCM is a WAV the user dropped on the page, as 16 kHz PCM16
	// (DroppedName its file name); it replaces the mic when set.
	DroppedPCM  []byte
	DroppedName string
}

// Values of Settings.SessionThread (session_thread=).
const (
	SessionThreadWorker = "worker"
	SessionThreadMain   = "main"
)

// Bounds of the debug stall parameters (a stall must leave the page
// some time to run, and a link cannot freeze a tab for long).
const (
	MaxStallMs      = 5000
	MinStallEveryMs = 50
	MaxStallEveryMs = 60000
)

// FrameSizes are the selectable input frame sizes in ms.
var FrameSizes = []int{80, 200, 1000}

// DefaultSettings returns the defaults for a page served from host (as in
// location.host) over https when secure.
func DefaultSettings(host string, secure bool) Settings {
	scheme := "ws"
	if secure {
		scheme = "wss"
	}
	return Settings{
		URL:     scheme + "://" + host + "/v1/realtime",
		Model:   "sim",
		Source:  SourceMic,
		FrameMs: 200,
		View:    "live",

		SessionThread: SessionThreadWorker,
	}
}

// SettingsParams are the URL parameters ParseSettings reads.
var SettingsParams = []string{"url", "model", "source", "frame_ms", "profile", "behavior", "proxy", "autostart", "duration_s", "audible", "view", "probe_s", "video", "transport", "session_thread", "stall_ms", "stall_every_ms"}

// ParseSettings applies the page's URL query to def. Bad values are
// reported, naming the parameter, the value and what is accepted (and the
// default kept), so the page can say what it will not run; UnknownParams
// reports parameter names nobody reads.
func ParseSettings(q url.Values, def Settings) (Settings, []error) {
	s := def
	errs := parseTarget(q, &s, def)
	return s, append(errs, parseRunOptions(q, &s)...)
}

// parseTarget reads what the run talks to and sends: url, model, source,
// frame_ms, profile, behavior, proxy.
func parseTarget(q url.Values, s *Settings, def Settings) []error {
	var errs []error
	if v := q.Get("url"); v != "" {
		s.URL = v
		if _, err := s.TargetURL(); err != nil {
			errs = append(errs, fmt.Errorf("url=%q: want a ws:// or wss:// URL such as ws://HOST:PORT/v1/realtime", v))
			s.URL = def.URL
		}
	}
	if v := q.Get("model"); v != "" {
		s.Model = v
	}
	if v := q.Get("source"); v != "" {
		if name, ok := strings.CutPrefix(v, SourceDataset+":"); v == SourceMic || (ok && validDatasetName(name)) {
			s.Source = v
		} else {
			errs = append(errs, fmt.Errorf("source=%q: want mic or dataset:NAME (bundled: %s)", v, strings.Join(BundledDatasets, ", ")))
		}
	}
	if v := q.Get("frame_ms"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 || n > 10000 {
			errs = append(errs, fmt.Errorf("frame_ms=%q: want a whole number of milliseconds, 1 to 10000 (the form offers %s)", v, frameList()))
		} else {
			s.FrameMs = n
		}
	}
	if v := q.Get("profile"); v != "" {
		if slices.Contains(SimProfiles, v) {
			s.Profile = v
		} else {
			errs = append(errs, fmt.Errorf("profile=%q: unknown simulator profile (have %s)", v, strings.Join(SimProfiles, ", ")))
		}
	}
	if v := q.Get("behavior"); v != "" {
		if b, err := parseBehavior(v); err != nil {
			errs = append(errs, err)
		} else {
			s.Behavior = b
		}
	}
	errs = flagParam(q, "proxy", &s.Proxy, errs)
	return errs
}

// parseRunOptions reads how the run goes: autostart, duration_s, audible,
// view, probe_s, video, transport, session_thread, the debug stall.
func parseRunOptions(q url.Values, s *Settings) []error {
	var errs []error
	errs = flagParam(q, "autostart", &s.Autostart, errs)
	if v := q.Get("duration_s"); v != "" {
		d, err := strconv.ParseFloat(v, 64)
		if err != nil || d < 0 || d != d {
			errs = append(errs, fmt.Errorf("duration_s=%q: want a number of seconds, 0 or more (0: until Stop)", v))
		} else {
			s.DurationS = d
		}
	}
	errs = flagParam(q, "audible", &s.Audible, errs)
	if v := q.Get("view"); v != "" {
		var ids []string
		for _, t := range tabs {
			ids = append(ids, t.ID)
		}
		if slices.Contains(ids, v) {
			s.View = v
		} else {
			errs = append(errs, fmt.Errorf("view=%q: want one of %s", v, strings.Join(ids, ", ")))
		}
	}
	if v := q.Get("probe_s"); v != "" {
		if p, err := probe.ParseSchedule(v); err != nil {
			errs = append(errs, err)
		} else {
			s.Probes = p
		}
	}
	if v := q.Get("video"); v != "" {
		if v == VideoOff || v == VideoCamera {
			s.Video = v
		} else {
			errs = append(errs, fmt.Errorf("video=%q: want camera or off", v))
		}
	}
	if v := q.Get("transport"); v != "" {
		if v == "browser" || v == "coder" {
			s.Transport = v
		} else {
			errs = append(errs, fmt.Errorf("transport=%q: want browser or coder", v))
		}
	}
	if v := q.Get("session_thread"); v != "" {
		if v == SessionThreadWorker || v == SessionThreadMain {
			s.SessionThread = v
		} else {
			errs = append(errs, fmt.Errorf("session_thread=%q: want worker or main", v))
		}
	}
	if ms, every, err := parseStall(q.Get("stall_ms"), q.Get("stall_every_ms")); err != nil {
		errs = append(errs, err...)
	} else if ms > 0 {
		s.StallMs, s.StallEveryMs = ms, every
	}
	return errs
}

// parseStall reads stall_ms and stall_every_ms (both or neither); any bad
// value refuses the stall as a whole (no stall runs).
func parseStall(msV, everyV string) (ms, every int, errs []error) {
	if msV == "" && everyV == "" {
		return 0, 0, nil
	}
	ms, err := strconv.Atoi(msV)
	if msV != "" && (err != nil || ms < 0 || ms > MaxStallMs) {
		errs = append(errs, fmt.Errorf("stall_ms=%q: want a whole number of milliseconds, 0 to %d", msV, MaxStallMs))
	}
	every, err = strconv.Atoi(everyV)
	if everyV != "" && (err != nil || every < MinStallEveryMs || every > MaxStallEveryMs) {
		errs = append(errs, fmt.Errorf("stall_every_ms=%q: want a whole number of milliseconds, %d to %d", everyV, MinStallEveryMs, MaxStallEveryMs))
	}
	switch {
	case len(errs) > 0:
	case msV == "":
		errs = append(errs, fmt.Errorf("stall_every_ms=%q needs stall_ms (the busy time of each stall)", everyV))
	case everyV == "":
		errs = append(errs, fmt.Errorf("stall_ms=%q needs stall_every_ms (how often the stall repeats)", msV))
	case ms >= every:
		errs = append(errs, fmt.Errorf("stall_ms=%q: want less than stall_every_ms=%q (the page must get some time to run)", msV, everyV))
	}
	if len(errs) > 0 {
		return 0, 0, errs
	}
	return ms, every, nil
}

// UnknownParams reports the parameters of q that are not in known (a
// misspelt name would otherwise change nothing, silently), sorted.
func UnknownParams(q url.Values, known ...[]string) []error {
	var names []string
	for k := range q {
		if !slices.ContainsFunc(known, func(l []string) bool { return slices.Contains(l, k) }) {
			names = append(names, k)
		}
	}
	slices.Sort(names)
	var all []string
	for _, l := range known {
		all = append(all, l...)
	}
	var errs []error
	for _, k := range names {
		errs = append(errs, fmt.Errorf("%s=%q: unknown parameter (known: %s)", k, q.Get(k), strings.Join(all, ", ")))
	}
	return errs
}

// flagParam sets *dst from the on/off parameter name when q has it, or
// appends why its value is not one to errs.
func flagParam(q url.Values, name string, dst *bool, errs []error) []error {
	if v := q.Get(name); v != "" {
		b, err := parseFlag(name, v)
		if err != nil {
			return append(errs, err)
		}
		*dst = b
	}
	return errs
}

// parseFlag reads an on/off parameter.
func parseFlag(name, v string) (bool, error) {
	switch v {
	case "1", "true":
		return true, nil
	case "0", "false":
		return false, nil
	}
	return false, fmt.Errorf("%s=%q: want 1 or 0 (true or false)", name, v)
}

// BundledDatasets are the datasets every server has (dataset.Bundled);
// the connect panel offers them by name. Another name is checked against
// the page's server when the page opens.
var BundledDatasets = []string{"builtin", "turntaking", "video"}

// validDatasetName is the name syntax the server's /api/datasets/{name}
// route can serve (one path segment).
func validDatasetName(n string) bool {
	if n == "" || len(n) > 128 {
		return false
	}
	for _, r := range n {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return false
		}
	}
	return n != "." && n != ".."
}

func frameList() string {
	var l []string
	for _, n := range FrameSizes {
		l = append(l, strconv.Itoa(n))
	}
	return strings.Join(l, ", ") + " ms"
}

// Query returns the URL parameters that reproduce s (for the "link to this
// test" button).
func (s Settings) Query() url.Values {
	q := url.Values{}
	q.Set("url", s.URL)
	q.Set("model", s.Model)
	q.Set("source", s.Source)
	q.Set("frame_ms", strconv.Itoa(s.FrameMs))
	if s.Profile != "" {
		q.Set("profile", s.Profile)
	}
	if s.Behavior != "" {
		q.Set("behavior", s.Behavior)
	}
	if s.Proxy {
		q.Set("proxy", "1")
	}
	if s.DurationS > 0 {
		q.Set("duration_s", strconv.FormatFloat(s.DurationS, 'f', -1, 64))
	}
	if s.Audible {
		q.Set("audible", "1")
	}
	if s.Transport != "" {
		q.Set("transport", s.Transport)
	}
	if s.SessionThread != "" {
		q.Set("session_thread", s.SessionThread)
	}
	if s.StallMs > 0 {
		q.Set("stall_ms", strconv.Itoa(s.StallMs))
		q.Set("stall_every_ms", strconv.Itoa(s.StallEveryMs))
	}
	if s.Video == VideoCamera {
		q.Set("video", VideoCamera)
	}
	if len(s.Probes) > 0 {
		q.Set("probe_s", probe.FormatSchedule(s.Probes))
	}
	return q
}

// DatasetName returns NAME of a "dataset:NAME" source ("" for the mic).
func (s Settings) DatasetName() string {
	if name, ok := strings.CutPrefix(s.Source, SourceDataset+":"); ok {
		return name
	}
	return ""
}

// DialURL returns the websocket URL the session dials: the target with the
// simulator profile and behaviours added as sim_profile and sim_behavior
// (ignored by real servers; a value already in the URL wins), through
// the page server's /proxy when s.Proxy is set. pageHost/secure describe the
// page's own origin.
func (s Settings) DialURL(pageHost string, secure bool) (string, error) {
	target, err := s.TargetURL()
	if err != nil || !s.Proxy {
		return target, err
	}
	scheme := "ws"
	if secure {
		scheme = "wss"
	}
	// close_errors=1: a target the proxy cannot reach is reported as a
	// close code and reason (the browser hides an HTTP error answer).
	p := url.URL{Scheme: scheme, Host: pageHost, Path: "/proxy", RawQuery: url.Values{"target": {target}, "close_errors": {"1"}}.Encode()}
	return p.String(), nil
}

// TargetURL is the server URL with the simulator profile and behaviours
// added (sim_profile, sim_behavior; a value already in the URL wins): what
// the session talks to, and what its report names as the target.
func (s Settings) TargetURL() (string, error) {
	u, err := url.Parse(s.URL)
	if err != nil || u.Host == "" {
		return "", fmt.Errorf("server URL %q is not a ws:// or wss:// URL", s.URL)
	}
	switch u.Scheme {
	case "ws", "wss", "http", "https":
	default:
		return "", fmt.Errorf("server URL %q: scheme %q, want ws or wss", s.URL, u.Scheme)
	}
	if s.Profile != "" || s.Behavior != "" {
		q := u.Query()
		if s.Profile != "" && q.Get("sim_profile") == "" {
			q.Set("sim_profile", s.Profile)
		}
		if s.Behavior != "" && q.Get("sim_behavior") == "" {
			q.Set("sim_behavior", s.Behavior)
		}
		u.RawQuery = q.Encode()
	}
	return u.String(), nil
}

// reportTarget is the target a report names: TargetURL, or the URL as
// typed when it does not parse (the run failed to dial anyway).
func (s Settings) reportTarget() string {
	if u, err := s.TargetURL(); err == nil {
		return u
	}
	return s.URL
}

// Preset is a model-profile preset of the connect panel.
type Preset struct {
	Name, Label, Model, Profile string
	FrameMs                     int
}

// Presets are the connect panel's model-profile presets (simulator profiles
// named after the models people test; a real server ignores sim_profile).
var Presets = []Preset{
	{Name: "minicpmo", Label: "MiniCPM-o 4.5-like (keeps talking on barge-in)", Model: "openbmb/MiniCPM-o-4_5", Profile: "minicpmo", FrameMs: 200},
	{Name: "personaplex", Label: "PersonaPlex-like (80 ms ticks, truncates on barge-in)", Model: "personaplex", Profile: "personaplex", FrameMs: 80},
	{Name: "test", Label: "Fast test profile", Model: "sim", Profile: "test", FrameMs: 200},
	{Name: "omni-duplexeval", Label: "Omni-DuplexEval units (1000 ms)", Model: "sim", Profile: "minicpmo", FrameMs: 1000},
}

// SimProfiles are the embedded simulator's profiles (sim.Profiles; a test
// keeps the list equal), the values profile= accepts.
var SimProfiles = []string{"minicpmo", "periodic", "personaplex", "test"}

// SimBehaviors are the embedded simulator's turn-taking behaviours (sim
// package, GET /sim/options), offered by the connect panel. A test keeps
// the list equal to the simulator's; the page does not import sim.
var SimBehaviors = []string{"contended", "holds_floor", "ignores_backchannels", "interrupts_pauses", "responds_backchannels", "slow_takeover", "yields"}

// parseBehavior checks a behavior=NAME[,NAME] value against SimBehaviors
// and returns it without spaces or empty names.
func parseBehavior(v string) (string, error) {
	names := splitList(v)
	for _, f := range names {
		if !slices.Contains(SimBehaviors, f) {
			return "", fmt.Errorf("behavior=%q: unknown simulator behaviour %q (have %s)", v, f, strings.Join(SimBehaviors, ", "))
		}
	}
	return strings.Join(names, ","), nil
}

// TargetsEmbeddedSim reports whether s.URL is the simulator embedded in
// the server at pageHost (where the simulator-only settings apply).
func (s Settings) TargetsEmbeddedSim(pageHost string) bool {
	u, err := url.Parse(s.URL)
	return err == nil && pageHost != "" && u.Host == pageHost && strings.TrimSuffix(u.Path, "/") == "/v1/realtime"
}
