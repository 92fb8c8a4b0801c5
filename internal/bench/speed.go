//go:build !js

package bench

import (
	"context"
	"fmt"
)

// SpeedGroup runs the metrics and archive packages' own `go test -bench`
// benchmarks (with -benchmem) and the JSON baselines in this package, and
// tabulates ns/op, process CPU ns/op, B/op and allocs/op.
func SpeedGroup(ctx context.Context, c *Config, sh *Shared) *Section {
	sec := &Section{Title: "Metrics and archive speed"}
	c.logf("speed: go test -bench ./metrics/ (benchtime %s)", c.BenchTime)
	ml, _, err := runGoBench(ctx, c.Root, "./metrics/", ".", c.BenchTime)
	if err != nil {
		sec.Err = err
		return sec
	}
	c.logf("speed: go test -bench Baseline ./internal/bench/")
	bl, _, err := runGoBench(ctx, c.Root, "./internal/bench/", "Baseline", c.BenchTime)
	if err != nil {
		sec.Err = err
		return sec
	}
	c.logf("speed: go test -bench Archive ./server/ (benchtime %s; starts PostgreSQL)", c.ArchiveBench)
	al, _, err := runGoBench(ctx, c.Root, "./server/", "Archive", c.ArchiveBench)
	if err != nil {
		sec.Err = err
		return sec
	}
	ms := func(v float64) string { return fmtMs(v / 1e6) }
	us := func(v float64) string { return fmt.Sprintf("%.2f", v/1e3) }
	num := func(v float64) string {
		if v != v {
			return "n/a"
		}
		return fmt.Sprintf("%.0f", v)
	}
	json10k := find(bl, "BenchmarkBaselineJSON10k")
	jsonEv := find(bl, "BenchmarkBaselineJSONEvent")
	sec.printf("The packages' own benchmarks (`go test -run '^$' -bench . -benchmem -benchtime %s ./metrics/`), parsed. ns/op is wall time; cpu-ns/op is process CPU per op (all goroutines and GC; less distorted by other load on the machine). "+
		"Baselines (this package, same run): `encoding/json` decoding the same events into `map[string]any` — all 50 000 events of the 10 000-response session, and one event of the realistic mix.\n\n", c.BenchTime)
	type mrow struct {
		label, name string
		base        *BenchLine
	}
	mrows := []mrow{
		{"batch: Snapshot, 10 000 responses (rows, summary, stream window)", "BenchmarkSnapshot/responses=10000", json10k},
		{"batch: ScoreSession, 10 000 responses (50 000 events, JSON parsing included)", "BenchmarkScoreSession10k", json10k},
		{"run level: BuildReport, 100 sessions × 100 responses", "BenchmarkBuildReport10k/build", json10k},
		{"run level: duplex_metrics.json bytes of that report", "BenchmarkBuildReport10k/file", json10k},
		{"incremental: Accumulator.Add, per event (realistic mix, 6.4 kB audio payloads)", "BenchmarkAdd", jsonEv},
	}
	var rows [][]string
	for _, r := range mrows {
		l := find(ml, r.name)
		if l == nil {
			rows = append(rows, []string{r.label, "missing from the output", "", "", "", ""})
			continue
		}
		rows = append(rows, []string{r.label, ms(l.get("ns/op")), ms(l.get("cpu-ns/op")), num(l.get("B/op")), num(l.get("allocs/op")), fmtX(Ratio(l.get("cpu-ns/op"), r.base.get("cpu-ns/op")))})
	}
	rows = append(rows,
		[]string{"baseline: json.Unmarshal of the 50 000 events", ms(json10k.get("ns/op")), ms(json10k.get("cpu-ns/op")), num(json10k.get("B/op")), num(json10k.get("allocs/op")), "1.00×"},
		[]string{"baseline: json.Unmarshal of one event", ms(jsonEv.get("ns/op")), ms(jsonEv.get("cpu-ns/op")), num(jsonEv.get("B/op")), num(jsonEv.get("allocs/op")), "1.00×"})
	sec.table([]string{"metrics", "ms/op", "CPU ms/op", "B/op", "allocs/op", "CPU ÷ JSON baseline"}, rows)
	if l := find(ml, "BenchmarkAdd"); l != nil {
		sec.printf("Per-event incremental cost: **%s µs wall, %s µs CPU** per `Accumulator.Add` (%s allocs).\n\n", us(l.get("ns/op")), us(l.get("cpu-ns/op")), num(l.get("allocs/op")))
	}
	var other [][]string
	for _, l := range ml {
		known := false
		for _, r := range mrows {
			known = known || r.name == l.Name
		}
		if !known {
			other = append(other, []string{l.Name, ms(l.get("ns/op")), ms(l.get("cpu-ns/op")), num(l.get("B/op")), num(l.get("allocs/op"))})
		}
	}
	if len(other) > 0 {
		sec.printf("Other metrics benchmarks in the same run:\n\n")
		sec.table([]string{"benchmark", "ms/op", "CPU ms/op", "B/op", "allocs/op"}, other)
	}

	sec.printf("Archive (`go test -run '^$' -bench Archive -benchmem -benchtime %s ./server/`): through HTTP on loopback with the real server — upload of a 50-response report, a list page of 50 from 1 000 reports, a filtered list, the share page of a 500-response report, a compare page of two. Baseline: the in-memory store in the same run.\n\n", c.ArchiveBench)
	ops := []struct{ label, op string }{
		{"upload (POST /api/reports, 50 responses)", "upload-50"},
		{"list 50 of 1 000 (GET /api/reports?limit=50)", "list-50-of-1000"},
		{"list, model + text filter", "list-model-filter"},
		{"share page render, 500 responses (GET /r/{id})", "share-page-500"},
		{"compare page, 2 × 500 responses", "compare-500"},
	}
	var arows [][]string
	for _, o := range ops {
		mem := find(al, "BenchmarkArchive/memory/"+o.op)
		for _, store := range []string{"memory", "sqlite", "postgres"} {
			l := find(al, "BenchmarkArchive/"+store+"/"+o.op)
			if l == nil {
				arows = append(arows, []string{o.label, store, "missing", "", "", ""})
				continue
			}
			arows = append(arows, []string{o.label, store, ms(l.get("ns/op")), num(l.get("B/op")), num(l.get("allocs/op")), fmtX(Ratio(l.get("ns/op"), mem.get("ns/op")))})
		}
	}
	sec.table([]string{"operation", "store", "ms/op", "B/op", "allocs/op", "÷ memory store"}, arows)
	return sec
}
