package charts

import (
	"github.com/go-echarts/go-echarts/v2/opts"
	"github.com/go-echarts/go-echarts/v2/types"
)

// XYChart is a chart in rectangular coordinates whose series hold data of
// type D. Upstream writes Bar, Line and Scatter out one by one; they differ
// only in the series type, the data type and the line's series defaults.
type XYChart[D any] struct {
	RectChart

	chartType string
	// seriesDefaults: a line series, alone of the three, starts from the
	// chart's defaults (its animation switch), as upstream's does; the
	// option JSON shows it.
	seriesDefaults bool
}

// Bar represents a bar chart.
type Bar = XYChart[opts.BarData]

// Line represents a line chart.
type Line = XYChart[opts.LineData]

// Scatter represents a scatter chart.
type Scatter = XYChart[opts.ScatterData]

// NewBar creates a new bar chart instance.
func NewBar() *Bar { return newXYChart[opts.BarData](types.ChartBar, false) }

// NewLine creates a new line chart.
func NewLine() *Line { return newXYChart[opts.LineData](types.ChartLine, true) }

// NewScatter creates a new scatter chart.
func NewScatter() *Scatter { return newXYChart[opts.ScatterData](types.ChartScatter, false) }

func newXYChart[D any](chartType string, seriesDefaults bool) *XYChart[D] {
	c := &XYChart[D]{chartType: chartType, seriesDefaults: seriesDefaults}
	c.initBaseConfiguration()
	c.hasXYAxis = true
	return c
}

// Type returns the chart type.
func (c *XYChart[D]) Type() string { return c.chartType }

// AddSeries adds the new series.
func (c *XYChart[D]) AddSeries(name string, data []D, options ...SeriesOpts) *XYChart[D] {
	series := SingleSeries{Name: name, Type: c.chartType, Data: data}
	if c.seriesDefaults {
		series.InitSeriesDefaultOpts(c.BaseConfiguration)
	}
	series.ConfigureSeriesOpts(options...)
	c.MultiSeries = append(c.MultiSeries, series)
	return c
}

// Validate validates the given configuration.
func (c *XYChart[D]) Validate() {
	c.XAxisList[0].Data = c.xAxisData
}
