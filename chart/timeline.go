package chart

import (
	"math"

	"github.com/duplexscope/duplexscope/chart/internal/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
)

// Lane is a timeline lane.
type Lane int

// Lanes of the two-lane timeline.
const (
	LaneUser Lane = iota
	LaneModel
)

// Level is one envelope point: TS seconds since stream start on the client
// clock, Level the RMS of that slice (0..1).
type Level struct{ TS, Level float64 }

// Marker kinds on the model lane.
const (
	MarkCreated       = "response.created"
	MarkFirstText     = "first text"
	MarkFirstAudio    = "first audio"
	MarkPlaybackStart = "playback start"
	MarkCleared       = "buffer cleared"
	MarkDone          = "response.done"
	MarkProbe         = "probe onset"
	MarkProbeStop     = "probe stop" // the playback cut a probe caused
)

var markerKinds = []string{MarkCreated, MarkFirstText, MarkFirstAudio, MarkPlaybackStart, MarkCleared, MarkDone, MarkProbe, MarkProbeStop}

var markerStyle = map[string]struct {
	symbol, color string
	y             float64
}{
	MarkCreated:       {"diamond", "#e6eef5", 1.0},
	MarkFirstText:     {"triangle", "#ce93d8", 0.9},
	MarkFirstAudio:    {"circle", "#ffb74d", 0.8},
	MarkPlaybackStart: {"rect", "#81c784", 0.7},
	MarkCleared:       {"pin", "#e53935", 0.95},
	MarkDone:          {"emptyCircle", "#8fa6b8", 0.6},
	MarkProbe:         {"arrow", "#f06292", 1.05},
	MarkProbeStop:     {"roundRect", "#f06292", 1.05}, // on the onsets' line: onset → stop reads left to right
}

// Marker is an event on the timeline (client receive clock, or playback
// clock for playback start and probe stop; client send clock for probe
// onset).
type Marker struct {
	TS         float64
	Kind       string // one of the Mark* constants
	ResponseID string
	Label      string // tooltip name (default ResponseID): probes name their id and kind
}

// Caption is a transcript snippet placed at TS on a lane.
type Caption struct {
	TS   float64
	Lane Lane
	Text string
}

// A gap longer than envelopeGapS between envelope points is silence.
const (
	envelopeGapS  = 0.5
	envelopeEdgeS = 0.05
)

// Timeline is the input of TimelineOptions.
type Timeline struct {
	User, Model []Level
	Markers     []Marker
	Captions    []Caption
}

// TimelineOptions returns the two-lane timeline: user input (top) and model
// output (bottom) envelopes on one zoomable time axis (seconds since stream
// start), with markers and transcript captions. Clicks are handled by the
// page (the series names say which lane).
//
// Both lanes share one time axis: the two x axes get the same explicit
// range (0 to the end of the latest envelope point or marker), else
// echarts scales each grid to its own data and a lane holding more (e.g.
// a dataset's captions for clips never sent) stretches to another scale.
// Captions past that end were never said in this run and are left out.
func TimelineOptions(tl Timeline) ([]byte, error) { return TimelineOptionsThemed(tl, DarkTheme) }

// TimelineOptionsThemed is TimelineOptions with its title, legend and
// transcript text in theme's colours (LightTheme on the share page).
func TimelineOptionsThemed(tl Timeline, theme Theme) ([]byte, error) {
	end := TimelineEnd(tl)
	c := charts.NewLine()
	c.SetGlobalOptions(
		charts.WithTitleOpts(opts.Title{Title: "Timeline — user (top) and model (bottom)", TitleStyle: &opts.TextStyle{FontSize: 13, Color: theme.Title}}),
		charts.WithAnimation(false),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "item"}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Top: "22", TextStyle: &opts.TextStyle{Color: theme.Legend, FontSize: 10}}),
		charts.WithGridOpts(
			opts.Grid{Top: "60", Height: "28%", Left: "56", Right: "16"},
			opts.Grid{Top: "58%", Height: "28%", Left: "56", Right: "16"},
		),
		charts.WithDataZoomOpts(
			opts.DataZoom{Type: "inside", XAxisIndex: []int{0, 1}},
			opts.DataZoom{Type: "slider", XAxisIndex: []int{0, 1}},
		),
		charts.WithXAxisOpts(opts.XAxis{Type: "value", Min: 0, Max: end, AxisLabel: &opts.AxisLabel{Show: opts.Bool(false)}}),
		charts.WithYAxisOpts(opts.YAxis{Type: "value", Name: "user", Min: 0, Max: 1, AxisLabel: &opts.AxisLabel{Show: opts.Bool(false)}}),
	)
	c.ExtendXAxis(opts.XAxis{Type: "value", Name: "s", GridIndex: 1, Min: 0, Max: end})
	c.ExtendYAxis(opts.YAxis{Type: "value", Name: "model", GridIndex: 1, Min: 0, Max: 1.1, AxisLabel: &opts.AxisLabel{Show: opts.Bool(false)}})

	// onLane goes last: the chart-type options reset the axis indices.
	c.AddSeries("user input", envelope(tl.User),
		charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(false)}),
		charts.WithAreaStyleOpts(opts.AreaStyle{Color: "#4fc3f7", Opacity: opts.Float(0.5)}),
		charts.WithItemStyleOpts(opts.ItemStyle{Color: "#4fc3f7"}),
		onLane(LaneUser),
	)
	c.AddSeries("model output", envelope(tl.Model),
		charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(false)}),
		charts.WithAreaStyleOpts(opts.AreaStyle{Color: "#ffb74d", Opacity: opts.Float(0.5)}),
		charts.WithItemStyleOpts(opts.ItemStyle{Color: "#ffb74d"}),
		onLane(LaneModel),
	)

	s := charts.NewScatter()
	addMarkers(s, tl.Markers, theme)
	addCaptions(s, tl.Captions, end, theme)
	c.Overlap(s)
	return marshal(c)
}

