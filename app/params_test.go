package app

import (
	"net/url"
	"testing"

	"github.com/google/go-cmp/cmp"
)

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
				Profile: "personaplex", Proxy: true, Autostart: true, DurationS: 12.5, View: "live"}, 0},
		{"bad values keep defaults", "frame_ms=-3&duration_s=x&source=camera", def, 3},
		{"behaviours", "source=dataset%3Aturntaking&behavior=interrupts_pauses%2C+holds_floor%2C",
			func() Settings {
				s := def
				s.Source, s.Behavior = "dataset:turntaking", "interrupts_pauses,holds_floor"
				return s
			}(), 0},
		{"unknown behaviour keeps the default", "behavior=yields,talks_backwards", def, 1},
		{"empty dataset name", "source=dataset:", def, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			q, err := url.ParseQuery(tc.query)
			if err != nil {
				t.Fatal(err)
			}
			got, errs := ParseSettings(q, def)
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
	s := Settings{URL: "ws://a/v1/realtime", Model: "m", Source: "dataset:builtin", FrameMs: 1000, Profile: "p", Behavior: "yields,slow_takeover", Proxy: true, DurationS: 3, View: "live",
		Transport: "coder", ProbeS: []float64{4, 12.5}}
	got, errs := ParseSettings(s.Query(), DefaultSettings("x", false))
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	if diff := cmp.Diff(s, got); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
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
		{"proxy", Settings{URL: "ws://gpu.example:8000/v1/realtime", Proxy: true}, "ws://page:1/proxy?target=ws%3A%2F%2Fgpu.example%3A8000%2Fv1%2Frealtime", false},
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

func TestParseProbeOffsets(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    []float64
		wantErr bool
	}{
		{"4", []float64{4}, false},
		{"1.5, 8,", []float64{1.5, 8}, false},
		{"x", nil, true},
		{"-1", nil, true},
	}
	for _, tc := range tests {
		got, err := parseProbeOffsets(tc.in)
		if (err != nil) != tc.wantErr {
			t.Errorf("%q: err %v", tc.in, err)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%q (-want +got)\n%s", tc.in, diff)
		}
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
