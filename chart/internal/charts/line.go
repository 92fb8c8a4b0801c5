package charts

import (
	"github.com/go-echarts/go-echarts/v2/opts"
	"github.com/go-echarts/go-echarts/v2/types"
)

// Line represents a line chart.
type Line struct {
	RectChart
}

// Type returns the chart type.
func (*Line) Type() string { return types.ChartLine }

// NewLine creates a new line chart.
func NewLine() *Line {
	c := &Line{}
	c.initBaseConfiguration()
	c.hasXYAxis = true
	return c
}

// AddSeries adds the new series.
func (c *Line) AddSeries(name string, data []opts.LineData, options ...SeriesOpts) *Line {
	series := SingleSeries{Name: name, Type: types.ChartLine, Data: data}
	series.InitSeriesDefaultOpts(c.BaseConfiguration)
	series.ConfigureSeriesOpts(options...)
	c.MultiSeries = append(c.MultiSeries, series)
	return c
}

// Validate validates the given configuration.
func (c *Line) Validate() {
	c.XAxisList[0].Data = c.xAxisData
}
