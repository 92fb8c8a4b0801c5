//go:build !js

package server

import (
	"encoding/json"
	"fmt"
	"html/template"
	"math"
	"strconv"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"github.com/duplexscope/duplexscope/chart"
	"github.com/duplexscope/duplexscope/report"
)

// chartView is one chart on a page: a container id and the echarts option
// JSON built in Go by go-echarts. Pages embed the JSON in a
// <script type="application/json"> block that /assets/share.js hands to
// the vendored echarts runtime, so no inline script is needed (strict CSP).
type chartView struct {
	ID     string
	Title  string
	Points int
	JSON   template.JS // json.Marshal output: <, >, & are \u-escaped
}

func initOpts(id string) charts.GlobalOpts {
	// AssetsHost points at our own /web/ so nothing would ever come from
	// go-echarts' default CDN (we do not use its page templates anyway).
	return charts.WithInitializationOpts(opts.Initialization{ChartID: id, AssetsHost: "/web/", Width: "100%", Height: "320px"})
}

// rectOpts are the options every per-response chart shares.
func rectOpts(id, xName, yName string, legend bool) []charts.GlobalOpts {
	bottom := "40"
	o := []charts.GlobalOpts{
		initOpts(id),
		charts.WithAnimation(false),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
		charts.WithXAxisOpts(opts.XAxis{Name: xName}),
		charts.WithYAxisOpts(opts.YAxis{Name: yName}),
	}
	if legend {
		bottom = "64"
		// One scrolling row: a wrapping legend grows upward over the
		// x axis on a narrow (phone) page.
		o = append(o, charts.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Type: "scroll", Top: "bottom"}))
	}
	return append(o, charts.WithGridOpts(opts.Grid{Left: "56", Right: "24", Top: "36", Bottom: bottom}))
}

func optionJSON(c interface {
	Validate()
	JSON() map[string]interface{}
}) template.JS {
	c.Validate()
	b, err := json.Marshal(c.JSON())
	if err != nil {
		return template.JS("{}")
	}
	return template.JS(b)
}

func lineData(vals []*float64) []opts.LineData {
	out := make([]opts.LineData, len(vals))
	for i, v := range vals {
		if v == nil || math.IsNaN(*v) || math.IsInf(*v, 0) {
			out[i] = opts.LineData{Value: "-"}
		} else {
			out[i] = opts.LineData{Value: *v}
		}
	}
	return out
}

// bandLines marks the goal bands of report.LatencyBands (the one table).
func bandLines() charts.SeriesOpts {
	return charts.WithMarkLineNameYAxisItemOpts(chart.BandMarks(func(b report.LatencyBand) string {
		return report.Seconds(b.UpToMs) + ": " + b.Word + " up to here"
	})...)
}

// latencyChart plots per-response TTFP, TTFT and heard latency, each
// series named with its clock.
func latencyChart(id string, r *report.Report) chartView {
	rows := r.Metrics.Requests
	clock, _, _ := latencyClock(rows)
	heard := map[[2]string]*float64{}
	for _, x := range r.Responses {
		heard[[2]string{x.SessionID, x.ResponseID}] = x.HeardTTFPMs
	}
	xs := make([]string, len(rows))
	ttfp := make([]*float64, len(rows))
	ttft := make([]*float64, len(rows))
	hv := make([]*float64, len(rows))
	anyHeard := false
	for i, row := range rows {
		xs[i] = strconv.Itoa(i + 1)
		ttfp[i], ttft[i] = row.TTFPMs, row.TTFTMs
		hv[i] = heard[[2]string{deref(row.SessionID), deref(row.ResponseID)}]
		anyHeard = anyHeard || hv[i] != nil
	}
	c := charts.NewLine()
	c.SetGlobalOptions(rectOpts(id, "response #", "ms", true)...)
	c.SetXAxis(xs)
	c.AddSeries("TTFP ("+clock+")", lineData(ttfp), bandLines())
	c.AddSeries("TTFT ("+clock+")", lineData(ttft))
	if anyHeard {
		name := "heard (" + clockPlayback + ")"
		if report.SimulatedPlayback(r) {
			name = "simulated playback (headless: nothing played)"
		}
		c.AddSeries(name, lineData(hv))
	}
	return chartView{ID: id, Title: "Latency per response", Points: len(rows), JSON: optionJSON(c)}
}

