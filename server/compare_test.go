//go:build !js

package server_test

import (
	"html"
	"regexp"
	"strings"
	"testing"

	"github.com/duplexscope/duplexscope/report"
)

var (
	verdictRe = regexp.MustCompile(`data-compare="([a-z-]+)" id="verdict">([^<]*)<`)
	rowRe     = regexp.MustCompile(`<tr class="d-([a-z-]+)"><td>[^<]*</td><td>([^<]*)</td><td>([^<]*)</td><td>([^<]*)</td>`)
)

type compareRow struct{ verdict, metric, clock, stat string }

// comparePage fetches /compare?query and returns its headline outcome and
// text and its rows.
func comparePage(t *testing.T, e *env, query string) (string, string, []compareRow) {
	t.Helper()
	code, _, b := e.do("GET", "/compare?"+query, nil)
	if code != 200 {
		t.Fatalf("compare?%s = %d %s", query, code, b)
	}
	v := verdictRe.FindStringSubmatch(string(b))
	if v == nil {
		t.Fatalf("compare?%s: no headline", query)
	}
	var rows []compareRow
	for _, m := range rowRe.FindAllStringSubmatch(string(b), -1) {
		rows = append(rows, compareRow{m[1], m[2], html.UnescapeString(m[3]), m[4]})
	}
	return v[1], html.UnescapeString(v[2]), rows
}

// agree checks the headline against the rows it sits above.
func agree(t *testing.T, outcome, text string, rows []compareRow) {
	t.Helper()
	count := map[string]int{}
	for _, r := range rows {
		count[r.verdict]++
	}
	switch {
	case count["regression"] > 0:
		if outcome != "regression" || !strings.Contains(text, "Regression") || strings.Contains(text, "No significant change") {
			t.Errorf("%d regression rows under the headline %q (%s)", count["regression"], text, outcome)
		}
	case count["improvement"] > 0:
		if outcome != "improvement" || !strings.Contains(text, "Improvement") {
			t.Errorf("%d improvement rows under the headline %q (%s)", count["improvement"], text, outcome)
		}
	case count["same"] > 0 && count["not-enough-data"] == 0:
		if outcome != "same" || !strings.Contains(text, "No significant change") {
			t.Errorf("only unchanged rows under the headline %q (%s)", text, outcome)
		}
	}
	if count["not-enough-data"] > 0 && !strings.Contains(text, "Not enough data") {
		t.Errorf("%d rows without enough data under the headline %q", count["not-enough-data"], text)
	}
}

