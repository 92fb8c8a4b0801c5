package charts

import (
	"github.com/go-echarts/go-echarts/v2/opts"
	"github.com/go-echarts/go-echarts/v2/types"
	"github.com/go-echarts/go-echarts/v2/util"
)

var defaultConfigurationVisitor ConfigurationVisitor = BaseConfigurationVisitor{}

// GlobalOpts sets the Global options for charts.
type GlobalOpts func(bc *BaseConfiguration)

// BaseConfiguration represents an option set needed by all chart types.
type BaseConfiguration struct {
	opts.Legend  `json:"legend"`
	opts.Tooltip `json:"tooltip"`
	opts.Toolbox `json:"toolbox"`
	opts.Title   `json:"title"`

	opts.Initialization `json:"-"`

	MultiSeries
	XYAxis

	opts.Grid

	// Colors is the color list of palette.
	// If no color is set in series, the colors would be adopted sequentially and circularly
	// from this list as the colors of series.
	Colors []string

	// Animation configs
	// Animation whether enable the animation, default true
	Animation          types.Bool `json:"animation,omitempty"`
	AnimationThreshold types.Int  `json:"animationThreshold,omitempty"`
	// AnimationDuration defined as types.FuncStr for more flexibilities, so are other related options
	AnimationDuration       types.FuncStr `json:"animationDuration,omitempty"`
	AnimationEasing         string        `json:"animationEasing,omitempty"`
	AnimationDelay          types.FuncStr `json:"animationDelay,omitempty"`
	AnimationDurationUpdate types.FuncStr `json:"animationDurationUpdate,omitempty"`
	AnimationEasingUpdate   string        `json:"animationEasingUpdate,omitempty"`
	AnimationDelayUpdate    types.FuncStr `json:"animationDelayUpdate,omitempty"`

	DataZoomList []opts.DataZoom `json:"datazoom,omitempty"`

	configurationVisitor ConfigurationVisitor

	hasXYAxis bool

	GridList []opts.Grid `json:"grid,omitempty"`
}

func (bc *BaseConfiguration) Accept(visitor ConfigurationVisitor) {
	bc.configurationVisitor = visitor
}

// JSON wraps all the options to a map so that it could be used in the base template.
// You should call `bar.Validate()` before call this method to ensure the series data set in place
// Get data in bytes
// bs, _ : = json.Marshal(bar.JSON())
func (bc *BaseConfiguration) JSON() map[string]interface{} {
	return bc.json()
}

func (bc *BaseConfiguration) json() map[string]interface{} {
	visitor := defaultConfigurationVisitor
	if bc.configurationVisitor != nil {
		visitor = bc.configurationVisitor
	}

	obj := map[string]interface{}{
		"title":   visitor.VisitTitleOpt(bc.Title),
		"legend":  visitor.VisitLegendOpt(bc.Legend),
		"tooltip": visitor.VisitTooltipOpt(bc.Tooltip),
		"series":  visitor.VisitSeriesOpt(bc.MultiSeries),
	}

	if bc.Animation != nil {
		obj["animation"] = bc.Animation
	}

	obj["toolbox"] = visitor.VisitToolbox(bc.Toolbox)

	if len(bc.DataZoomList) > 0 {
		obj["dataZoom"] = visitor.VisitDataZooms(bc.DataZoomList)
	}

	if bc.hasXYAxis {
		obj["xAxis"] = visitor.VisitXAxis(bc.XAxisList)
		obj["yAxis"] = visitor.VisitYAxis(bc.YAxisList)
	}

	if bc.Theme == "white" {
		obj["color"] = bc.Colors
	}

	if bc.Initialization.BackgroundColor != "" {
		obj["backgroundColor"] = bc.Initialization.BackgroundColor
	}

	if len(bc.GridList) > 0 {
		obj["grid"] = visitor.VisitGrid(bc.GridList)
	}

	visitor.Visit(obj)
	return obj
}

// FillDefaultValues fill default values for chart options.
func (bc *BaseConfiguration) FillDefaultValues() {
	util.SetDefaultValue(bc)
}

func (bc *BaseConfiguration) initBaseConfiguration() {
	bc.initSeriesColors()
	bc.initXYAxis()
	bc.Initialization.Validate()
	bc.FillDefaultValues()
}

func (bc *BaseConfiguration) initSeriesColors() {
	bc.Colors = []string{
		"#5470c6", "#91cc75", "#fac858", "#ee6666", "#73c0de",
		"#3ba272", "#fc8452", "#9a60b4", "#ea7ccc",
	}
}

func (bc *BaseConfiguration) setBaseGlobalOptions(opts ...GlobalOpts) {
	for _, opt := range opts {
		opt(bc)
	}
}

// WithTitleOpts sets the title.
func WithTitleOpts(opt opts.Title) GlobalOpts {
	return func(bc *BaseConfiguration) {
		bc.Title = opt
	}
}

// WithAnimation enable or disable the animation.
func WithAnimation(enable bool) GlobalOpts {
	return func(bc *BaseConfiguration) {
		bc.Animation = opts.Bool(enable)
	}
}

// WithTooltipOpts sets the tooltip.
func WithTooltipOpts(opt opts.Tooltip) GlobalOpts {
	return func(bc *BaseConfiguration) {
		bc.Tooltip = opt
	}
}

// WithLegendOpts sets the legend.
func WithLegendOpts(opt opts.Legend) GlobalOpts {
	return func(bc *BaseConfiguration) {
		bc.Legend = opt
	}
}

// WithInitializationOpts sets the initialization.
func WithInitializationOpts(opt opts.Initialization) GlobalOpts {
	return func(bc *BaseConfiguration) {
		bc.Initialization = opt
		bc.Initialization.Validate()
	}
}

// WithDataZoomOpts sets the list of the zoom data.
func WithDataZoomOpts(opt ...opts.DataZoom) GlobalOpts {
	return func(bc *BaseConfiguration) {
		bc.DataZoomList = append(bc.DataZoomList, opt...)
	}
}

// WithGridOpts sets the List of the grid.
func WithGridOpts(opt ...opts.Grid) GlobalOpts {
	return func(bc *BaseConfiguration) {
		bc.GridList = append(bc.GridList, opt...)
	}
}
