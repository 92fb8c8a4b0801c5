package chart

import (
	"github.com/duplexscope/duplexscope/chart/internal/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
)

// Step is one response's latency waterfall. Server steps are on the server
// clock (from vLLM's request start); client steps on the client receive clock
// (from response.created received); Played on the playback clock. Nil = not
// known (e.g. server metrics missing, nothing played yet).
type Step struct {
	Index      int
	ResponseID string
	// Server clock: request start → first text, → first audio emitted.
	ServerTTFTMs, ServerTTFPMs *float64
	// Client receive clock: created received → first text / first audio received.
	ClientTTFTMs, ClientTTFPMs *float64
	// Playback clock: first audio received → first sample played.
	ReceivedToPlayedMs *float64
}

// Segment names (legend entries): each says its clock.
const (
	segServerText  = "request start → first text (server clock)"
	segServerAudio = "first text → first audio emitted (server clock)"
	segClientAudio = "created → first audio received (client receive clock)"
	segPlayed      = "received → first sample played (playback clock)"
)

// WaterfallOptions returns a horizontal stacked bar chart, two bars per
// response: the server-clock stack and the client stack (receive then
// playback). The stacks are never added across clocks.
func WaterfallOptions(steps []Step) ([]byte, error) {
	c := charts.NewBar()
	cats := make([]string, len(steps))
	var sText, sAudio, cAudio, played []opts.BarData
	for i, s := range steps {
		cats[i] = s.ResponseID
		st, sa := gap(s.ServerTTFTMs, nil), gap(s.ServerTTFPMs, s.ServerTTFTMs)
		if s.ServerTTFTMs == nil && s.ServerTTFPMs != nil {
			st, sa = nil, gap(s.ServerTTFPMs, nil)
		}
		sText = append(sText, bar(st))
		sAudio = append(sAudio, bar(sa))
		cAudio = append(cAudio, bar(s.ClientTTFPMs))
		played = append(played, bar(s.ReceivedToPlayedMs))
	}
	c.SetGlobalOptions(
		charts.WithTitleOpts(opts.Title{Title: "Latency waterfall per response", TitleStyle: &opts.TextStyle{FontSize: 13, Color: "#e6eef5"}}),
		charts.WithAnimation(false),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Top: "22", TextStyle: &opts.TextStyle{Color: "#8fa6b8", FontSize: 10}}),
		charts.WithGridOpts(opts.Grid{Top: "84", Left: "72", Right: "16", Bottom: "28"}),
		charts.WithXAxisOpts(opts.XAxis{Type: "value", Name: "ms"}),
		charts.WithYAxisOpts(opts.YAxis{Type: "category", Data: cats, Inverse: opts.Bool(true)}),
	)
	stack := func(name string) charts.SeriesOpts {
		return charts.WithBarChartOpts(opts.BarChart{Stack: name})
	}
	c.AddSeries(segServerText, sText, stack("server"), charts.WithItemStyleOpts(opts.ItemStyle{Color: "#4fc3f7"}))
	c.AddSeries(segServerAudio, sAudio, stack("server"), charts.WithItemStyleOpts(opts.ItemStyle{Color: "#0288d1"}))
	c.AddSeries(segClientAudio, cAudio, stack("client"), charts.WithItemStyleOpts(opts.ItemStyle{Color: "#ffb74d"}))
	c.AddSeries(segPlayed, played, stack("client"), charts.WithItemStyleOpts(opts.ItemStyle{Color: "#81c784"}))
	return marshal(c)
}

// gap returns b − a (b when a is nil), clamped at 0; nil when b is nil.
func gap(b, a *float64) *float64 {
	if b == nil {
		return nil
	}
	v := *b
	if a != nil {
		v -= *a
	}
	if v < 0 {
		v = 0
	}
	return &v
}

func bar(v *float64) opts.BarData {
	if v == nil {
		return opts.BarData{Value: "-"}
	}
	return opts.BarData{Value: *v}
}
