package app

import (
	"net/url"
	"strings"
	"testing"

	"github.com/duplexscope/duplexscope/session/probe"
	"github.com/google/go-cmp/cmp"
)

// parseQuery is ParseSettings of a query string over def.
func parseQuery(t *testing.T, query string, def Settings) (Settings, []error) {
	t.Helper()
	q, err := url.ParseQuery(query)
	if err != nil {
		t.Fatal(err)
	}
	return ParseSettings(q, def)
}

func TestParseSettings(t *testing.T) {
	t.Parallel()
	def := DefaultSettings("127.0.0.1:8080", false)
	tests := []struct {
		name    string
		query   string
		want    Settings
		wantErr int
	}{
		{"defaults", "", def, 0},
		{"all", "url=ws%3A%2F%2Fexample.test%3A9000%2Fv1%2Frealtime&model=openbmb%2FMiniCPM-o-4_5&source=dataset%3Abuiltin&frame_ms=80&profile=personaplex&autostart=1&duration_s=12.5&proxy=1",
			Settings{URL: "ws://example.test:9000/v1/realtime", Model: "openbmb/MiniCPM-o-4_5", Source: "dataset:builtin", FrameMs: 80,
				Profile: "personaplex", Proxy: true, Autostart: true, DurationS: 12.5, View: "live", SessionThread: SessionThreadWorker}, 0},
		{"bad values keep defaults", "frame_ms=-3&duration_s=x&source=camera", def, 3},
		{"behaviours", "source=dataset%3Aturntaking&behavior=interrupts_pauses%2C+holds_floor%2C",
			func() Settings {
				s := def
				s.Source, s.Behavior = "dataset:turntaking", "interrupts_pauses,holds_floor"
				return s
			}(), 0},
		{"unknown behaviour keeps the default", "behavior=yields,talks_backwards", def, 1},
		{"empty dataset name", "source=dataset:", def, 1},
		{"camera", "video=camera&source=dataset%3Avideo", func() Settings {
			s := def
			s.Video, s.Source = VideoCamera, "dataset:video"
			return s
		}(), 0},
		{"video off", "video=off", func() Settings { s := def; s.Video = VideoOff; return s }(), 0},
		{"bad video keeps the default", "video=screen", def, 1},
		{"main thread", "session_thread=main", func() Settings { s := def; s.SessionThread = SessionThreadMain; return s }(), 0},
		{"worker thread is the default", "session_thread=worker", def, 0},
		{"bad session thread keeps the default", "session_thread=both", def, 1},
		{"stall", "stall_ms=250&stall_every_ms=1000", func() Settings { s := def; s.StallMs, s.StallEveryMs = 250, 1000; return s }(), 0},
		{"stall bounds", "stall_ms=5000&stall_every_ms=60000", func() Settings { s := def; s.StallMs, s.StallEveryMs = 5000, 60000; return s }(), 0},
		{"stall off", "stall_ms=0&stall_every_ms=50", def, 0},
		{"stall too long", "stall_ms=5001&stall_every_ms=60000", def, 1},
		{"stall too often", "stall_ms=10&stall_every_ms=49", def, 1},
		{"stall period too long", "stall_ms=10&stall_every_ms=60001", def, 1},
		{"stall not shorter than its period", "stall_ms=1000&stall_every_ms=1000", def, 1},
		{"stall without period", "stall_ms=250", def, 1},
		{"period without stall", "stall_every_ms=1000", def, 1},
		{"both stall values bad", "stall_ms=-1&stall_every_ms=x", def, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, errs := parseQuery(t, tc.query, def)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
			if len(errs) != tc.wantErr {
				t.Errorf("%d errors (%v), want %d", len(errs), errs, tc.wantErr)
			}
		})
	}
}

func TestDefaultSettingsSecure(t *testing.T) {
	t.Parallel()
	if got := DefaultSettings("h:1", true).URL; got != "wss://h:1/v1/realtime" {
		t.Errorf("URL %q", got)
	}
}

func TestSettingsQueryRoundTrip(t *testing.T) {
	t.Parallel()
	s := Settings{URL: "ws://a/v1/realtime", Model: "m", Source: "dataset:builtin", FrameMs: 1000, Profile: "test", Behavior: "yields,slow_takeover", Proxy: true, DurationS: 3, View: "live",
		Transport: "coder", Video: VideoCamera, Probes: []probe.At{{Kind: "interruption", OffsetS: 4}, {Kind: "backchannel", OffsetS: 9.5}, {Kind: "interruption", OffsetS: 12.5}},
		SessionThread: SessionThreadMain, StallMs: 250, StallEveryMs: 1000}
	got, errs := ParseSettings(s.Query(), DefaultSettings("x", false))
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	if diff := cmp.Diff(s, got); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
	// The default thread round-trips too, and a link names it (a link
	// reproduces the test even if the default changes).
	d := DefaultSettings("x", false)
	if q := d.Query(); q.Get("session_thread") != SessionThreadWorker || q.Has("stall_ms") || q.Has("stall_every_ms") {
		t.Errorf("default link %q: want session_thread=worker and no stall", q.Encode())
	}
	if got, errs := ParseSettings(d.Query(), d); len(errs) != 0 || !cmp.Equal(d, got) {
		t.Errorf("default settings round trip: %v %s", errs, cmp.Diff(d, got))
	}
}

