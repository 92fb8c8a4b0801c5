package charts

import (
	"github.com/go-echarts/go-echarts/v2/opts"
)

// ConfigurationVisitor visitor, also the transformer.
// Allow to visit and modify/enhance chart options before rendering, even though the option structure isn't built-in.
type ConfigurationVisitor interface {
	// Visit called after all builtin options settled
	Visit(chart map[string]interface{})
	VisitTitleOpt(title opts.Title) interface{}
	VisitLegendOpt(legend opts.Legend) interface{}
	VisitTooltipOpt(tooltip opts.Tooltip) interface{}
	VisitSeriesOpt(series MultiSeries) interface{}
	VisitToolbox(toolbox opts.Toolbox) interface{}
	VisitDataZooms(dataZooms []opts.DataZoom) interface{}
	VisitXAxis(xAxis []opts.XAxis) interface{}
	VisitYAxis(yAxis []opts.YAxis) interface{}
	VisitGrid(grid []opts.Grid) interface{}
}

// BaseConfigurationVisitor a default visitor, noop
type BaseConfigurationVisitor struct {
}

func (b BaseConfigurationVisitor) Visit(chart map[string]interface{}) {
	// noop
}

func (b BaseConfigurationVisitor) VisitTitleOpt(title opts.Title) interface{} {
	return title
}

func (b BaseConfigurationVisitor) VisitLegendOpt(legend opts.Legend) interface{} {
	return legend
}

func (b BaseConfigurationVisitor) VisitTooltipOpt(tooltip opts.Tooltip) interface{} {
	return tooltip
}

func (b BaseConfigurationVisitor) VisitSeriesOpt(series MultiSeries) interface{} {
	return series
}

func (b BaseConfigurationVisitor) VisitToolbox(toolbox opts.Toolbox) interface{} {
	return toolbox
}

func (b BaseConfigurationVisitor) VisitDataZooms(dataZooms []opts.DataZoom) interface{} {
	return dataZooms
}

func (b BaseConfigurationVisitor) VisitXAxis(xAxis []opts.XAxis) interface{} {
	return xAxis
}

func (b BaseConfigurationVisitor) VisitYAxis(yAxis []opts.YAxis) interface{} {
	return yAxis
}

func (b BaseConfigurationVisitor) VisitGrid(grid []opts.Grid) interface{} {
	return grid
}
