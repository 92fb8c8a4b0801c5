package charts

import (
	"github.com/go-echarts/go-echarts/v2/opts"
	"github.com/go-echarts/go-echarts/v2/types"
	"github.com/go-echarts/go-echarts/v2/util"
)

type SingleSeries struct {
	Name string `json:"name,omitempty"`
	Type string `json:"type,omitempty"`

	// Rectangular charts
	// Line | Bar
	Stack string `json:"stack,omitempty"`
	// Line | Bar | Scatter
	XAxisIndex int `json:"xAxisIndex,omitempty"`
	// Line | Bar | Scatter
	YAxisIndex int `json:"yAxisIndex,omitempty"`

	// Bar
	BarGap string `json:"barGap,omitempty"`
	// Bar
	BarCategoryGap string `json:"barCategoryGap,omitempty"`
	// Bar
	ShowBackground types.Bool `json:"showBackground,omitempty"`
	// Bar
	RoundCap types.Bool `json:"roundCap,omitempty"`

	// Line | Scatter
	SymbolKeepAspect types.Bool `json:"symbolKeepAspect,omitempty"`

	// BarWidth The width options of the bar. Adaptive when not specified.
	// Can be an absolute value like 40 or a percent value like '60%'.
	BarWidth string `json:"barWidth,omitempty"`

	// Line | Bar | Scatter
	ColorBy string `json:"colorBy,omitempty"`
	// Line | Bar
	PolarIndex int `json:"polarIndex,omitempty"`
	// Line
	Step interface{} `json:"step,omitempty"`
	// Line
	Smooth types.Bool `json:"smooth,omitempty"`
	// Line
	ConnectNulls types.Bool `json:"connectNulls,omitempty"`
	// Line
	ShowSymbol types.Bool `json:"showSymbol,omitempty"`
	// Line | Scatter
	Symbol string `json:"symbol,omitempty"`

	// Line | Bar | Scatter
	CoordSystem string `json:"coordinateSystem,omitempty"`

	// Line | Scatter
	SymbolSize interface{} `json:"symbolSize,omitempty"`

	// series data
	Data interface{} `json:"data,omitempty"`

	// Animation related configs
	Animation types.Bool `json:"animation,omitempty"`

	// series options
	*opts.ItemStyle `json:"itemStyle,omitempty"`
	*opts.Label     `json:"label,omitempty"`
	*opts.MarkLines `json:"markLine,omitempty"`
	*opts.LineStyle `json:"lineStyle,omitempty"`
	*opts.AreaStyle `json:"areaStyle,omitempty"`
	*opts.TextStyle `json:"textStyle,omitempty"`
}

type SeriesOpts func(s *SingleSeries)

type SingleSeriesOptFunc func(s *SingleSeries)

// WithSeriesOpts If the WithXXX helper method is not good enough, use this directly!
func WithSeriesOpts(opf SingleSeriesOptFunc) SeriesOpts {
	return func(s *SingleSeries) {
		opf(s)
	}
}

// WithLabelOpts sets the label.
func WithLabelOpts(opt opts.Label) SeriesOpts {
	return func(s *SingleSeries) {
		s.Label = &opt
	}
}

// WithAreaStyleOpts sets the area style.
func WithAreaStyleOpts(opt opts.AreaStyle) SeriesOpts {
	return func(s *SingleSeries) {
		s.AreaStyle = &opt
	}
}

// WithItemStyleOpts sets the item style.
func WithItemStyleOpts(opt opts.ItemStyle) SeriesOpts {
	return func(s *SingleSeries) {
		s.ItemStyle = &opt
	}
}

// WithLineStyleOpts sets the line style.
func WithLineStyleOpts(opt opts.LineStyle) SeriesOpts {
	return func(s *SingleSeries) {
		s.LineStyle = &opt
	}
}

/* Chart Options */

