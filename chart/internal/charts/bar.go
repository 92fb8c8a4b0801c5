package charts

import (
	"github.com/go-echarts/go-echarts/v2/opts"
	"github.com/go-echarts/go-echarts/v2/types"
)

// Bar represents a bar chart.
type Bar struct {
	RectChart
}

// Type returns the chart type.
func (*Bar) Type() string { return types.ChartBar }

// NewBar creates a new bar chart instance.
func NewBar() *Bar {
	c := &Bar{}
	c.initBaseConfiguration()
	c.hasXYAxis = true
	return c
}

// AddSeries adds the new series.
func (c *Bar) AddSeries(name string, data []opts.BarData, options ...SeriesOpts) *Bar {
	series := SingleSeries{Name: name, Type: types.ChartBar, Data: data}
	series.ConfigureSeriesOpts(options...)
	c.MultiSeries = append(c.MultiSeries, series)
	return c
}

// Validate validates the given configuration.
func (c *Bar) Validate() {
	c.XAxisList[0].Data = c.xAxisData
}
