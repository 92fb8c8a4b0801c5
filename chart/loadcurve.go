package chart

import (
	"fmt"
	"strconv"

	"github.com/duplexscope/duplexscope/chart/internal/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"github.com/duplexscope/duplexscope/metrics/loadcurve"
)

// Series names of the load-curve chart (the page's tests read them).
const (
	LoadTTFPP50   = "TTFP p50"
	LoadTTFPP99   = "TTFP p99"
	LoadJoinTTFP  = "join under load: TTFP"
	LoadRTF       = "RTF p50 (client receive clock)"
	LoadUnderruns = "underruns (playback clock)"
)

// LoadCurveOptions returns the "sessions vs TTFP p50/p99, RTF, underruns"
// chart: one x category per level (in run order; "N (running)" while a
// level's sessions are still reporting), TTFP lines on the left ms axis
// labelled with the clock the level's TTFP came from, the join-under-load
// TTFP as points, RTF on a right × axis and underruns as bars labelled
// with their counts.
// It is themed for the live page's dark background (DarkTheme); share
// pages use LoadCurveOptionsThemed with LightTheme.
func LoadCurveOptions(levels []loadcurve.Level) ([]byte, error) {
	return LoadCurveOptionsThemed(levels, DarkTheme)
}

// LoadCurveOptionsThemed is LoadCurveOptions with the title, legend and
// grid-line colours of theme (the page the chart is drawn on).
func LoadCurveOptionsThemed(levels []loadcurve.Level, theme Theme) ([]byte, error) {
	c := charts.NewLine()
	c.SetGlobalOptions(
		charts.WithTitleOpts(opts.Title{Title: "Load curve — concurrent sessions vs latency", TitleStyle: &opts.TextStyle{FontSize: 13, Color: theme.Title}}),
		charts.WithAnimation(false),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Top: "30", TextStyle: &opts.TextStyle{Color: theme.Legend}}),
		charts.WithGridOpts(opts.Grid{Top: "90", Left: "56", Right: "56", Bottom: "40"}),
		charts.WithXAxisOpts(opts.XAxis{Type: "category", Name: "sessions", SplitLine: &opts.SplitLine{Show: opts.Bool(false)}}),
		charts.WithYAxisOpts(opts.YAxis{Type: "value", Name: "ms", SplitLine: &opts.SplitLine{Show: opts.Bool(true), LineStyle: &opts.LineStyle{Color: theme.Split}}}),
	)
	c.ExtendYAxis(
		opts.YAxis{Type: "value", Name: "RTF ×", Position: "right", SplitLine: &opts.SplitLine{Show: opts.Bool(false)}},
		// Underruns get a hidden axis of their own; each bar is labelled with its count.
		opts.YAxis{Type: "value", Name: "underruns", Show: opts.Bool(false), MinInterval: 1, SplitLine: &opts.SplitLine{Show: opts.Bool(false)}},
	)
	x := make([]string, len(levels))
	var p50, p99, join, rtf []opts.LineData
	var under []opts.BarData
	origin, joinOrigin := "", ""
	for i, l := range levels {
		x[i] = strconv.Itoa(l.Sessions)
		if !l.Complete() {
			x[i] += " (running)"
		}
		p50 = append(p50, lineValue(l.TTFPP50Ms))
		p99 = append(p99, lineValue(l.TTFPP99Ms))
		join = append(join, lineValue(l.JoinTTFPMs))
		rtf = append(rtf, lineValue(l.RTFP50))
		under = append(under, opts.BarData{Value: l.Underruns})
		origin = mergeOrigin(origin, l.TTFPOrigin)
		joinOrigin = mergeOrigin(joinOrigin, l.JoinTTFPOrigin)
	}
	c.SetXAxis(x)
	clock := func(o string) string {
		if o == "" {
			return ""
		}
		return " (" + o + ")"
	}
	line := func(color string, dashed bool) charts.SeriesOpts {
		ls := opts.LineStyle{Color: color, Width: 2}
		if dashed {
			ls.Type = "dashed"
		}
		return charts.WithLineStyleOpts(ls)
	}
	c.AddSeries(LoadTTFPP50+clock(origin), p50, line(originColor[OriginServer], false),
		charts.WithItemStyleOpts(opts.ItemStyle{Color: originColor[OriginServer]}), charts.WithLineChartOpts(opts.LineChart{ConnectNulls: opts.Bool(true)}))
	c.AddSeries(LoadTTFPP99+clock(origin), p99, line("#4dd0e1", true),
		charts.WithItemStyleOpts(opts.ItemStyle{Color: "#4dd0e1"}), charts.WithLineChartOpts(opts.LineChart{ConnectNulls: opts.Bool(true)}))
	c.AddSeries(LoadJoinTTFP+clock(joinOrigin), join, charts.WithItemStyleOpts(opts.ItemStyle{Color: "#f06292"}),
		charts.WithLineStyleOpts(opts.LineStyle{Width: 0, Opacity: opts.Float(0)}), charts.WithLineChartOpts(opts.LineChart{Symbol: "diamond", SymbolSize: 12}))
	c.AddSeries(LoadRTF, rtf, line(originColor[OriginClientReceive], false),
		charts.WithItemStyleOpts(opts.ItemStyle{Color: originColor[OriginClientReceive]}), charts.WithLineChartOpts(opts.LineChart{YAxisIndex: 1, ConnectNulls: opts.Bool(true)}))
	bar := charts.NewBar()
	bar.SetXAxis(x)
	bar.AddSeries(LoadUnderruns, under, charts.WithItemStyleOpts(opts.ItemStyle{Color: "#e57373", Opacity: opts.Float(0.6)}),
		charts.WithBarChartOpts(opts.BarChart{YAxisIndex: 2, BarWidth: "18%"}),
		charts.WithLabelOpts(opts.Label{Show: opts.Bool(true), Position: "top", Color: "#e57373"}))
	c.Overlap(bar)
	return marshal(c)
}

func lineValue(v *float64) opts.LineData {
	if v == nil {
		return opts.LineData{Value: "-"} // echarts: no point
	}
	return opts.LineData{Value: *v}
}

// mergeOrigin names the clock of a series whose points come from levels
// with origins a and b.
func mergeOrigin(a, b string) string {
	switch {
	case b == "" || a == b:
		return a
	case a == "":
		return b
	}
	return loadcurve.OriginMixed
}

// LoadPoints counts the levels with a TTFP point (the page's data-points).
func LoadPoints(levels []loadcurve.Level) string {
	n := 0
	for _, l := range levels {
		if l.TTFPP50Ms != nil {
			n++
		}
	}
	return fmt.Sprint(n)
}
