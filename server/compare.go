//go:build !js

package server

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/duplexscope/duplexscope/metrics"
	"github.com/duplexscope/duplexscope/report"
	"github.com/duplexscope/duplexscope/server/archive"
)

// Resamples is the bootstrap size of the compare page.
const Resamples = 1000

// Bounds of the compare page's work.
const (
	// CompareMinSamples is the fewest responses (or heard latencies) per
	// side a row needs for a verdict; below it the row and the headline
	// say "not enough data".
	CompareMinSamples = 5
	// CompareP99Min is the fewest samples a p99 is called p99 with; below
	// it the row is "slowest of N" (nearest rank p99 of < 100 is the max).
	CompareP99Min = 20
	// CompareRowCap is how many responses per run the bootstrap and the
	// charts use; a bigger run is subsampled evenly over its sorted values
	// (the page says so). Means and percentiles use every response.
	CompareRowCap = 5000
	// CompareConcurrency is how many compare pages are computed at once;
	// more get 503 with Retry-After.
	CompareConcurrency = 2
)

type compareReport struct {
	ID, Label string
	R         *report.Report
}

type fact struct {
	Name   string
	Values []string
}

type deltaRow struct {
	Run, Metric, Clock, Stat       string
	Base, Value, Delta, Pct, CI    string
	Verdict                        string // regression | improvement | same | not-enough-data
	N                              string // samples, baseline vs run
	pct, lo, hi, base, value, diff float64
}

type compareView struct {
	Reports      []compareReport
	Facts        []fact
	Deltas       []deltaRow
	Incomparable string
	Baseline     string
	Threshold    float64
	Seed         uint64
	Resamples    int
	// Subsampled names the runs whose bootstrap used CompareRowCap of their responses.
	Subsampled string
	RowCap     int
	// CompareOutcome is the headline's data-compare: regression |
	// improvement | same | not-enough-data | none.
	CompareOutcome string
	// RunBadges are each run's badges (client, target, incomplete), in Reports order.
	RunBadges [][]badge
	// RunVerdicts are each run's own verdict (report.Judge, the one
	// judgement of every page), in Reports order.
	RunVerdicts []report.Verdict
	// MinSamples and P99Min are CompareMinSamples and CompareP99Min, for the page.
	MinSamples, P99Min int
}

// subsample returns at most n values evenly spaced over sorted, ends included (the same
// slice when it is short enough), keeping its distribution's shape.
func subsample(sorted []float64, n int) []float64 {
	if len(sorted) <= n {
		return sorted
	}
	if n < 2 {
		return sorted[:n]
	}
	out := make([]float64, n)
	for i := range out { // both ends kept: the minimum and the maximum
		out[i] = sorted[int(int64(i)*int64(len(sorted)-1)/int64(n-1))]
	}
	return out
}

// compareMetrics are the per-response metrics compared (lower is better);
// heardKey is the heard latency of responses[] (playback clock, or the CLI's
// simulated playback), not a row metric.
var compareMetrics = []struct{ key, name string }{
	{"ttfp_ms", "TTFP"}, {"ttft_ms", "TTFT"}, {"rtf", "RTF"}, {heardKey, "heard"},
}

const heardKey = "heard_ttfp_ms"

// compareValues are a run's values of a compared metric.
func compareValues(r *report.Report, key string) []float64 {
	if key != heardKey {
		return report.Values(r.Metrics.Requests, key)
	}
	var out []float64
	for _, x := range r.Responses {
		if x.HeardTTFPMs != nil {
			out = append(out, *x.HeardTTFPMs)
		}
	}
	return out
}

// heardClock names the clock of a run's heard latencies: the page's
// playback clock, or the CLI's simulated playback (nothing played).
func heardClock(r *report.Report) string {
	for _, x := range r.Responses {
		if x.HeardTTFPMs == nil {
			continue
		}
		if r.Run.Client == report.ClientCLI || strings.Contains(x.HeardOrigin, "simulated") {
			return "simulated playback (CLI: nothing played)"
		}
		return "playback clock"
	}
	return "none"
}

