package metrics

import (
	"fmt"
	"strings"
)

var flatLabels = map[string]string{
	"response_ttft_ms": "server TTFT",
	"response_ttfp_ms": "server TTFP",
	"client_ttft_ms":   "client TTFT",
	"client_ttfp_ms":   "client TTFP",
}

// Console returns the reference's per-response latency block printed after
// a run (docs/metrics.md#console-block): a 50-column "=" header, Mean/Median/P99 lines per
// present group ("{:<40} {:<10.2f}"), a 50-column "=" footer; "" when no
// group has values. Note "server TTFT" is the row ttft_ms, which falls back
// to the client clock when the server sent none.
func (r Report) Console() string {
	if len(r.Flat) == 0 {
		return ""
	}
	var b strings.Builder
	const title = " Duplex Per-Response Latency "
	pad := 50 - len(title)
	b.WriteString(strings.Repeat("=", pad/2) + title + strings.Repeat("=", pad-pad/2) + "\n")
	for _, g := range r.Flat {
		label := flatLabels[g.Name]
		for _, l := range []struct {
			k string
			v float64
		}{{"Mean", g.Summary.Mean}, {"Median", g.Summary.P50}, {"P99", g.Summary.P99}} {
			fmt.Fprintf(&b, "%-40s %-10.2f\n", l.k+" "+label+" (ms):", l.v)
		}
	}
	b.WriteString(strings.Repeat("=", 50) + "\n")
	return b.String()
}
