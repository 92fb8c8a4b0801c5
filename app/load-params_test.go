package app

import (
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/duplexscope/duplexscope/metrics/loadcurve"
	"github.com/duplexscope/duplexscope/server/loadrun"
)

func TestParseLoadSettings(t *testing.T) {
	def := DefaultLoadSettings("h:1", false)
	cases := []struct {
		query   string
		check   func(LoadSettings) bool
		errPart string // "" = no error
	}{
		{"", func(s LoadSettings) bool {
			return reflect.DeepEqual(s.Levels, loadcurve.DefaultLevels) && s.JoinS == 1 && s.Source == "dataset:builtin" && s.RunID == "" && !s.Watch
		}, ""},
		{"levels=1,3&join_s=0.5&profile=test", func(s LoadSettings) bool {
			return reflect.DeepEqual(s.Levels, []int{1, 3}) && s.JoinS == 0.5 && s.Profile == "test"
		}, ""},
		{"run_id=r-1&shard=2/3", func(s LoadSettings) bool { return s.RunID == "r-1" && s.Shard == 2 && s.Shards == 3 }, ""},
		{"run_id=r&watch=1", func(s LoadSettings) bool { return s.Watch }, ""},
		{"levels=1,x", func(s LoadSettings) bool { return reflect.DeepEqual(s.Levels, loadcurve.DefaultLevels) }, "levels="},
		{"levels=", func(s LoadSettings) bool { return reflect.DeepEqual(s.Levels, loadcurve.DefaultLevels) }, ""},
		{"join_s=-1", func(s LoadSettings) bool { return s.JoinS == 1 }, "join_s="},
		{"shard=1/2", func(s LoadSettings) bool { return s.Shards == 0 }, "needs run_id"},
		{"run_id=r&shard=3/2", func(s LoadSettings) bool { return s.Shards == 0 }, "shard"},
		{"run_id=a%20b", func(s LoadSettings) bool { return s.RunID == "" }, "run_id="},
		{"watch=1", func(s LoadSettings) bool { return !s.Watch }, "needs run_id"},
		{"source=mic", func(s LoadSettings) bool { return s.Source == "dataset:builtin" }, "dataset:NAME"},
		{"stall_ms=250&stall_every_ms=1000", func(s LoadSettings) bool { return s.StallMs == 250 && s.StallEveryMs == 1000 }, ""},
		{"stall_ms=250&stall_every_ms=100", func(s LoadSettings) bool { return s.StallMs == 0 && s.StallEveryMs == 0 }, "stall_ms="},
		{"", func(s LoadSettings) bool { return s.SessionThread == SessionThreadWorker }, ""},
		{"session_thread=worker", func(s LoadSettings) bool { return s.SessionThread == SessionThreadWorker }, ""},
		{"session_thread=main", func(s LoadSettings) bool { return s.SessionThread == SessionThreadMain }, ""},
		{"session_thread=gpu", func(s LoadSettings) bool { return s.SessionThread == SessionThreadWorker }, "worker or main"},
	}
	for _, c := range cases {
		q, _ := url.ParseQuery(c.query)
		s, errs := ParseLoadSettings(q, def)
		var msg []string
		for _, e := range errs {
			msg = append(msg, e.Error())
		}
		got := strings.Join(msg, "; ")
		if (c.errPart == "") != (got == "") || (c.errPart != "" && !strings.Contains(got, c.errPart)) {
			t.Errorf("%q: errors %q, want one containing %q", c.query, got, c.errPart)
		}
		if !c.check(s) {
			t.Errorf("%q: settings %+v", c.query, s)
		}
		// The link to the test reproduces the settings.
		back, errs := ParseLoadSettings(s.Query(), def)
		if len(errs) > 0 || !reflect.DeepEqual(back.Levels, s.Levels) || back.JoinS != s.JoinS || back.RunID != s.RunID || back.Shard != s.Shard || back.Watch != s.Watch ||
			back.StallMs != s.StallMs || back.StallEveryMs != s.StallEveryMs || back.SessionThread != s.SessionThread {
			t.Errorf("%q: Query() round trip %+v (%v), want %+v", c.query, back, errs, s)
		}
	}
}

func TestBuildLoadView(t *testing.T) {
	fp := func(v float64) *float64 { return &v }
	own := []loadcurve.Level{{Sessions: 1, Reported: 2, Responses: 2, TTFPP50Ms: fp(300), TTFPP99Ms: fp(320), TTFPOrigin: loadcurve.OriginServer}}
	running := loadcurve.Level{Sessions: 4, Reported: 1, Responses: 1, TTFPP50Ms: fp(410), TTFPP99Ms: fp(410), TTFPOrigin: loadcurve.OriginServer}
	pooled := &loadrun.Status{Shards: 2, Runners: []int{1, 2}, Levels: []loadcurve.Level{
		{Sessions: 1, Reported: 2, Responses: 2, TTFPP50Ms: fp(290)},
		{Sessions: 4, Reported: 5, Responses: 8, TTFPP50Ms: fp(500), Failed: 1, FailureMessages: []string{"handshake timeout"}},
	}}
	cases := []struct {
		name        string
		in          loadViewInput
		rows        string // sessions:reported:complete …
		points      int
		source      string
		warningPart string
	}{
		{"own levels and the running one", loadViewInput{Own: own, Running: &running, Pooled: pooled, Shards: 0},
			"1:2 of 2:true 4:1 of 5:false", 2, "this page", ""},
		{"shared run shows the pool", loadViewInput{Own: own, Running: &running, Pooled: pooled, Shards: 2, RunID: "r"},
			"1:2 of 2:true 4:5 of 5:true", 2, "every runner of run r (2 of 2", "Level 4: 1 sessions failed (handshake timeout)"},
		{"watching", loadViewInput{Pooled: pooled, Watch: true, RunID: "r"}, "1:2 of 2:true 4:5 of 5:true", 2, "every runner", "1 sessions failed"},
		{"dropped ticks", loadViewInput{TicksDropped: 3}, "", 0, "this page", "3 frame ticks were dropped"},
		{"worker fallback", loadViewInput{WorkerFallback: "no Web Workers"}, "", 0, "this page", "main thread (no Web Workers)"},
	}
	for _, c := range cases {
		s := buildLoadView(c.in)
		var rows []string
		for _, r := range s.Rows {
			rows = append(rows, r.Sessions+":"+r.Reported+":"+map[bool]string{true: "true", false: "false"}[r.Complete])
		}
		if got := strings.Join(rows, " "); got != c.rows || s.Points != c.points || !strings.Contains(s.Source, c.source) {
			t.Errorf("%s: rows %q points %d source %q; want %q, %d, %q", c.name, got, s.Points, s.Source, c.rows, c.points, c.source)
		}
		if (s.Chart == "") != (len(c.rows) == 0) {
			t.Errorf("%s: chart %q with %d rows", c.name, s.Chart, len(s.Rows))
		}
		if w := strings.Join(s.Warnings, " "); (c.warningPart == "") != (w == "") || !strings.Contains(w, c.warningPart) {
			t.Errorf("%s: warnings %q, want %q", c.name, w, c.warningPart)
		}
	}
}