// metricClock is the clock a compared metric of run r was measured on.
func metricClock(r *report.Report, key string) string {
	switch key {
	case "rtf":
		return clockClient
	case heardKey:
		return heardClock(r)
	}
	return majoritySource(r.Metrics.Requests)
}

type statFn func(sorted []float64) float64

var compareStats = []struct {
	name string
	f    statFn
}{
	{"mean", func(s []float64) float64 {
		sum := 0.0
		for _, v := range s {
			sum += v
		}
		return sum / float64(len(s))
	}},
	{"p50", func(s []float64) float64 { return metrics.Percentile(s, 0.5) }},
	{"p90", func(s []float64) float64 { return metrics.Percentile(s, 0.9) }},
	{"p99", func(s []float64) float64 { return metrics.Percentile(s, 0.99) }},
}

// statLabel is how a statistic is named for samples of na and nb values:
// a p99 of fewer than CompareP99Min is the slowest value, and says so.
func statLabel(stat string, na, nb int) string {
	if stat != "p99" || min(na, nb) >= CompareP99Min {
		return stat
	}
	if na == nb {
		return fmt.Sprintf("slowest of %d", na)
	}
	return fmt.Sprintf("slowest of %d vs %d", na, nb)
}

// bootstrap returns the 95 % interval of stat(b) − stat(a) for each of
// mean, p50, p90 and p99, resampling both sorted samples with replacement from
// rng. A resample is kept as counts per sorted position, so each statistic
// is one O(n) pass (no sorting per resample).
func bootstrap(ctx context.Context, rng *rand.Rand, a, b []float64, n int) ([][2]float64, error) {
	diffs := make([][]float64, len(compareStats))
	for k := range diffs {
		diffs[k] = make([]float64, 0, n)
	}
	ca, cb := make([]int32, len(a)), make([]int32, len(b))
	var sa, sb [4]float64
	for it := 0; it < n; it++ {
		if it%16 == 0 && ctx.Err() != nil {
			return nil, ctx.Err() // the client left: stop computing its page
		}
		resampleStats(rng, a, ca, &sa)
		resampleStats(rng, b, cb, &sb)
		for k := range compareStats {
			diffs[k] = append(diffs[k], sb[k]-sa[k])
		}
	}
	out := make([][2]float64, len(compareStats))
	for k := range diffs {
		slices.Sort(diffs[k])
		out[k] = [2]float64{quantile(diffs[k], 0.025), quantile(diffs[k], 0.975)}
	}
	return out, nil
}

// resampleStats draws len(sorted) values with replacement and stores their
// mean, nearest-rank p50, p90 and p99 in st (the order of compareStats).
func resampleStats(rng *rand.Rand, sorted []float64, counts []int32, st *[4]float64) {
	n := len(sorted)
	clear(counts)
	for i := 0; i < n; i++ {
		counts[rng.IntN(n)]++
	}
	r50, r90, r99 := metrics.PercentileIndex(n, 0.5), metrics.PercentileIndex(n, 0.9), metrics.PercentileIndex(n, 0.99)
	sum, seen := 0.0, 0
	st[1], st[2], st[3] = math.NaN(), math.NaN(), math.NaN()
	for i, c := range counts {
		if c == 0 {
			continue
		}
		sum += float64(c) * sorted[i]
		next := seen + int(c)
		if seen <= r50 && r50 < next {
			st[1] = sorted[i]
		}
		if seen <= r90 && r90 < next {
			st[2] = sorted[i]
		}
		if seen <= r99 && r99 < next {
			st[3] = sorted[i]
		}
		seen = next
	}
	st[0] = sum / float64(n)
}

// quantile is the linear-interpolation quantile of a sorted slice.
func quantile(s []float64, q float64) float64 {
	pos := q * float64(len(s)-1)
	lo := int(math.Floor(pos))
	hi := min(lo+1, len(s)-1)
	return s[lo] + (s[hi]-s[lo])*(pos-float64(lo))
}

func majoritySource(rows []report.Row) string {
	c, _, _ := latencyClock(rows)
	return c
}

func datasetOf(r *report.Report) string {
	s := r.Run.Source.Kind
	if r.Run.Source.Dataset != "" {
		s += ":" + r.Run.Source.Dataset
	}
	if r.Run.Source.Split != "" {
		s += "/" + r.Run.Source.Split
	}
	return s
}