// WithBarChartOpts sets the BarChart option.
func WithBarChartOpts(opt opts.BarChart) SeriesOpts {
	return func(s *SingleSeries) {
		s.place(opt.ColorBy, opt.CoordSystem, opt.XAxisIndex, opt.YAxisIndex)
		s.PolarIndex = opt.PolarIndex
		s.RoundCap = opt.RoundCap
		s.ShowBackground = opt.ShowBackground
		s.Stack = opt.Stack
		s.BarGap = opt.BarGap
		s.BarCategoryGap = opt.BarCategoryGap
		s.BarWidth = opt.BarWidth
	}
}

// WithLineChartOpts sets the LineChart option.
func WithLineChartOpts(opt opts.LineChart) SeriesOpts {
	return func(s *SingleSeries) {
		s.place(opt.ColorBy, opt.CoordSystem, opt.XAxisIndex, opt.YAxisIndex)
		s.PolarIndex = opt.PolarIndex
		s.symbol(opt.Symbol, opt.SymbolSize, opt.SymbolKeepAspect)
		s.ShowSymbol = opt.ShowSymbol
		s.Stack = opt.Stack
		s.Smooth = opt.Smooth
		s.ConnectNulls = opt.ConnectNulls
		s.Step = opt.Step
	}
}

// WithScatterChartOpts sets the ScatterChart option.
func WithScatterChartOpts(opt opts.ScatterChart) SeriesOpts {
	return func(s *SingleSeries) {
		s.place(opt.ColorBy, opt.CoordSystem, opt.XAxisIndex, opt.YAxisIndex)
		s.symbol(opt.Symbol, opt.SymbolSize, opt.SymbolKeepAspect)
	}
}

// place sets where a series is drawn and how it is coloured: the options
// every rectangular chart type's series options share.
func (s *SingleSeries) place(colorBy, coordSystem string, xAxisIndex, yAxisIndex int) {
	s.ColorBy = colorBy
	s.CoordSystem = coordSystem
	s.XAxisIndex = xAxisIndex
	s.YAxisIndex = yAxisIndex
}

// symbol sets the point symbol: line and scatter series options have it.
func (s *SingleSeries) symbol(symbol string, size interface{}, keepAspect types.Bool) {
	s.Symbol = symbol
	s.SymbolSize = size
	s.SymbolKeepAspect = keepAspect
}

// WithMarkLineStyleOpts sets the style of the MarkLine.
func WithMarkLineStyleOpts(opt opts.MarkLineStyle) SeriesOpts {
	return func(s *SingleSeries) {
		if s.MarkLines == nil {
			s.MarkLines = &opts.MarkLines{}
		}

		s.MarkLines.MarkLineStyle = opt
	}
}

// WithMarkLineNameYAxisItemOpts sets the Y axis of the MarkLine.
func WithMarkLineNameYAxisItemOpts(opt ...opts.MarkLineNameYAxisItem) SeriesOpts {
	return func(s *SingleSeries) {
		if s.MarkLines == nil {
			s.MarkLines = &opts.MarkLines{}
		}
		for _, o := range opt {
			s.MarkLines.Data = append(s.MarkLines.Data, o)
		}
	}
}

func (s *SingleSeries) InitSeriesDefaultOpts(c BaseConfiguration) {
	util.SetDefaultValue(s)
	// some special inherited options from BaseConfiguration
	s.Animation = c.Animation
}

func (s *SingleSeries) ConfigureSeriesOpts(options ...SeriesOpts) {
	for _, opt := range options {
		opt(s)
	}
}

// MultiSeries represents multiple series.
type MultiSeries []SingleSeries

// SetSeriesOptions sets options for all the series.
// NOTE:
// It should be called after AddSeries, otherwise, the Options is no place to add on.
// Previous options will be overwritten every time hence setting them on the `AddSeries` if you want
// to customize each series individually
//
//	here -> ↓ <-
//
// func (c *Bar) AddSeries(name string, data []opts.BarData, options ...SeriesOpts)
func (ms *MultiSeries) SetSeriesOptions(opts ...SeriesOpts) {
	s := *ms
	for i := 0; i < len(s); i++ {
		s[i].ConfigureSeriesOpts(opts...)
	}
}
