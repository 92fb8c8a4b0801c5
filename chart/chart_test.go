package chart

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duplexscope/duplexscope/internal/golden"
	"github.com/duplexscope/duplexscope/metrics/loadcurve"
)

func f(v float64) *float64 { return &v }

// indent makes golden diffs readable.
func indent(t *testing.T, b []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", "  "); err != nil {
		t.Fatal(err)
	}
	out.WriteByte('\n')
	return out.Bytes()
}

type option struct {
	Series []struct {
		Name string `json:"name"`
		Type string `json:"type"`
		Data []struct {
			Name  string    `json:"name"`
			Value []float64 `json:"value"`
		} `json:"data"`
	} `json:"series"`
}

func TestTTFPOptions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		points     []Point
		wantSeries []string
	}{
		{"empty", nil, nil},
		{"server_only", []Point{
			{0, "resp_1", 312.5, OriginServer}, {1, "resp_2", 340.25, OriginServer}, {2, "resp_3", 401, OriginServer},
		}, []string{"server clock"}},
		{"mixed_origins_out_of_order", []Point{
			{2, "resp_3", 420, OriginClientReceive}, {0, "resp_1", 312.5, OriginServer}, {1, "resp_2", 450.125, OriginClientReceive},
		}, []string{"server clock", "client receive clock"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b, err := MetricOptions(TTFP, tc.points)
			if err != nil {
				t.Fatal(err)
			}
			var o option
			if err := json.Unmarshal(b, &o); err != nil {
				t.Fatal(err)
			}
			if len(o.Series) != len(tc.wantSeries) {
				t.Fatalf("%d series, want %v", len(o.Series), tc.wantSeries)
			}
			n := 0
			for i, s := range o.Series {
				if s.Name != tc.wantSeries[i] {
					t.Errorf("series %d = %q, want %q", i, s.Name, tc.wantSeries[i])
				}
				for _, d := range s.Data {
					n++
					for _, p := range tc.points {
						if p.ResponseID == d.Name && p.Origin.Label() != s.Name {
							t.Errorf("point %s (origin %s) drawn in series %q", p.ResponseID, p.Origin, s.Name)
						}
					}
				}
			}
			if n != len(tc.points) {
				t.Errorf("%d points drawn, want %d", n, len(tc.points))
			}
			golden.Check(t, "json", indent(t, b))
		})
	}
}

func TestMetricOptions(t *testing.T) {
	t.Parallel()
	pts := []Point{{0, "r1", 0.525, OriginClientReceive}, {1, "r2", 0.9, OriginClientReceive}}
	for _, m := range []Metric{TTFT, RTF, TPOT, Heard} {
		t.Run(string(m), func(t *testing.T) {
			t.Parallel()
			b, err := MetricOptions(m, pts)
			if err != nil {
				t.Fatal(err)
			}
			golden.Check(t, "json", indent(t, b))
		})
	}
	if _, err := MetricOptions("nope", pts); err == nil {
		t.Error("unknown metric: want an error")
	}
}

func TestWaterfallOptions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		steps []Step
	}{
		{"server_and_client", []Step{
			{Index: 0, ResponseID: "resp_1", ServerTTFTMs: f(312.5), ServerTTFPMs: f(340.25), ClientTTFTMs: f(150), ClientTTFPMs: f(200), ReceivedToPlayedMs: f(210.5)},
			{Index: 1, ResponseID: "resp_2", ClientTTFTMs: f(450), ClientTTFPMs: f(420)},
		}},
		{"ttfp_only_server", []Step{{Index: 0, ResponseID: "r", ServerTTFPMs: f(100), ClientTTFPMs: f(90)}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b, err := WaterfallOptions(tc.steps)
			if err != nil {
				t.Fatal(err)
			}
			golden.Check(t, "json", indent(t, b))
		})
	}
}

