//go:build !js

package server

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/duplexscope/duplexscope/internal/testkit"
	"github.com/duplexscope/duplexscope/metrics"
	"github.com/duplexscope/duplexscope/report"
	"github.com/duplexscope/duplexscope/server/archive"
)

// TestResampleStats: the counting resample gives exactly what sorting the
// drawn values gives.
func TestResampleStats(t *testing.T) {
	for _, n := range []int{1, 2, 3, 7, 100, 101, 500} {
		data := make([]float64, n)
		for i := range data {
			data[i] = float64(i*i%97) + 0.5
		}
		slices.Sort(data)
		r1 := rand.New(rand.NewPCG(3, 4))
		r2 := rand.New(rand.NewPCG(3, 4))
		counts := make([]int32, n)
		for it := 0; it < 20; it++ {
			var got [4]float64
			resampleStats(r1, data, counts, &got)
			drawn := make([]float64, n)
			for i := range drawn {
				drawn[i] = data[r2.IntN(n)]
			}
			slices.Sort(drawn)
			sum := 0.0
			for _, v := range drawn {
				sum += v
			}
			want := [4]float64{sum / float64(n), metrics.Percentile(drawn, 0.5), metrics.Percentile(drawn, 0.9), metrics.Percentile(drawn, 0.99)}
			for k := range want {
				if math.Abs(got[k]-want[k]) > 1e-9*math.Max(1, math.Abs(want[k])) {
					t.Fatalf("n=%d it=%d stat %d: got %v, want %v", n, it, k, got[k], want[k])
				}
			}
		}
	}
}

// TestBootstrapStopsWhenCancelled: a cancelled context ends the bootstrap
// before it resamples (the page of a client that left is not computed).
func TestBootstrapStopsWhenCancelled(t *testing.T) {
	a := make([]float64, 1000)
	for i := range a {
		a[i] = float64(i)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := bootstrap(ctx, rand.New(rand.NewPCG(1, 2)), a, a, Resamples); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled bootstrap: %v, want context.Canceled", err)
	}
	if _, err := bootstrap(context.Background(), rand.New(rand.NewPCG(1, 2)), a, a, 10); err != nil {
		t.Fatal(err)
	}
}

// TestSubsample: at most n values, evenly spread, the short case untouched.
func TestSubsample(t *testing.T) {
	tests := []struct{ len, n, want int }{{10, 20, 10}, {20, 20, 20}, {100000, 20000, 20000}, {7, 3, 3}}
	for _, tc := range tests {
		s := make([]float64, tc.len)
		for i := range s {
			s[i] = float64(i)
		}
		got := subsample(s, tc.n)
		if len(got) != tc.want {
			t.Errorf("subsample(%d, %d): %d values, want %d", tc.len, tc.n, len(got), tc.want)
			continue
		}
		if !slices.IsSorted(got) || got[0] != 0 {
			t.Errorf("subsample(%d, %d) not an ordered spread from the minimum: %v…", tc.len, tc.n, got[:min(5, len(got))])
		}
		if got[len(got)-1] != float64(tc.len-1) {
			t.Errorf("subsample(%d, %d) stops at %v, want the maximum", tc.len, tc.n, got[len(got)-1])
		}
	}
}

// TestCompareBusy: with every compare slot taken, the next compare gets
// 503 and Retry-After instead of queueing more CPU work.
func TestCompareBusy(t *testing.T) {
	s, err := New(Config{Store: archive.NewMemory()})
	if err != nil {
		t.Fatal(err)
	}
	for range CompareConcurrency {
		s.compareSem <- struct{}{}
	}
	w := httptest.NewRecorder()
	req := httptest.NewRequest("GET", "/compare?ids=aaaaaaaaaaaaaaaaaaaaaaaaaa,bbbbbbbbbbbbbbbbbbbbbbbbbb", nil)
	req.Host = "127.0.0.1" // httptest's example.com is not a Host this server answers to
	s.ServeHTTP(w, req)
	if w.Code != http.StatusServiceUnavailable || w.Header().Get("Retry-After") == "" || !strings.Contains(w.Body.String(), "busy") {
		t.Fatalf("busy compare: %d %q %.200s", w.Code, w.Header().Get("Retry-After"), w.Body.String())
	}
	<-s.compareSem
	w = httptest.NewRecorder()
	req = httptest.NewRequest("GET", "/compare?ids=aaaaaaaaaaaaaaaaaaaaaaaaaa,bbbbbbbbbbbbbbbbbbbbbbbbbb", nil)
	req.Host = "127.0.0.1"
	s.ServeHTTP(w, req)
	if w.Code == http.StatusServiceUnavailable {
		t.Fatalf("a free slot still refused: %d", w.Code)
	}
}

