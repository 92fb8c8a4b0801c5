//go:build !js

package server_test

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/duplexscope/duplexscope/internal/testkit"
	"github.com/duplexscope/duplexscope/report"
	"github.com/duplexscope/duplexscope/server"
)

// TestHistoryTeams: history lists a failed run with its badge, names runs,
// shows client and target badges (this server's simulator vs a real
// server), and gives each row a checkbox of a plain GET form to /compare;
// ?pick= puts the share page's run first as the baseline.
func TestHistoryTeams(t *testing.T) {
	e := newEnv(t, func(c *server.Config) { c.Sim = http.NotFoundHandler() }) // only its presence matters here
	self := strings.TrimPrefix(e.http.URL, "http://")
	ok := upload(t, e, fixture{model: "m", n: 3, ttfp: 300, edit: func(r *report.Report) {
		r.Run.Name, r.Run.Tags, r.Run.TargetURL = "nightly <b>A</b>", []string{"gpu-a"}, "ws://"+self+"/v1/realtime?sim_profile=test"
	}}.json(t))
	e.clock.Advance(1e9)
	failed := upload(t, e, fixture{model: "m", n: 0, ttfp: 300, edit: func(r *report.Report) {
		r.Complete = false
		r.Run.Client = report.ClientBrowser
		r.Run.TargetURL = "ws://gpu.example:8099/v1/realtime"
		r.Sessions = []report.SessionExtra{{SessionID: "sess-1", Error: "could not start a session: connection refused"}}
	}}.json(t))
	code, hdr, b := e.do("GET", "/history", nil)
	page := string(b)
	if code != 200 || !strings.Contains(hdr.Get("Content-Security-Policy"), "script-src 'self'") {
		t.Fatalf("history = %d csp %q", code, hdr.Get("Content-Security-Policy"))
	}
	row := func(id string) string {
		m := regexp.MustCompile(`<tr data-id="` + id + `"[^\n]*</tr>`).FindString(page)
		if m == "" {
			t.Fatalf("history has no row for %s:\n%s", id, page)
		}
		return m
	}
	fr := row(failed)
	testkit.Mentions(t, fmt.Sprintf("failed run's row %q", fr), fr, []string{
		`data-complete="false"`, `data-badge="status" data-value="incomplete"`, `data-badge="client" data-value="browser"`,
		`data-badge="target" data-value="server"`, "gpu.example:8099", `name="ids" value="` + failed + `" form="compare-form"`,
	}, nil)
	or := row(ok)
	testkit.Mentions(t, fmt.Sprintf("named run's row %q", or), or, []string{
		"nightly &lt;b&gt;A&lt;/b&gt;", `data-value="cli"`, `data-badge="target" data-value="sim"`, `<li class="tag">gpu-a</li>`, `data-complete="true"`,
	}, nil)
	if strings.Contains(or, `data-value="incomplete"`) {
		t.Error("a complete run is badged incomplete")
	}
	if !strings.Contains(page, `<form method="get" action="/compare" id="compare-form"`) || !strings.Contains(page, `id="compare-button"`) {
		t.Error("history has no compare form")
	}
	// Picked from a share page: its id goes first (hidden), its own box is not submitted.
	_, _, b = e.do("GET", "/history?pick="+ok, nil)
	page = string(b)
	hidden := `<input type="hidden" name="ids" value="` + ok + `">`
	if !strings.Contains(page, hidden) || strings.Index(page, hidden) > strings.Index(page, `id="runs"`) || strings.Contains(page, `name="ids" value="`+ok+`" form=`) {
		t.Errorf("history?pick does not make the run the baseline")
	}
	if c, _, _ := e.do("GET", "/history?pick=nope", nil); c != 400 {
		t.Errorf("history?pick=nope = %d, want 400", c)
	}
	// The share page links there.
	_, _, b = e.do("GET", "/r/"+ok, nil)
	if !strings.Contains(string(b), `id="compare-with" href="/history?pick=`+ok+`"`) || !strings.Contains(string(b), "<h1>nightly &lt;b&gt;A&lt;/b&gt;</h1>") {
		t.Errorf("share page lacks the compare-with link or the run's name")
	}
}
