package chart

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"

	"github.com/duplexscope/duplexscope/chart/internal/charts"
	"github.com/duplexscope/duplexscope/report"
	"github.com/go-echarts/go-echarts/v2/opts"
)

// Origin names the clock a number was measured on.
type Origin string

// Clock origins of chart points.
const (
	OriginServer        Origin = "server"
	OriginClientReceive Origin = "client_receive"
	OriginPlayback      Origin = "playback"
)

// Label is the legend text of an origin.
func (o Origin) Label() string {
	switch o {
	case OriginServer:
		return "server clock"
	case OriginClientReceive:
		return "client receive clock"
	case OriginPlayback:
		return "playback clock"
	}
	return string(o)
}

// origins is the fixed series order (and colour order) of metric charts.
var origins = []Origin{OriginServer, OriginClientReceive, OriginPlayback}

var originColor = map[Origin]string{
	OriginServer:        "#4fc3f7",
	OriginClientReceive: "#ffb74d",
	OriginPlayback:      "#81c784",
}

// Point is one response's value on a metric chart.
type Point struct {
	Index      int     // request index (x)
	ResponseID string  // shown in the tooltip
	Value      float64 // ms, or a ratio for RTF
	Origin     Origin
}

// Metric selects a per-response chart.
type Metric string

// Metrics with a chart.
const (
	TTFT  Metric = "ttft"
	TTFP  Metric = "ttfp"
	RTF   Metric = "rtf"
	TPOT  Metric = "tpot"
	Heard Metric = "heard"
)

type metricSpec struct {
	title, unit string
	marks       []opts.MarkLineNameYAxisItem
}

var specs = map[Metric]metricSpec{
	TTFT: {title: "TTFT — time to first text", unit: "ms"},
	TTFP: {title: "TTFP — time to first audio packet", unit: "ms"},
	RTF: {title: "RTF — generation time / audio length", unit: "×",
		marks: []opts.MarkLineNameYAxisItem{{Name: "real time (1.0)", YAxis: 1}}},
	TPOT: {title: "TPOT — engine time per output token", unit: "ms"},
	Heard: {title: "Heard — created → first sample played", unit: "ms",
		marks: BandMarks(heardMarkName)},
}

// BandMarks is one mark line per finite goal band of report.LatencyBands
// (the one band table), each named by name.
func BandMarks(name func(report.LatencyBand) string) []opts.MarkLineNameYAxisItem {
	var items []opts.MarkLineNameYAxisItem
	for _, b := range report.LatencyBands {
		if !math.IsInf(b.UpToMs, 1) {
			items = append(items, opts.MarkLineNameYAxisItem{Name: name(b), YAxis: b.UpToMs})
		}
	}
	return items
}

// heardMarkName names a band's upper bound the short way the live chart's
// axis reads: "300 ms", "800 ms", "1.5 s".
func heardMarkName(b report.LatencyBand) string {
	if b.UpToMs >= 1000 {
		return strconv.FormatFloat(b.UpToMs/1000, 'f', -1, 64) + " s"
	}
	return strconv.FormatFloat(b.UpToMs, 'f', -1, 64) + " ms"
}

// MetricLegendRoom is the room below a metric chart's grid: the x axis's
// labels, then the legend's row.
const MetricLegendRoom = "56"

// MetricOptions returns the echarts option JSON of metric m's chart: one
// scatter series per clock origin present in points, x = request index.
func MetricOptions(m Metric, points []Point) ([]byte, error) {
	spec, ok := specs[m]
	if !ok {
		return nil, fmt.Errorf("chart: unknown metric %q", m)
	}
	c := charts.NewScatter()
	c.SetGlobalOptions(
		charts.WithTitleOpts(opts.Title{Title: spec.title, TitleStyle: &opts.TextStyle{FontSize: 13, Color: "#e6eef5"}}),
		charts.WithAnimation(false),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "item"}),
		// The legend sits below the x axis on one scrolling row: at the top
		// it covered the y axis's name and the top of the axis (the RTF = 1
		// line) in a narrow chart.
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Type: "scroll", Bottom: "0", TextStyle: &opts.TextStyle{Color: "#8fa6b8"}}),
		charts.WithGridOpts(opts.Grid{Top: "56", Left: "48", Right: "16", Bottom: MetricLegendRoom}),
		charts.WithXAxisOpts(opts.XAxis{Type: "value", Name: "response", MinInterval: 1, SplitLine: &opts.SplitLine{Show: opts.Bool(false)}}),
		charts.WithYAxisOpts(opts.YAxis{Type: "value", Name: spec.unit, SplitLine: &opts.SplitLine{Show: opts.Bool(true), LineStyle: &opts.LineStyle{Color: "#24405a"}}}),
	)
	by := map[Origin][]opts.ScatterData{}
	sorted := append([]Point(nil), points...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Index < sorted[j].Index })
	for _, p := range sorted {
		by[p.Origin] = append(by[p.Origin], opts.ScatterData{
			Name:  p.ResponseID,
			Value: []float64{float64(p.Index), p.Value},
		})
	}
	first := true
	for _, o := range orderedOrigins(by) {
		so := []charts.SeriesOpts{
			charts.WithItemStyleOpts(opts.ItemStyle{Color: colorOf(o)}),
			charts.WithScatterChartOpts(opts.ScatterChart{SymbolSize: 9}),
		}
		if first && len(spec.marks) > 0 {
			so = append(so, charts.WithMarkLineNameYAxisItemOpts(spec.marks...),
				charts.WithMarkLineStyleOpts(opts.MarkLineStyle{Symbol: []string{"none", "none"}, LineStyle: &opts.LineStyle{Color: "#8fa6b8", Type: "dashed"}}))
		}
		first = false
		c.AddSeries(o.Label(), by[o], so...)
	}
	return marshal(c)
}

func orderedOrigins[T any](by map[Origin][]T) []Origin {
	var out []Origin
	for _, o := range origins {
		if len(by[o]) > 0 {
			out = append(out, o)
		}
	}
	var extra []Origin
	for o := range by {
		if _, known := originColor[o]; !known && len(by[o]) > 0 {
			extra = append(extra, o)
		}
	}
	sort.Slice(extra, func(i, j int) bool { return extra[i] < extra[j] })
	return append(out, extra...)
}

func colorOf(o Origin) string {
	if c, ok := originColor[o]; ok {
		return c
	}
	return "#b0bec5"
}

type validator interface {
	Validate()
	JSON() map[string]interface{}
}

// marshal returns the option JSON of a go-echarts chart (keys sorted, so the
// output is deterministic and golden-testable).
func marshal(c validator) ([]byte, error) {
	c.Validate()
	b, err := json.Marshal(c.JSON())
	if err != nil {
		return nil, fmt.Errorf("chart: %w", err)
	}
	return b, nil
}
