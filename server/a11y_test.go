//go:build !js

package server_test

import (
	"encoding/json"
	"html"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/duplexscope/duplexscope/chart"
	"github.com/duplexscope/duplexscope/metrics/loadcurve"
	"github.com/duplexscope/duplexscope/report"
)

// withLoadCurve is a fixture edit adding a two-level load curve.
func withLoadCurve(r *report.Report) {
	p := func(v float64) *float64 { return &v }
	r.LoadCurve = &report.LoadCurve{Clock: loadcurve.OriginServer, Levels: []report.LoadLevel{
		{Sessions: 1, Reported: 2, Responses: 4, TTFPP50Ms: p(250), TTFPP99Ms: p(300), TTFPOrigin: loadcurve.OriginServer, RTFP50: p(0.4)},
		{Sessions: 4, Reported: 5, Responses: 12, TTFPP50Ms: p(420), TTFPP99Ms: p(800), TTFPOrigin: loadcurve.OriginServer, RTFP50: p(0.7), Underruns: 1},
	}}
}

var chartBlock = regexp.MustCompile(`<script type="application/json" data-chart="([^"]+)">(.*?)</script>`)

// TestShareChartsFitTheirPage: the share page's charts are drawn for a
// light page (the load curve's title and legend are dark text, not the live
// page's near-white), and every chart with a bottom legend keeps it on one
// scrolling row below the grid, so the legend never covers the x axis.
func TestShareChartsFitTheirPage(t *testing.T) {
	e := newEnv(t, nil)
	id := upload(t, e, fixture{model: "m", n: 8, ttfp: 400, seed: 4, edit: withLoadCurve}.json(t))
	_, _, b := e.do("GET", "/r/"+id, nil)
	blocks := chartBlock.FindAllStringSubmatch(string(b), -1)
	seen := map[string]bool{}
	for _, m := range blocks {
		chartID := m[1]
		seen[chartID] = true
		var o struct {
			Title struct {
				TextStyle struct{ Color string } `json:"textStyle"`
			} `json:"title"`
			Legend struct {
				Show      bool                   `json:"show"`
				Type      string                 `json:"type"`
				Top       string                 `json:"top"`
				TextStyle struct{ Color string } `json:"textStyle"`
			} `json:"legend"`
			Grid []struct {
				Bottom string `json:"bottom"`
			} `json:"grid"`
		}
		if err := json.Unmarshal([]byte(html.UnescapeString(m[2])), &o); err != nil {
			t.Fatalf("%s: %v", chartID, err)
		}
		if chartID == "chart-load" {
			if o.Title.TextStyle.Color != chart.LightTheme.Title || o.Legend.TextStyle.Color != chart.LightTheme.Legend {
				t.Errorf("load curve title/legend colours %q/%q, want the light page's %q/%q",
					o.Title.TextStyle.Color, o.Legend.TextStyle.Color, chart.LightTheme.Title, chart.LightTheme.Legend)
			}
			continue
		}
		if !o.Legend.Show || o.Legend.Top != "bottom" {
			t.Errorf("%s: legend %+v, want shown at the bottom (echarts shows one anyway)", chartID, o.Legend)
			continue
		}
		bottom := 0
		if len(o.Grid) > 0 {
			bottom, _ = strconv.Atoi(o.Grid[0].Bottom)
		}
		if o.Legend.Type != "scroll" || bottom < 64 {
			t.Errorf("%s: bottom legend type %q with grid bottom %d px, want one scrolling row and ≥ 64 px below the grid", chartID, o.Legend.Type, bottom)
		}
	}
	for _, want := range []string{"chart-latency", "chart-rtf", "chart-timeline", "chart-load"} {
		if !seen[want] {
			t.Errorf("share page lacks chart %s (has %v)", want, seen)
		}
	}
}

// TestScrollRegionsAreFocusable: on the share, history and compare pages
// every box that scrolls a wide table sideways (on a phone) is a named
// region the keyboard can reach and scroll (WCAG 2.1.1; axe's
// scrollable-region-focusable), and no wide table is left outside one.
func TestScrollRegionsAreFocusable(t *testing.T) {
	e := newEnv(t, nil)
	a := upload(t, e, fixture{model: "m", n: 8, ttfp: 400, seed: 4, edit: withLoadCurve}.json(t))
	b := upload(t, e, fixture{model: "m", n: 8, ttfp: 500, seed: 5}.json(t))
	for _, tc := range []struct {
		path     string
		minBoxes int
	}{
		{"/r/" + a, 2}, // responses, load curve
		{"/history", 1},
		{"/compare?ids=" + a + "," + b, 1},
	} {
		_, _, body := e.do("GET", tc.path, nil)
		page := string(body)
		divs := regexp.MustCompile(`<div class="scroll"[^>]*>`).FindAllString(page, -1)
		if len(divs) < tc.minBoxes {
			t.Errorf("%s: %d scroll boxes, want ≥ %d", tc.path, len(divs), tc.minBoxes)
		}
		for _, d := range divs {
			for _, attr := range []string{`tabindex="0"`, `role="region"`, `aria-label="`} {
				if !strings.Contains(d, attr) {
					t.Errorf("%s: %s lacks %s", tc.path, d, attr)
				}
			}
		}
		// wide: the per-response tables and compare's one column per run
		if n, m := strings.Count(page, `<table class="rows"`)+strings.Count(page, `<table class="kv wide"`), len(divs); n != m {
			t.Errorf("%s: %d wide tables but %d scroll boxes: every table must scroll in its own box", tc.path, n, m)
		}
	}
}

// TestSessionTimelineLightTheme: the share page's session timeline draws
// its title, legend, transcripts and markers in the light page's colours,
// never the dashboard's near-white ones (invisible on white).
func TestSessionTimelineLightTheme(t *testing.T) {
	e := newEnv(t, nil)
	id := uploadWithWireLog(t, e, wireLog(t, "hello there"), nil)
	_, _, b := e.do("GET", "/r/"+id, nil)
	found := false
	for _, m := range chartBlock.FindAllStringSubmatch(string(b), -1) {
		if m[1] != "chart-session" {
			continue
		}
		found = true
		opt := html.UnescapeString(m[2])
		for _, dark := range []string{chart.DarkTheme.Title, chart.DarkTheme.Legend} {
			if strings.Contains(opt, dark) {
				t.Errorf("session timeline holds the dark theme's %s", dark)
			}
		}
		if !strings.Contains(opt, chart.LightTheme.Title) {
			t.Errorf("session timeline lacks the light theme's text colour %s", chart.LightTheme.Title)
		}
	}
	if !found {
		t.Fatal("the share page of a run with a wire log has no chart-session")
	}
}