func TestTimelineOptions(t *testing.T) {
	t.Parallel()
	tl := Timeline{
		User:  []Level{{0, 0.1}, {0.2, 0.4}, {0.4, 0}},
		Model: []Level{{0.5, 0}, {0.7, 0.6}},
		Markers: []Marker{
			{TS: 0.45, Kind: MarkCreated, ResponseID: "resp_1"}, {TS: 0.6, Kind: MarkFirstAudio, ResponseID: "resp_1"},
			{TS: 0.55, Kind: MarkFirstText, ResponseID: "resp_1"}, {TS: 0.8, Kind: MarkPlaybackStart, ResponseID: "resp_1"},
			{TS: 1.5, Kind: MarkDone, ResponseID: "resp_1"},
			{TS: 1.0, Kind: MarkProbe, ResponseID: "probe_1", Label: "probe_1 (interruption) onset"},
			{TS: 1.24, Kind: MarkProbeStop, ResponseID: "probe_1", Label: "probe_1 (interruption) stopped the model after 240 ms"},
		},
		Captions: []Caption{{0.55, LaneModel, "Sure"}, {0.1, LaneUser, "hello"}},
	}
	b, err := TimelineOptions(tl)
	if err != nil {
		t.Fatal(err)
	}
	var o option
	if err := json.Unmarshal(b, &o); err != nil {
		t.Fatal(err)
	}
	names := map[string]int{}
	for _, s := range o.Series {
		names[s.Name] = len(s.Data)
	}
	for name, want := range map[string]int{"user input": 3, "model output": 2, MarkCreated: 1, MarkFirstText: 1, MarkProbe: 1, MarkProbeStop: 1, "user transcript": 1, "model transcript": 1} {
		if names[name] != want {
			t.Errorf("series %q has %d points, want %d", name, names[name], want)
		}
	}
	// Probe markers name their probe in the tooltip; others their response.
	for _, s := range o.Series {
		for _, d := range s.Data {
			if want := map[string]string{MarkCreated: "resp_1", MarkProbeStop: "probe_1 (interruption) stopped the model after 240 ms"}[s.Name]; want != "" && d.Name != want {
				t.Errorf("series %q point named %q, want %q", s.Name, d.Name, want)
			}
		}
	}
	golden.Check(t, "json", indent(t, b))
}