// TestCompareHeadlineAgrees: on real pages the headline follows the table:
// regressions anywhere are said; 4 vs 8 responses is "not enough data"
// with every row marked; p99 of fewer than 20 is "slowest of N"; heard
// latency is compared with its clock; names label the runs; the form's
// repeated ids work like the comma list.
func TestCompareHeadlineAgrees(t *testing.T) {
	e := newEnv(t, nil)
	named := func(name string) func(*report.Report) { return func(r *report.Report) { r.Run.Name = name } }
	four := upload(t, e, fixture{model: "m", n: 4, ttfp: 400, seed: 1}.json(t))
	eight := upload(t, e, fixture{model: "m", n: 8, ttfp: 400, seed: 2}.json(t))
	base := upload(t, e, fixture{model: "m", n: 60, ttfp: 400, seed: 3, edit: named("fp16 baseline")}.json(t))
	same := upload(t, e, fixture{model: "m", n: 60, ttfp: 405, seed: 4}.json(t))
	slower := upload(t, e, fixture{model: "m", n: 60, ttfp: 600, seed: 5, edit: named("fp8 build")}.json(t))

	outcome, text, rows := comparePage(t, e, "ids="+four+","+eight)
	agree(t, outcome, text, rows)
	if outcome != "not-enough-data" || !strings.Contains(text, "A: m has 4 responses") || len(rows) == 0 {
		t.Errorf("4 vs 8: %s %q with %d rows", outcome, text, len(rows))
	}
	heard, slowest := false, false
	for _, r := range rows {
		if r.verdict != "not-enough-data" {
			t.Errorf("4 vs 8: row %+v is judged", r)
		}
		if r.stat == "p99" {
			t.Errorf("4 vs 8: a row is labelled p99 from 4 and 8 samples: %+v", r)
		}
		slowest = slowest || r.stat == "slowest of 4 vs 8"
		if r.metric == "heard" {
			t.Errorf("4 vs 8: CLI runs' simulated playback is called heard: %+v", r)
		}
		if r.metric == "first sound (simulated)" {
			heard = true
			if !strings.Contains(r.clock, "simulated playback") {
				t.Errorf("heard row of CLI runs has clock %q, want simulated playback", r.clock)
			}
		}
	}
	if !heard || !slowest {
		t.Errorf("4 vs 8: heard row %v, slowest-of row %v; want both", heard, slowest)
	}

	outcome, text, rows = comparePage(t, e, "ids="+base+"&ids="+slower)
	agree(t, outcome, text, rows)
	if outcome != "regression" || !strings.Contains(text, "B: fp8 build TTFP p50") {
		t.Errorf("baseline vs slower: %s %q", outcome, text)
	}
	stats := map[string]bool{}
	for _, r := range rows {
		stats[r.stat] = true
	}
	for _, s := range []string{"mean", "p50", "p90", "p99"} {
		if !stats[s] {
			t.Errorf("60 vs 60: no %s row (stats %v)", s, stats)
		}
	}
	if _, _, b := e.do("GET", "/compare?ids="+base+","+slower, nil); !strings.Contains(string(b), "A: fp16 baseline") {
		t.Error("compare does not label a run by its name")
	}

	for _, q := range []string{"ids=" + base + "," + same, "ids=" + same + "&ids=" + base + "&ids=" + slower, "ids=" + eight + "," + base} {
		outcome, text, rows := comparePage(t, e, q)
		agree(t, outcome, text, rows)
	}
	// Two page runs: their playback clock is heard.
	browser := func(r *report.Report) { r.Run.Client = report.ClientBrowser }
	pa := upload(t, e, fixture{model: "m", n: 8, ttfp: 400, seed: 6, edit: browser}.json(t))
	pb := upload(t, e, fixture{model: "m", n: 8, ttfp: 400, seed: 7, edit: browser}.json(t))
	_, _, rows = comparePage(t, e, "ids="+pa+","+pb)
	heard = false
	for _, r := range rows {
		if r.metric == "heard" {
			heard = true
			if r.clock != "playback clock" {
				t.Errorf("page runs' heard row has clock %q", r.clock)
			}
		}
	}
	if !heard {
		t.Error("two page runs: no heard row")
	}
	if c, _, _ := e.do("GET", "/compare?"+strings.Repeat("ids="+base+"&", 9), nil); c != 400 {
		t.Errorf("9 repeated ids = %d, want 400", c)
	}
}

// TestCompareRunVerdicts: compare shows each run's own verdict, the one its
// share page shows (report.Judge), in run order.
func TestCompareRunVerdicts(t *testing.T) {
	e := newEnv(t, nil)
	fast := upload(t, e, fixture{model: "m", n: 25, ttfp: 200, seed: 1}.json(t))
	slow := upload(t, e, fixture{model: "m", n: 25, ttfp: 2000, seed: 2}.json(t))
	few := upload(t, e, fixture{model: "m", n: 2, ttfp: 200, seed: 3}.json(t))
	// RTF 0.8, 0.85, 1.1, 1.26: median < 1, p99 ≥ 1 (issue 20's run)
	rtf := upload(t, e, judgedRun{ttfp: 200, rtf: []float64{0.8, 0.85, 1.1, 1.26}, speech: 250, complete: true}.json(t))
	_, _, b := e.do("GET", "/compare?ids="+fast+","+slow+","+few+","+rtf, nil)
	row := regexp.MustCompile(`(?s)<tr id="run-verdicts">(.*?)</tr>`).FindStringSubmatch(string(b))
	if row == nil {
		t.Fatalf("compare has no run-verdicts row:\n%s", b)
	}
	cells := regexp.MustCompile(`data-verdict="([a-z-]+)"`).FindAllStringSubmatch(row[1], -1)
	ids := []string{fast, slow, few, rtf}
	if len(cells) != len(ids) {
		t.Fatalf("%d verdict cells, want %d: %s", len(cells), len(ids), row[1])
	}
	seen := map[string]bool{}
	for i, id := range ids {
		_, _, share := e.do("GET", "/r/"+id, nil)
		m := verdictEl.FindStringSubmatch(string(share))
		if m == nil || m[1] != cells[i][1] {
			t.Errorf("run %d: compare says %q, share page %v", i, cells[i][1], m)
		}
		seen[cells[i][1]] = true
	}
	if got := cells[3][1]; got != report.VerdictNotRealTime {
		t.Errorf("compare calls the run with 2 of 4 responses at RTF ≥ 1 %q, want %q", got, report.VerdictNotRealTime)
	}
	if len(seen) < 2 {
		t.Errorf("a fast, a slow and a 2-response run all judged %v: the test cannot tell verdicts apart", seen)
	}
}