// buildCompare compares reports[1:] against reports[0].
func buildCompare(ctx context.Context, reports []compareReport, threshold float64, seed uint64) (compareView, error) {
	v := compareView{Reports: reports, Threshold: threshold, Seed: seed, Resamples: Resamples, Baseline: reports[0].Label, RowCap: CompareRowCap,
		MinSamples: CompareMinSamples, P99Min: CompareP99Min}
	var big []string
	for _, cr := range reports {
		if len(cr.R.Metrics.Requests) > CompareRowCap {
			big = append(big, cr.Label)
		}
	}
	v.Subsampled = strings.Join(big, ", ")
	facts := []struct {
		name string
		f    func(*report.Report) string
	}{
		{"model", func(r *report.Report) string { return r.Run.Model }},
		{"latency clock", func(r *report.Report) string { return majoritySource(r.Metrics.Requests) }},
		{"frame size", func(r *report.Report) string { return strconv.Itoa(r.Run.FrameMs) + " ms" }},
		{"input", datasetOf},
		{"target", func(r *report.Report) string { return r.Run.TargetURL }},
		{"profile", func(r *report.Report) string { return r.Run.Profile }},
		{"responses", func(r *report.Report) string { return strconv.Itoa(len(r.Metrics.Requests)) }},
		{"heard clock", heardClock},
		{"client", func(r *report.Report) string { return clientBadge(r.Run.Client).Text }},
		{"tags", func(r *report.Report) string { return strings.Join(r.Run.Tags, ", ") }},
		{"archived", func(r *report.Report) string { return r.CreatedAt }},
		{"complete", func(r *report.Report) string { return strconv.FormatBool(r.Complete) }},
	}
	var differ []string
	for i, f := range facts {
		row := fact{Name: f.name}
		for _, cr := range reports {
			row.Values = append(row.Values, f.f(cr.R))
		}
		if i < 4 && slices.ContainsFunc(row.Values, func(s string) bool { return s != row.Values[0] }) {
			differ = append(differ, f.name)
		}
		v.Facts = append(v.Facts, row)
	}
	v.Incomparable = strings.Join(differ, ", ")

	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	base := reports[0].R
	for _, cr := range reports[1:] {
		for _, m := range compareMetrics {
			a := compareValues(base, m.key)
			b := compareValues(cr.R, m.key)
			if len(a) == 0 || len(b) == 0 {
				continue
			}
			slices.Sort(a)
			slices.Sort(b)
			cis, err := bootstrap(ctx, rng, subsample(a, CompareRowCap), subsample(b, CompareRowCap), Resamples)
			if err != nil {
				return v, err
			}
			clock := metricClock(cr.R, m.key)
			if bc := metricClock(base, m.key); bc != clock {
				clock = bc + " vs " + clock
			}
			few := len(a) < CompareMinSamples || len(b) < CompareMinSamples
			name := m.name
			if m.key == heardKey && strings.Contains(clock, "simulated") {
				name = "first sound (simulated)" // nothing played on a CLI run: never "heard"
			}
			for k, st := range compareStats {
				d := deltaRow{Run: cr.Label, Metric: name, Clock: clock, Stat: statLabel(st.name, len(a), len(b)),
					N: strconv.Itoa(len(a)) + " vs " + strconv.Itoa(len(b))}
				d.base, d.value = st.f(a), st.f(b)
				d.diff = d.value - d.base
				d.lo, d.hi = cis[k][0], cis[k][1]
				if d.base != 0 {
					d.pct = d.diff / math.Abs(d.base) * 100
				}
				f := func(x float64) string {
					if m.key == "rtf" {
						return fmtNum(x, 3)
					}
					return fmtNum(x, 1) + " ms"
				}
				d.Base, d.Value, d.Delta = f(d.base), f(d.value), signed(f(d.diff), d.diff)
				d.Pct = signed(fmtNum(d.pct, 1)+" %", d.pct)
				d.CI = "[" + f(d.lo) + ", " + f(d.hi) + "]"
				switch {
				case few:
					d.Verdict = "not-enough-data"
				case d.pct > threshold && d.lo > 0:
					d.Verdict = "regression"
				case d.pct < -threshold && d.hi < 0:
					d.Verdict = "improvement"
				default:
					d.Verdict = "same"
				}
				v.Deltas = append(v.Deltas, d)
			}
		}
	}
	return v, nil
}

