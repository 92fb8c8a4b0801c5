//go:build !js

package chart

import (
	"testing"

	"github.com/duplexscope/duplexscope/internal/testkit"
)

// TestChartDeps keeps html/template (and with it text/template's builtin
// table) and go-echarts' HTML renderer out of app.wasm: chart builds only
// option JSON, through the trimmed copy in chart/internal/charts.
func TestChartDeps(t *testing.T) {
	deps := testkit.Deps(t, "github.com/go-echarts/go-echarts/v2/opts")
	for _, p := range []string{"html/template", "text/template", "github.com/go-echarts/go-echarts/v2/charts", "github.com/go-echarts/go-echarts/v2/render"} {
		if deps[p] {
			t.Errorf("chart links %s", p)
		}
	}
}