func TestDialURL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		s       Settings
		want    string
		wantErr bool
	}{
		{"direct", Settings{URL: "ws://127.0.0.1:8080/v1/realtime"}, "ws://127.0.0.1:8080/v1/realtime", false},
		{"profile", Settings{URL: "ws://h/v1/realtime?x=1", Profile: "test"}, "ws://h/v1/realtime?sim_profile=test&x=1", false},
		{"behaviour", Settings{URL: "ws://h/v1/realtime", Profile: "test", Behavior: "interrupts_pauses,yields"}, "ws://h/v1/realtime?sim_behavior=interrupts_pauses%2Cyields&sim_profile=test", false},
		{"behaviour in the URL wins", Settings{URL: "ws://h/v1/realtime?sim_behavior=holds_floor", Behavior: "yields"}, "ws://h/v1/realtime?sim_behavior=holds_floor", false},
		{"proxy", Settings{URL: "ws://gpu.example:8000/v1/realtime", Proxy: true}, "ws://page:1/proxy?close_errors=1&target=ws%3A%2F%2Fgpu.example%3A8000%2Fv1%2Frealtime", false},
		{"bad scheme", Settings{URL: "ftp://h/"}, "", true},
		{"no host", Settings{URL: "/v1/realtime"}, "", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := tc.s.DialURL("page:1", false)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err %v, wantErr %v", err, tc.wantErr)
			}
			if got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestProbeScheduleParam: a bad probe_s is reported like the other
// parameters (one error naming the entry; no probes scheduled), and a bare
// offset keeps meaning an interruption (old links).
func TestProbeScheduleParam(t *testing.T) {
	t.Parallel()
	def := DefaultSettings("h", false)
	s, errs := ParseSettings(url.Values{"probe_s": {"5,11"}}, def)
	if len(errs) != 0 || !cmp.Equal(s.Probes, []probe.At{{Kind: "interruption", OffsetS: 5}, {Kind: "interruption", OffsetS: 11}}) {
		t.Errorf("probe_s=5,11: %+v %v", s.Probes, errs)
	}
	if q := s.Query().Get("probe_s"); q != "5,11" {
		t.Errorf("link keeps probe_s=%q, want the old form 5,11", q)
	}
	s, errs = ParseSettings(url.Values{"probe_s": {"interruption@5,cough@9"}}, def)
	if len(errs) != 1 || s.Probes != nil || !strings.Contains(errs[0].Error(), `"cough@9"`) {
		t.Errorf("bad entry: probes %+v, errors %v; want one error naming cough@9", s.Probes, errs)
	}
}

func TestTargetsEmbeddedSim(t *testing.T) {
	t.Parallel()
	tests := []struct {
		url  string
		want bool
	}{
		{"ws://127.0.0.1:8080/v1/realtime", true},
		{"ws://127.0.0.1:8080/v1/realtime/?model=x", true},
		{"ws://127.0.0.1:9000/v1/realtime", false},
		{"ws://gpu.example:8080/v1/realtime", false},
		{"ws://127.0.0.1:8080/proxy", false},
		{"::", false},
	}
	for _, tc := range tests {
		if got := (Settings{URL: tc.url}).TargetsEmbeddedSim("127.0.0.1:8080"); got != tc.want {
			t.Errorf("%q: %v, want %v", tc.url, got, tc.want)
		}
	}
}

// TestReportTarget: a report names the simulator knobs it ran with.
func TestReportTarget(t *testing.T) {
	t.Parallel()
	cases := []struct {
		s    Settings
		want string
	}{
		{Settings{URL: "ws://h/v1/realtime", Profile: "test", Behavior: "yields"}, "ws://h/v1/realtime?sim_behavior=yields&sim_profile=test"},
		{Settings{URL: "ws://h/v1/realtime?sim_profile=minicpmo", Profile: "test", Proxy: true}, "ws://h/v1/realtime?sim_profile=minicpmo"},
		{Settings{URL: "wss://gpu:8099"}, "wss://gpu:8099"},
		{Settings{URL: "not a url"}, "not a url"},
	}
	for _, c := range cases {
		if got := c.s.reportTarget(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.s, got, c.want)
		}
	}
}
