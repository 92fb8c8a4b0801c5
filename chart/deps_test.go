//go:build !js

package chart

import (
	"os/exec"
	"strings"
	"testing"
)

// TestChartDeps keeps html/template (and with it text/template's builtin
// table) and go-echarts' HTML renderer out of app.wasm: chart builds only
// option JSON, through the trimmed copy in chart/internal/charts.
func TestChartDeps(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	deps := map[string]bool{}
	for _, p := range strings.Fields(string(out)) {
		deps[p] = true
	}
	if !deps["github.com/go-echarts/go-echarts/v2/opts"] {
		t.Fatalf("go list -deps does not list go-echarts/opts; got %d packages", len(deps))
	}
	for _, p := range []string{"html/template", "text/template", "github.com/go-echarts/go-echarts/v2/charts", "github.com/go-echarts/go-echarts/v2/render"} {
		if deps[p] {
			t.Errorf("chart links %s", p)
		}
	}
}