// TestCompareHeadlineFollowsRows: the headline is read off the rows; a
// regression in any row (whatever its statistic) is said, "no significant
// change" only when no judged row moved, and a run with fewer than 5
// responses makes it "not enough data".
func TestCompareHeadlineFollowsRows(t *testing.T) {
	run := func(label string, n int) compareReport {
		return compareReport{ID: label, Label: label, R: &report.Report{Metrics: report.Metrics{Requests: make([]report.Row, n)}}}
	}
	row := func(stat, verdict string) deltaRow {
		return deltaRow{Run: "B", Metric: "TTFP", Stat: stat, Verdict: verdict, Pct: "+1 %"}
	}
	cases := []struct {
		name      string
		sizes     [2]int
		rows      []deltaRow
		outcome   string
		want, not []string
	}{
		{"all same", [2]int{8, 8}, []deltaRow{row("mean", "same"), row("p50", "same"), row("p99", "same")}, "same",
			[]string{"No significant change in the 3 rows"}, []string{"Regression", "Not enough data"}},
		{"one p90 regression under same medians", [2]int{40, 40}, []deltaRow{row("mean", "same"), row("p50", "same"), row("p90", "regression"), row("p99", "same")}, "regression",
			[]string{"Regression in 1 of 4 rows", "B TTFP p90"}, []string{"No significant change"}},
		{"regressions and improvements", [2]int{40, 40}, []deltaRow{row("p50", "improvement"), row("p99", "regression")}, "regression",
			[]string{"Regression in 1 of 2 rows", "Improvement in 1 rows"}, []string{"No significant change"}},
		{"improvement only", [2]int{40, 40}, []deltaRow{row("p50", "improvement"), row("p99", "same")}, "improvement",
			[]string{"Improvement in 1 of 2 rows", "no row got worse"}, []string{"Regression", "No significant change"}},
		{"4 vs 8 responses", [2]int{4, 8}, []deltaRow{row("p50", "not-enough-data"), row("p99", "not-enough-data")}, "not-enough-data",
			[]string{"Not enough data", "A has 4 responses"}, []string{"No significant change", "Regression"}},
		{"8 vs 4 responses", [2]int{8, 4}, []deltaRow{row("p50", "not-enough-data")}, "not-enough-data",
			[]string{"Not enough data", "B has 4 responses"}, []string{"No significant change"}},
		{"few heard latencies, enough responses", [2]int{8, 8}, []deltaRow{row("p50", "same"), {Run: "B", Metric: "heard", Stat: "p50", Verdict: "not-enough-data"}}, "not-enough-data",
			[]string{"No significant change in the 1 rows with enough data", "Not enough data in 1 rows"}, []string{"Regression"}},
		{"nothing shared", [2]int{8, 8}, nil, "none", []string{"Nothing to compare"}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v := compareView{Reports: []compareReport{run("A", tc.sizes[0]), run("B", tc.sizes[1])}, Deltas: tc.rows, Threshold: 10}
			got, outcome := compareVerdict(v)
			if outcome != tc.outcome {
				t.Errorf("outcome %q, want %q (%s)", outcome, tc.outcome, got.Text)
			}
			testkit.Mentions(t, fmt.Sprintf("headline %q", got.Text), got.Text, tc.want, tc.not)
		})
	}
}

// TestStatLabel: p99 is called p99 only with 20 samples on both sides.
func TestStatLabel(t *testing.T) {
	for _, tc := range []struct {
		stat   string
		na, nb int
		want   string
	}{{"p99", 20, 25, "p99"}, {"p99", 19, 25, "slowest of 19 vs 25"}, {"p99", 8, 8, "slowest of 8"}, {"p50", 3, 3, "p50"}, {"p90", 8, 8, "p90"}} {
		if got := statLabel(tc.stat, tc.na, tc.nb); got != tc.want {
			t.Errorf("statLabel(%s, %d, %d) = %q, want %q", tc.stat, tc.na, tc.nb, got, tc.want)
		}
	}
}