// rtfChart plots per-response RTF with the RTF = 1 line.
func rtfChart(id string, r *report.Report) chartView {
	rows := r.Metrics.Requests
	xs := make([]string, len(rows))
	data := make([]opts.BarData, len(rows))
	for i, row := range rows {
		xs[i] = strconv.Itoa(i + 1)
		if row.RTF != nil {
			data[i] = opts.BarData{Value: *row.RTF}
		} else {
			data[i] = opts.BarData{Value: "-"}
		}
	}
	c := charts.NewBar()
	// With a legend: echarts shows one by default, and without the legend's
	// room below the grid it covers the x axis.
	c.SetGlobalOptions(rectOpts(id, "response #", "RTF", true)...)
	c.SetXAxis(xs)
	c.AddSeries("RTF ("+clockClient+")", data, charts.WithMarkLineNameYAxisItemOpts(opts.MarkLineNameYAxisItem{Name: "real time", YAxis: 1}))
	return chartView{ID: id, Title: "Real-time factor per response (must stay below 1)", Points: len(rows), JSON: optionJSON(c)}
}

// waterfallChart stacks, per response, created → first audio (TTFP) and
// first audio → last audio received (client receive clock).
func waterfallChart(id string, r *report.Report) chartView {
	rows := r.Metrics.Requests
	xs := make([]string, len(rows))
	first := make([]opts.BarData, len(rows))
	rest := make([]opts.BarData, len(rows))
	for i, row := range rows {
		xs[i] = strconv.Itoa(i + 1)
		a := row.ClientTTFPMs
		if a == nil {
			a = row.CreatedToAudioMs
		}
		if a != nil && row.AudioGenerationMs != nil {
			first[i] = opts.BarData{Value: *a}
			rest[i] = opts.BarData{Value: math.Max(0, *row.AudioGenerationMs-*a)}
		} else {
			first[i], rest[i] = opts.BarData{Value: "-"}, opts.BarData{Value: "-"}
		}
	}
	c := charts.NewBar()
	c.SetGlobalOptions(rectOpts(id, "response #", "ms", true)...)
	c.SetXAxis(xs)
	c.AddSeries("created → first audio ("+clockClient+")", first, charts.WithBarChartOpts(opts.BarChart{Stack: "t"}))
	c.AddSeries("first → last audio ("+clockClient+")", rest, charts.WithBarChartOpts(opts.BarChart{Stack: "t"}))
	return chartView{ID: id, Title: "Timeline of each response", Points: len(rows), JSON: optionJSON(c)}
}

// histogram buckets values into width-wide bins from 0 to hi.
func histogram(vals []float64, width, hi float64) []float64 {
	n := int(math.Ceil(hi/width)) + 1
	out := make([]float64, n)
	for _, v := range vals {
		i := int(v / width)
		if i < 0 {
			i = 0
		}
		if i >= n {
			i = n - 1
		}
		out[i]++
	}
	for i := range out {
		if len(vals) > 0 {
			out[i] = out[i] / float64(len(vals)) * 100
		}
	}
	return out
}

// distributionChart overlays the TTFP distributions of several reports
// (share of responses per 50 ms bin).
func distributionChart(id, metric string, names []string, values [][]float64) chartView {
	hi := 0.0
	for _, vs := range values {
		for _, v := range vs {
			hi = math.Max(hi, v)
		}
	}
	width := 50.0
	if metric == "rtf" {
		width = 0.05
	}
	if hi/width > 60 {
		width = math.Ceil(hi/60/10) * 10
	}
	n := int(math.Ceil(hi/width)) + 1
	xs := make([]string, n)
	for i := range xs {
		xs[i] = strconv.FormatFloat(float64(i)*width, 'f', -1, 64)
	}
	c := charts.NewLine()
	c.SetGlobalOptions(rectOpts(id, metric+" bin start", "% of responses", true)...)
	c.SetXAxis(xs)
	points := 0
	for i, vs := range values {
		h := histogram(vs, width, hi)
		d := make([]opts.LineData, len(h))
		for k, v := range h {
			d[k] = opts.LineData{Value: v}
		}
		c.AddSeries(names[i], d, charts.WithLineChartOpts(opts.LineChart{Step: "start"}))
		points += len(vs)
	}
	return chartView{ID: id, Title: fmt.Sprintf("Distribution of %s", metric), Points: points, JSON: optionJSON(c)}
}

// loadChart is the load curve of a report (the chart package's builder,
// the same option the /load page draws live, themed for the light page).
func loadChart(id string, r *report.Report) (chartView, bool) {
	if r.LoadCurve == nil || len(r.LoadCurve.Levels) == 0 {
		return chartView{}, false
	}
	b, err := chart.LoadCurveOptionsThemed(r.LoadCurve.Levels, chart.LightTheme)
	if err != nil {
		return chartView{}, false
	}
	n, _ := strconv.Atoi(chart.LoadPoints(r.LoadCurve.Levels))
	return chartView{ID: id, Title: "Load curve: concurrent sessions vs TTFP p50/p99, join-under-load TTFP, RTF, underruns", Points: n, JSON: template.JS(b)}, true
}
