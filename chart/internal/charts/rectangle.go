package charts

import (
	"github.com/go-echarts/go-echarts/v2/opts"
)

type Overlaper interface {
	asRectChart() *RectChart
}

// XYAxis represent the X and Y axis in the rectangular coordinates.
type XYAxis struct {
	XAxisList []opts.XAxis `json:"xaxis"`
	YAxisList []opts.YAxis `json:"yaxis"`
}

func (xy *XYAxis) initXYAxis() {
	xy.XAxisList = append(xy.XAxisList, opts.XAxis{})
	xy.YAxisList = append(xy.YAxisList, opts.YAxis{})
}

// ExtendXAxis adds new X axes.
func (xy *XYAxis) ExtendXAxis(xAxis ...opts.XAxis) {
	xy.XAxisList = append(xy.XAxisList, xAxis...)
}

// ExtendYAxis adds new Y axes.
func (xy *XYAxis) ExtendYAxis(yAxis ...opts.YAxis) {
	xy.YAxisList = append(xy.YAxisList, yAxis...)
}

// WithXAxisOpts sets the X axis.
func WithXAxisOpts(opt opts.XAxis, index ...int) GlobalOpts {
	return func(bc *BaseConfiguration) { setAxis(bc.XYAxis.XAxisList, opt, index) }
}

// WithYAxisOpts sets the Y axis.
func WithYAxisOpts(opt opts.YAxis, index ...int) GlobalOpts {
	return func(bc *BaseConfiguration) { setAxis(bc.XYAxis.YAxisList, opt, index) }
}

// setAxis sets the axes at index (the first when none) to opt.
func setAxis[A opts.XAxis | opts.YAxis](axes []A, opt A, index []int) {
	if len(index) == 0 {
		index = []int{0}
	}
	for _, i := range index {
		axes[i] = opt
	}
}

// RectConfiguration contains options for the rectangular coordinates.
type RectConfiguration struct {
	BaseConfiguration
}

func (rect *RectConfiguration) setRectGlobalOptions(options ...GlobalOpts) {
	rect.BaseConfiguration.setBaseGlobalOptions(options...)
}

// RectChart is a chart in RectChart coordinate.
type RectChart struct {
	RectConfiguration

	xAxisData interface{}
}

func (rc *RectChart) asRectChart() *RectChart {
	return rc
}

// The default RectAggregator for the series data merge
func (rc *RectChart) overlap() RectAggregator {
	return func(this *RectChart, that *RectChart) *RectChart {
		this.MultiSeries = append(this.MultiSeries, that.MultiSeries...)
		return this
	}
}

// SetGlobalOptions sets options for the RectChart instance.
func (rc *RectChart) SetGlobalOptions(options ...GlobalOpts) *RectChart {
	rc.RectConfiguration.setRectGlobalOptions(options...)
	return rc
}

// Overlap composes multiple charts' Series data into one single canvas.
// It is only suited for some of the charts which are in rectangular coordinate.
// Supported charts: Bar/BoxPlot/Line/Scatter/EffectScatter/Kline/HeatMap/Custom
func (rc *RectChart) Overlap(a ...Overlaper) {
	rc.Aggregate(rc.overlap(), a...)
}

// RectAggregator is a binary operator for the RectChart merge function
type RectAggregator func(this *RectChart, that *RectChart) *RectChart

// Aggregate aggregation multiple rect charts into one single canvas.
// An aggregator will merge all charts in orders into the final one.
// It is only suited for some of the charts which are in rectangular coordinate.
func (rc *RectChart) Aggregate(aggregator RectAggregator, charts ...Overlaper) {
	identity := rc
	for _, o := range charts {
		c := o.asRectChart()
		identity = aggregator(identity, c)
	}
}

// SetXAxis sets the X axis data.
func (rc *RectChart) SetXAxis(x interface{}) {
	rc.xAxisData = x
}
