package app

import (
	"fmt"
	"testing"
)

// BenchmarkBuildView measures the per-update cost of the live view's model
// (all chart options) with n responses on screen.
func BenchmarkBuildView(b *testing.B) {
	for _, n := range []int{20, 200} {
		b.Run(fmt.Sprintf("responses=%d", n), func(b *testing.B) {
			res, resp := demoResult(n, 0)
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				buildView(viewInput{Phase: phaseStreaming, Result: res, Resp: resp, SkipTimeline: true})
			}
		})
	}
}