func signed(s string, x float64) string {
	if x > 0 {
		return "+" + s
	}
	return s
}

// compareVerdict is the headline, from the rows of the table and nothing
// else: any row marked regression is said (worst first), then improvements;
// "no significant change" only when every row with enough data is same; a
// run with fewer than CompareMinSamples responses makes it "not enough
// data". Outcome is the headline's data-compare value.
func compareVerdict(v compareView) (verdict, string) {
	var reg, imp []deltaRow
	judged, few := 0, 0
	for _, d := range v.Deltas {
		switch d.Verdict {
		case "regression":
			reg = append(reg, d)
		case "improvement":
			imp = append(imp, d)
		case "not-enough-data":
			few++
			continue
		}
		judged++
	}
	var short []string
	for _, cr := range v.Reports {
		if n := len(cr.R.Metrics.Requests); n < CompareMinSamples {
			short = append(short, fmt.Sprintf("%s has %d response%s", cr.Label, n, plural(n)))
		}
	}
	list := func(rows []deltaRow) string {
		// Medians first, then the tails, then means; table order within.
		rank := map[string]int{"p50": 0, "p90": 1, "mean": 3}
		slices.SortStableFunc(rows, func(a, b deltaRow) int {
			ra, ok := rank[a.Stat]
			if !ok {
				ra = 2 // p99, slowest of N
			}
			rb, ok := rank[b.Stat]
			if !ok {
				rb = 2
			}
			return ra - rb
		})
		var parts []string
		for i, d := range rows {
			if i == 4 {
				parts = append(parts, fmt.Sprintf("and %d more row%s", len(rows)-4, plural(len(rows)-4)))
				break
			}
			parts = append(parts, fmt.Sprintf("%s %s %s (%s)", d.Run, d.Metric, d.Stat, d.Pct))
		}
		return strings.Join(parts, "; ")
	}
	thr := fmtNum(v.Threshold, 0)
	var out verdict
	outcome := "same"
	switch {
	case len(v.Deltas) == 0:
		out, outcome = verdict{bandNone, "Nothing to compare: the runs share no per-response metric."}, "none"
	case len(reg) > 0:
		out, outcome = verdict{bandRed, fmt.Sprintf("Regression in %d of %d rows: %s got worse than the baseline by more than %s %%.", len(reg), len(v.Deltas), list(reg), thr)}, "regression"
		if len(imp) > 0 {
			out.Text += fmt.Sprintf(" Improvement in %d rows: %s.", len(imp), list(imp))
		}
	case len(imp) > 0:
		out, outcome = verdict{bandGreen, fmt.Sprintf("Improvement in %d of %d rows: %s got better than the baseline by more than %s %%; no row got worse.", len(imp), len(v.Deltas), list(imp), thr)}, "improvement"
	case judged == 0:
		out, outcome = verdict{bandNone, "Not enough data to compare."}, "not-enough-data"
	default:
		out = verdict{bandGreen, fmt.Sprintf("No significant change in the %d rows with enough data: each stays within ±%s %% of the baseline or inside the noise.", judged, thr)}
	}
	if len(short) > 0 || few > 0 {
		if outcome == "same" {
			outcome = "not-enough-data"
		}
		out.Band = worst(out.Band, bandAmber)
		if len(short) > 0 {
			out.Text += fmt.Sprintf(" Not enough data: %s (at least %d per run are needed to judge a change).", strings.Join(short, ", "), CompareMinSamples)
		} else {
			out.Text += fmt.Sprintf(" Not enough data in %d rows (fewer than %d samples on a side): marked so below.", few, CompareMinSamples)
		}
	}
	if v.Incomparable != "" {
		out.Text += " Careful: the runs differ in " + v.Incomparable + "."
		out.Band = worst(out.Band, bandAmber)
	}
	return out, outcome
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func (s *Server) handleCompare(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	// ids=A,B or ids=A&ids=B (history's checkboxes, a plain form GET); the
	// count is bounded before anything is split.
	if len(q["ids"]) > 8 {
		s.errorPage(w, http.StatusBadRequest, "Compare needs 2–8 runs", "Tick at most 8 runs.")
		return
	}
	ids := strings.Split(strings.Join(q["ids"], ","), ",")
	ids = slices.DeleteFunc(ids, func(s string) bool { return s == "" })
	if len(ids) < 2 || len(ids) > 8 {
		s.errorPage(w, http.StatusBadRequest, "Compare needs 2–8 runs", "Tick 2–8 runs in history, or use /compare?ids=A,B[,C…] with report ids; the first is the baseline.")
		return
	}
	for i, id := range ids {
		if j := slices.Index(ids, id); j < i {
			s.errorPage(w, http.StatusBadRequest, "The same run twice", fmt.Sprintf("Items %d and %d of ids are both %s; compare different runs.", j+1, i+1, id))
			return
		}
	}
	threshold := 10.0
	if t := q.Get("threshold"); t != "" {
		f, err := strconv.ParseFloat(t, 64)
		if err != nil || f < 0 || f > 1000 || math.IsNaN(f) {
			s.errorPage(w, http.StatusBadRequest, "Bad threshold", "threshold is a percentage between 0 and 1000.")
			return
		}
		threshold = f
	}
	select {
	case s.compareSem <- struct{}{}:
		defer func() { <-s.compareSem }()
	default:
		w.Header().Set("Retry-After", "5")
		s.errorPage(w, http.StatusServiceUnavailable, "Compare is busy", fmt.Sprintf("The server is computing %d comparisons already; try again in a few seconds.", CompareConcurrency))
		return
	}
	ctx, cancel := ctxTimeout(r)
	defer cancel()
	var reports []compareReport
	for i, id := range ids {
		if ctx.Err() != nil { // the client left, or the time is up: stop reading reports
			if r.Context().Err() == nil {
				s.errorPage(w, http.StatusServiceUnavailable, "Compare took too long", "The reports could not be read in time; try again.")
			}
			return
		}
		if !archive.ValidID(id) {
			s.errorPage(w, http.StatusBadRequest, "Not a report id", fmt.Sprintf("Item %d of ids is not a report id.", i+1))
			return
		}
		rep, err := s.loadReport(ctx, id)
		if s.readFailed(w, err, "Report not found", fmt.Sprintf("Run %d (%s) is not in the archive.", i+1, id), "A report could not be read.", "compare", "id", id) {
			return
		}
		label := string(rune('A'+i)) + ": " + runTitle(rep, "")
		reports = append(reports, compareReport{ID: id, Label: label, R: rep})
	}
	v, err := buildCompare(ctx, reports, threshold, s.cfg.Seed)
	if err != nil {
		if r.Context().Err() == nil { // the time limit, not a client that left
			s.errorPage(w, http.StatusServiceUnavailable, "Compare took too long", "The comparison did not finish in time; compare fewer or smaller runs.")
		}
		return
	}
	for _, cr := range reports {
		v.RunBadges = append(v.RunBadges, s.runBadges(r, cr.R.Run.Client, cr.R.Run.TargetURL, cr.R.Complete))
		v.RunVerdicts = append(v.RunVerdicts, report.Judge(cr.R))
	}
	p := &page{Heading: "Compare", compareView: v}
	p.Verdict, p.CompareOutcome = compareVerdict(v)
	p.Title = "duplexscope · compare " + strconv.Itoa(len(reports)) + " runs · " + p.Verdict.Text
	p.Description = p.Verdict.Text
	var names []string
	for _, m := range compareMetrics[:2] {
		var vals [][]float64
		names = names[:0]
		for _, cr := range reports {
			names = append(names, cr.Label+" ("+majoritySource(cr.R.Metrics.Requests)+")")
			vs := report.Values(cr.R.Metrics.Requests, m.key)
			if len(vs) > CompareRowCap {
				slices.Sort(vs)
				vs = subsample(vs, CompareRowCap)
			}
			vals = append(vals, vs)
		}
		p.Charts = append(p.Charts, distributionChart("chart-dist-"+m.key, m.key, names, vals))
	}
	s.render(w, "compare", http.StatusOK, p)
}