// onLane puts a series on lane l's grid (its axes share the lane's index).
func onLane(l Lane) charts.SeriesOpts {
	return charts.WithSeriesOpts(func(s *charts.SingleSeries) { s.XAxisIndex, s.YAxisIndex = int(l), int(l) })
}

// envelope is a lane's area line: the levels, dropping to zero across
// silences longer than envelopeGapS so the area does not bridge them.
func envelope(levels []Level) []opts.LineData {
	d := make([]opts.LineData, 0, len(levels))
	for i, l := range levels {
		if i > 0 && l.TS-levels[i-1].TS > envelopeGapS {
			d = append(d, opts.LineData{Value: []float64{levels[i-1].TS + envelopeEdgeS, 0}},
				opts.LineData{Value: []float64{l.TS - envelopeEdgeS, 0}})
		}
		d = append(d, opts.LineData{Value: []float64{l.TS, l.Level}})
	}
	return d
}

// addMarkers adds one model-lane scatter series per marker kind present,
// in markerKinds order so the legend reads the same in every run.
func addMarkers(s *charts.Scatter, markers []Marker, theme Theme) {
	byKind := map[string][]opts.ScatterData{}
	for _, m := range markers {
		name := m.Label
		if name == "" {
			name = m.ResponseID
		}
		byKind[m.Kind] = append(byKind[m.Kind], opts.ScatterData{Name: name, Value: []float64{m.TS, markerStyle[m.Kind].y}})
	}
	for _, k := range markerKinds {
		if len(byKind[k]) == 0 {
			continue
		}
		st := markerStyle[k]
		switch k { // the markers drawn in the page's text colours follow its theme
		case MarkCreated:
			st.color = theme.Title
		case MarkDone:
			st.color = theme.Legend
		}
		s.AddSeries(k, byKind[k],
			charts.WithScatterChartOpts(opts.ScatterChart{Symbol: st.symbol, SymbolSize: 10}),
			charts.WithItemStyleOpts(opts.ItemStyle{Color: st.color}),
			onLane(LaneModel),
		)
	}
}

// addCaptions adds each lane's transcript captions up to end, the shared
// axis end: captions past it were never said in this run.
func addCaptions(s *charts.Scatter, captions []Caption, end float64, theme Theme) {
	for _, l := range []Lane{LaneUser, LaneModel} {
		var d []opts.ScatterData
		for _, cp := range captions {
			if cp.Lane == l && cp.TS <= end {
				d = append(d, opts.ScatterData{Name: cp.Text, Value: []float64{cp.TS, 0.15}})
			}
		}
		if len(d) == 0 {
			continue
		}
		name := "user transcript"
		if l == LaneModel {
			name = "model transcript"
		}
		s.AddSeries(name, d,
			// A visible mark: echarts draws no label for a "none" symbol,
			// so the legend listed transcripts the chart never showed.
			charts.WithScatterChartOpts(opts.ScatterChart{Symbol: "rect", SymbolSize: 6}),
			charts.WithItemStyleOpts(opts.ItemStyle{Color: theme.Title}),
			charts.WithLabelOpts(opts.Label{Show: opts.Bool(true), Formatter: "{b}", Color: theme.Title, Position: "right", FontSize: 10}),
			onLane(l),
		)
	}
}

// TimelineEnd is the shared end of both lanes' time axis, in seconds: the
// latest envelope point or marker (captions do not extend it), rounded up
// to a whole second; 1 when there is nothing.
func TimelineEnd(tl Timeline) float64 {
	end := 0.0
	for _, l := range tl.User {
		end = max(end, l.TS)
	}
	for _, l := range tl.Model {
		end = max(end, l.TS)
	}
	for _, m := range tl.Markers {
		end = max(end, m.TS)
	}
	if end <= 0 {
		return 1
	}
	return math.Ceil(end + envelopeEdgeS)
}
