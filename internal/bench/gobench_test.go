//go:build !js

package bench

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseBench(t *testing.T) {
	t.Parallel()
	out := `goos: linux
pkg: github.com/duplexscope/duplexscope/metrics
BenchmarkSnapshot/responses=10000-2    	       1	   7450741 ns/op	   7147000 cpu-ns/op	 6512896 B/op	      19 allocs/op
BenchmarkAdd-2                         	   20000	     61806 ns/op	 106.92 MB/s	    112000 cpu-ns/op	    1648 B/op	      10 allocs/op
BenchmarkArchive/sqlite/upload-50-2   	     100	   1234567 ns/op
--- FAIL: BenchmarkBroken
PASS
ok  	github.com/duplexscope/duplexscope/metrics	17.833s
`
	got := ParseBench(out)
	want := []BenchLine{
		{Name: "BenchmarkSnapshot/responses=10000", N: 1, Metrics: map[string]float64{"ns/op": 7450741, "cpu-ns/op": 7147000, "B/op": 6512896, "allocs/op": 19}},
		{Name: "BenchmarkAdd", N: 20000, Metrics: map[string]float64{"ns/op": 61806, "MB/s": 106.92, "cpu-ns/op": 112000, "B/op": 1648, "allocs/op": 10}},
		{Name: "BenchmarkArchive/sqlite/upload-50", N: 100, Metrics: map[string]float64{"ns/op": 1234567}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ParseBench (-want +got):\n%s", diff)
	}
}