// Regression: go-echarts' chart-type series options reset xAxisIndex and
// yAxisIndex, which put the model lane into the user grid.
func TestTimelineLanes(t *testing.T) {
	t.Parallel()
	b, err := TimelineOptions(Timeline{
		User: []Level{{0, 0.1}}, Model: []Level{{0.5, 0.2}},
		Markers:  []Marker{{TS: 0.4, Kind: MarkCreated, ResponseID: "r"}},
		Captions: []Caption{{0.1, LaneUser, "hi"}, {0.6, LaneModel, "yo"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	var o struct {
		Series []struct {
			Name       string `json:"name"`
			XAxisIndex int    `json:"xAxisIndex"`
			YAxisIndex int    `json:"yAxisIndex"`
		} `json:"series"`
	}
	if err := json.Unmarshal(b, &o); err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"user input": 0, "model output": 1, MarkCreated: 1, "user transcript": 0, "model transcript": 1}
	for _, s := range o.Series {
		if s.XAxisIndex != want[s.Name] || s.YAxisIndex != want[s.Name] {
			t.Errorf("series %q on axes %d/%d, want lane %d", s.Name, s.XAxisIndex, s.YAxisIndex, want[s.Name])
		}
	}
}

// Regression (issue 20): a 12 s run showed the user lane 0–50 s and the
// model lane 0–12 s: each x axis scaled to its own data, and the user lane
// held the captions of dataset clips the run never sent. Both axes now
// share one explicit range and such captions are left out.
func TestTimelineOneTimeAxis(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		tl      Timeline
		wantMax float64
		wantCap int // transcript marks drawn
	}{
		{"user longer", Timeline{User: []Level{{0, 0.1}, {11.8, 0.3}}, Model: []Level{{2, 0.5}}}, 12, 0},
		{"model longer", Timeline{User: []Level{{0, 0.1}}, Model: []Level{{2, 0.5}, {7.2, 0.4}}}, 8, 0},
		{"captions past the end dropped", Timeline{User: []Level{{0, 0.1}, {11.5, 0.3}}, Model: []Level{{3, 0.5}},
			Captions: []Caption{{0.5, LaneUser, "first clip"}, {24, LaneUser, "never sent"}, {49.5, LaneUser, "never sent either"}, {3, LaneModel, "reply"}}}, 12, 2},
		{"markers extend", Timeline{Model: []Level{{1, 0.5}}, Markers: []Marker{{TS: 4.5, Kind: MarkDone, ResponseID: "r"}}}, 5, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b, err := TimelineOptions(c.tl)
			if err != nil {
				t.Fatal(err)
			}
			var o struct {
				XAxis []struct {
					Min *float64 `json:"min"`
					Max *float64 `json:"max"`
				} `json:"xAxis"`
				Series []struct {
					Name   string            `json:"name"`
					Symbol string            `json:"symbol"`
					Data   []json.RawMessage `json:"data"`
				} `json:"series"`
			}
			if err := json.Unmarshal(b, &o); err != nil {
				t.Fatal(err)
			}
			if len(o.XAxis) != 2 {
				t.Fatalf("%d x axes, want 2 (one per lane)", len(o.XAxis))
			}
			for i, a := range o.XAxis {
				if a.Min == nil || a.Max == nil || *a.Min != 0 || *a.Max != c.wantMax {
					t.Errorf("xAxis[%d] range = %v..%v, want 0..%v", i, a.Min, a.Max, c.wantMax)
				}
			}
			marks := 0
			for _, s := range o.Series {
				if strings.HasSuffix(s.Name, "transcript") {
					marks += len(s.Data)
					if s.Symbol == "none" || s.Symbol == "" {
						t.Errorf("series %q has symbol %q: its marks are not drawn", s.Name, s.Symbol)
					}
				}
			}
			if marks != c.wantCap {
				t.Errorf("%d transcript marks, want %d", marks, c.wantCap)
			}
		})
	}
}

func TestTimelineEnvelopeDropsAcrossSilence(t *testing.T) {
	t.Parallel()
	b, err := TimelineOptions(Timeline{Model: []Level{{1, 0.5}, {1.1, 0.6}, {3, 0.4}}})
	if err != nil {
		t.Fatal(err)
	}
	var o option
	if err := json.Unmarshal(b, &o); err != nil {
		t.Fatal(err)
	}
	var got [][]float64
	for _, s := range o.Series {
		if s.Name == "model output" {
			for _, d := range s.Data {
				got = append(got, d.Value)
			}
		}
	}
	prev, next, edge := 1.1, 3.0, envelopeEdgeS // float64 arithmetic, as in the code
	want := [][]float64{{1, 0.5}, {1.1, 0.6}, {prev + edge, 0}, {next - edge, 0}, {3, 0.4}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
}

// TestLoadCurveOptions: one x category per level ("running" until every
// session reported), TTFP series named with their clock, null points for
// levels without a value, RTF and underruns on their own axes.
func TestLoadCurveOptions(t *testing.T) {
	t.Parallel()
	levels := []loadcurve.Level{
		{Sessions: 1, Reported: 2, Responses: 3, TTFPP50Ms: f(210), TTFPP99Ms: f(260), TTFPOrigin: loadcurve.OriginServer, RTFP50: f(0.25),
			JoinTTFPMs: f(230), JoinTTFPOrigin: loadcurve.OriginServer},
		{Sessions: 4, Reported: 5, Responses: 9, TTFPP50Ms: f(340), TTFPP99Ms: f(720.5), TTFPOrigin: loadcurve.OriginServer, RTFP50: f(0.5), Underruns: 2,
			JoinTTFPMs: f(610), JoinTTFPOrigin: loadcurve.OriginServer},
		{Sessions: 16, Reported: 3, Responses: 2, TTFPP50Ms: f(900), TTFPP99Ms: f(950), TTFPOrigin: loadcurve.OriginServer},
	}
	b, err := LoadCurveOptions(levels)
	if err != nil {
		t.Fatal(err)
	}
	var o struct {
		XAxis []struct {
			Data []string `json:"data"`
		} `json:"xAxis"`
		YAxis  []json.RawMessage `json:"yAxis"`
		Series []struct {
			Name       string `json:"name"`
			Type       string `json:"type"`
			YAxisIndex int    `json:"yAxisIndex"`
			Data       []struct {
				Value any `json:"value"`
			} `json:"data"`
		} `json:"series"`
	}
	if err := json.Unmarshal(b, &o); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(o.XAxis[0].Data); got != "[1 4 16 (running)]" {
		t.Errorf("x categories %s", got)
	}
	if len(o.YAxis) != 3 {
		t.Errorf("%d y axes, want 3 (ms, RTF, underruns)", len(o.YAxis))
	}
	want := map[string]struct {
		typ    string
		axis   int
		values string
	}{
		"TTFP p50 (server clock)":              {"line", 0, "[210 340 900]"},
		"TTFP p99 (server clock)":              {"line", 0, "[260 720.5 950]"},
		"join under load: TTFP (server clock)": {"line", 0, "[230 610 -]"},
		LoadRTF:                                {"line", 1, "[0.25 0.5 -]"},
		LoadUnderruns:                          {"bar", 2, "[0 2 0]"},
	}
	for _, s := range o.Series {
		w, ok := want[s.Name]
		if !ok {
			t.Errorf("unexpected series %q", s.Name)
			continue
		}
		delete(want, s.Name)
		var vals []string
		for _, d := range s.Data {
			vals = append(vals, fmt.Sprint(d.Value))
		}
		if got := "[" + strings.Join(vals, " ") + "]"; s.Type != w.typ || s.YAxisIndex != w.axis || got != w.values {
			t.Errorf("%s: %s axis %d values %s, want %s axis %d values %s", s.Name, s.Type, s.YAxisIndex, got, w.typ, w.axis, w.values)
		}
	}
	for name := range want {
		t.Errorf("series %q missing", name)
	}
	golden.Check(t, "json", indent(t, b))
}

// TestLoadCurveTheme: the load curve's title and legend take the colours
// of the page's theme (a light share page must not get the dark page's
// near-white title), and LoadCurveOptions keeps the dark live page's.
func TestLoadCurveTheme(t *testing.T) {
	t.Parallel()
	levels := []loadcurve.Level{{Sessions: 1, Reported: 2, TTFPP50Ms: f(210), TTFPP99Ms: f(260), TTFPOrigin: loadcurve.OriginServer}}
	dflt, err := LoadCurveOptions(levels)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		theme Theme
		want  Theme
	}{
		{"dark", DarkTheme, Theme{Title: "#e6eef5", Legend: "#8fa6b8", Split: "#24405a"}},
		{"light", LightTheme, Theme{Title: "#202124", Legend: "#5f6368", Split: "#dadce0"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := LoadCurveOptionsThemed(levels, tc.theme)
			if err != nil {
				t.Fatal(err)
			}
			var o struct {
				Title struct {
					TextStyle struct{ Color string } `json:"textStyle"`
				} `json:"title"`
				Legend struct {
					TextStyle struct{ Color string } `json:"textStyle"`
				} `json:"legend"`
				YAxis []struct {
					SplitLine struct {
						LineStyle struct{ Color string } `json:"lineStyle"`
					} `json:"splitLine"`
				} `json:"yAxis"`
			}
			if err := json.Unmarshal(b, &o); err != nil {
				t.Fatal(err)
			}
			got := Theme{Title: o.Title.TextStyle.Color, Legend: o.Legend.TextStyle.Color}
			if len(o.YAxis) > 0 {
				got.Split = o.YAxis[0].SplitLine.LineStyle.Color
			}
			if got != tc.want {
				t.Errorf("colours %+v, want %+v", got, tc.want)
			}
			if same := string(b) == string(dflt); same != (tc.name == "dark") {
				t.Errorf("LoadCurveOptions equals the %s theme: %v", tc.name, same)
			}
		})
	}
}

// TestMetricLegendClearOfAxes: a metric chart's legend is one scrolling row
// at the bottom with the room below the grid reserved for it, never in the
// band above the grid where the y axis's name and top (RTF = 1) are drawn.
func TestMetricLegendClearOfAxes(t *testing.T) {
	t.Parallel()
	pts := []Point{{0, "r1", 0.5, OriginServer}, {1, "r2", 0.9, OriginClientReceive}, {2, "r3", 1.1, OriginPlayback}}
	for _, m := range []Metric{TTFT, TTFP, RTF, TPOT, Heard} {
		b, err := MetricOptions(m, pts)
		if err != nil {
			t.Fatal(err)
		}
		var o struct {
			Legend struct {
				Type, Top, Bottom string
			} `json:"legend"`
			Grid []struct {
				Bottom string `json:"bottom"`
			} `json:"grid"`
		}
		if err := json.Unmarshal(b, &o); err != nil {
			t.Fatal(err)
		}
		room := 0
		if len(o.Grid) > 0 {
			room, _ = strconv.Atoi(o.Grid[0].Bottom)
		}
		if o.Legend.Type != "scroll" || o.Legend.Top != "" || o.Legend.Bottom != "0" || room < 52 {
			t.Errorf("%s: legend %+v, grid bottom %d px; want one scrolling row at the bottom and ≥ 52 px under the grid", m, o.Legend, room)
		}
	}
}
