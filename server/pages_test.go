//go:build !js

package server_test

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/duplexscope/duplexscope/internal/golden"
	"github.com/duplexscope/duplexscope/internal/testkit"
	"github.com/duplexscope/duplexscope/report"
	"github.com/duplexscope/duplexscope/server"
	"github.com/google/go-cmp/cmp"
)

func upload(t *testing.T, e *env, body []byte) string {
	t.Helper()
	code, _, b := e.do("POST", "/api/reports", body)
	if code != 201 {
		t.Fatalf("upload = %d %s", code, b)
	}
	return decode[server.UploadResponse](t, b).ID
}

func TestSharePage(t *testing.T) {
	cases := []struct {
		name string
		f    fixture
	}{
		{"fast-server-clock", fixture{model: "minicpm-o-4.5", n: 6, ttfp: 250, seed: 1}},
		{"slow-client-fallback", fixture{model: "qwen3-omni", n: 4, ttfp: 1800, seed: 2, source: report.SourceClient,
			edit: func(r *report.Report) {
				r.Warnings = append(r.Warnings, report.Warning{Code: report.WarnTabHidden, Message: report.WarningCodes[report.WarnTabHidden]})
				r.Attachments = []report.Attachment{{Name: "sess-1.trace.json", Kind: report.AttachWireLog, ContentType: "application/json"}}
				r.Sessions[0].Complete = false
			}}},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			page := sharePage(t, tc.f)
			if i == 0 {
				golden.Check(t, "html", page)
				return
			}
			// A later case's golden file is its page's difference from the
			// first case's page (whose golden file is the whole page): what
			// the case's fixture changes, without another copy of the rest.
			golden.Check(t, "diff", lineDiff(cases[0].name+".html", tc.name+".html", sharePage(t, cases[0].f), page))
		})
	}
}

// sharePage uploads f to a fresh server and returns its share page,
// checking the page is HTML under the strict CSP.
func sharePage(t *testing.T, f fixture) []byte {
	t.Helper()
	e := newEnv(t, nil)
	id := upload(t, e, f.json(t))
	code, hdr, b := e.do("GET", "/r/"+id, nil)
	if code != 200 || !strings.HasPrefix(hdr.Get("Content-Type"), "text/html") {
		t.Fatalf("share page = %d %q", code, hdr.Get("Content-Type"))
	}
	if csp := hdr.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe") {
		t.Errorf("CSP = %q", csp)
	}
	return b
}

// lineDiff is the unified diff without context (diff -U0) of a and b,
// named from and to: enough, with a, to rebuild b exactly.
func lineDiff(from, to string, a, b []byte) []byte {
	x, y := strings.SplitAfter(string(a), "\n"), strings.SplitAfter(string(b), "\n")
	// lcs[i][j] is the length of the longest common subsequence of x[i:] and y[j:].
	lcs := make([][]int, len(x)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(y)+1)
	}
	for i := len(x) - 1; i >= 0; i-- {
		for j := len(y) - 1; j >= 0; j-- {
			if x[i] == y[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", from, to)
	var del, add []string
	i0, j0 := 0, 0
	flush := func() {
		if len(del)+len(add) > 0 {
			fmt.Fprintf(&out, "@@ -%s +%s @@\n", hunkRange(i0, len(del)), hunkRange(j0, len(add)))
			for _, l := range del {
				out.WriteString("-" + l)
			}
			for _, l := range add {
				out.WriteString("+" + l)
			}
		}
		del, add = nil, nil
	}
	for i, j := 0, 0; i < len(x) || j < len(y); {
		switch {
		case i < len(x) && j < len(y) && x[i] == y[j]:
			flush()
			i, j = i+1, j+1
			i0, j0 = i, j
		case i < len(x) && (j == len(y) || lcs[i+1][j] >= lcs[i][j+1]):
			del, i = append(del, x[i]), i+1
		default:
			add, j = append(add, y[j]), j+1
		}
	}
	flush()
	return []byte(out.String())
}

// hunkRange is a hunk's "start,count" as diff writes it: one line is its
// number alone, and a range of no lines starts at the line before it.
func hunkRange(start, n int) string {
	switch n {
	case 0:
		return fmt.Sprintf("%d,0", start)
	case 1:
		return strconv.Itoa(start + 1)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}

// TestSharePageContent checks what a reader relies on, independent of the golden file.
func TestSharePageContent(t *testing.T) {
	e := newEnv(t, nil)
	id := upload(t, e, fixture{model: "minicpm", n: 500, ttfp: 2000, seed: 3}.json(t))
	_, _, b := e.do("GET", "/r/"+id, nil)
	page := string(b)
	testkit.Mentions(t, "share page", page, []string{
		`<meta property="og:title" content="duplexscope · minicpm · Time to first audio (TTFP)`,
		`<meta property="og:description" content="Not real-time:`,
		`id="verdict" data-verdict="not-real-time"`, `data-metric="ttfp"`, `data-metric="playback"`, `data-metric="rtf"`,
		`server clock`, `simulated playback clock`, `client receive clock`, `engine (server) clock`,
		`<script src="/web/echarts.min.js" defer></script>`, `data-points="500"`,
		`/api/reports/` + id + `/export?format=vllm`, `/api/reports/` + id + `/export?format=csv`,
		`goal ≤ 0.30 s (natural)`, `p50 2`, `p99 2`,
	}, nil)
	if n := strings.Count(page, "<tr") - 1; n < 500 {
		t.Errorf("response table has %d rows, want ≥ 500", n)
	}
	if strings.Contains(page, "go-echarts.github.io") || strings.Contains(page, "cdn") {
		t.Error("share page references a CDN")
	}
	// Every number card names its clock.
	cards := regexp.MustCompile(`(?s)<div class="card [^"]*" data-metric="[a-z]+">.*?</div>\s*</div>`).FindAllString(page, -1)
	if len(cards) < 5 {
		t.Fatalf("%d cards", len(cards))
	}
	for _, c := range cards {
		if !strings.Contains(c, `class="card-origin"`) {
			t.Errorf("card without origin: %s", c)
		}
	}
}

// TestEscaping uploads a report with script and HTML in every string field
// and checks the share, compare and history pages and the API keep them as
// text: the only script elements are ours.
func TestEscaping(t *testing.T) {
	e := newEnv(t, nil)
	const x = `</script><script>alert(1)</script><img src=x onerror=alert(2)>"'&`
	hostile := fixture{model: "m" + x, n: 3, ttfp: 300, session: "s" + x, edit: func(r *report.Report) {
		r.Run.Profile, r.Run.TargetURL, r.Run.Version = x, "ws://h/"+x, x
		r.Run.Machine = report.Machine{OS: x, Arch: x, Hostname: x, UserAgent: x, GoVersion: x}
		r.Run.Source = report.Source{Kind: report.SourceDataset, Dataset: x, Split: x}
		r.Run.StartedAt = x
		r.Warnings = []report.Warning{{Code: report.WarnPacingLag, Message: x, SessionID: x, ResponseID: x}}
		r.Attachments = []report.Attachment{{Name: "ok.json", Kind: report.AttachOther, ContentType: x}}
		for i := range r.Responses {
			r.Responses[i].Transcript = x
		}
		r.Sessions[0].Error = x
	}}.json(t)
	id := upload(t, e, hostile)
	other := upload(t, e, fixture{model: "plain", n: 3, ttfp: 320}.json(t))
	ours := map[string]bool{
		`<script src="/web/echarts.min.js" defer>`: true,
		`<script src="/assets/share.js" defer>`:    true,
		`<script src="/assets/listen.js" defer>`:   true, // the transcripts' seek buttons
	}
	scriptTag := regexp.MustCompile(`(?i)<script[^>]*>`)
	for _, path := range []string{"/r/" + id, "/compare?ids=" + id + "," + other, "/history", "/history?q=" + "%3Cscript%3E"} {
		code, hdr, b := e.do("GET", path, nil)
		if code != 200 {
			t.Errorf("%s = %d", path, code)
			continue
		}
		page := string(b)
		for _, tag := range scriptTag.FindAllString(page, -1) {
			if !ours[tag] && !strings.HasPrefix(tag, `<script type="application/json" data-chart="chart-`) {
				t.Errorf("%s: foreign script tag %s", path, tag)
			}
		}
		for _, bad := range []string{"<img src=x", "<script>alert", "</script><script"} {
			if strings.Contains(page, bad) {
				t.Errorf("%s: unescaped %q", path, bad)
			}
		}
		if hdr.Get("Content-Security-Policy") == "" {
			t.Errorf("%s: no CSP", path)
		}
	}
	// The API returns the text as JSON data, HTML-escaped.
	_, _, b := e.do("GET", "/api/reports?q=m", nil)
	if strings.Contains(string(b), "<script>") {
		t.Error("list JSON carries a raw <script>")
	}
}

func TestCompare(t *testing.T) {
	e := newEnv(t, nil)
	base := upload(t, e, fixture{model: "m", n: 60, ttfp: 400, seed: 1}.json(t))
	same := upload(t, e, fixture{model: "m", n: 60, ttfp: 405, seed: 2}.json(t))
	slower := upload(t, e, fixture{model: "m", n: 60, ttfp: 600, seed: 3}.json(t))
	faster := upload(t, e, fixture{model: "m", n: 60, ttfp: 250, seed: 4}.json(t))
	otherModel := upload(t, e, fixture{model: "other", n: 60, ttfp: 400, seed: 5, frameMs: 80}.json(t))
	cases := []struct {
		name, query  string
		verdict      string
		incomparable string
	}{
		{"same", "ids=" + base + "," + same, "No significant change", ""},
		{"regression", "ids=" + base + "," + slower, "Regression in 12 of 16 rows: B: m TTFP p50", ""},
		{"improvement", "ids=" + base + "," + faster, "Improvement in 12 of 16 rows: B: m TTFP p50", ""},
		{"threshold 60 %", "ids=" + base + "," + slower + "&threshold=60", "No significant change", ""},
		{"three runs", "ids=" + base + "," + same + "," + slower, "Regression in 12 of 32 rows: C: m TTFP p50", ""},
		{"incomparable", "ids=" + base + "," + otherModel, "", "model, frame size"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, _, b := e.do("GET", "/compare?"+tc.query, nil)
			if code != 200 {
				t.Fatalf("compare = %d %s", code, b)
			}
			page := string(b)
			v := regexp.MustCompile(`id="verdict">([^<]*)<`).FindStringSubmatch(page)
			if v == nil || !strings.Contains(v[1], tc.verdict) {
				t.Errorf("verdict = %v, want it to contain %q", v, tc.verdict)
			}
			hasBanner := strings.Contains(page, `id="incomparable"`)
			if hasBanner != (tc.incomparable != "") || !strings.Contains(page, tc.incomparable) {
				t.Errorf("incomparable banner = %v, want %q", hasBanner, tc.incomparable)
			}
			if !strings.Contains(page, "95 % CI") || !strings.Contains(page, `id="chart-dist-ttfp_ms"`) {
				t.Error("compare page lacks the CI column or the distribution chart")
			}
		})
	}
	// Seeded bootstrap: the same page twice is identical.
	_, _, a := e.do("GET", "/compare?ids="+base+","+slower, nil)
	_, _, b := e.do("GET", "/compare?ids="+base+","+slower, nil)
	if string(a) != string(b) {
		t.Error("compare page is not deterministic")
	}
	for _, bad := range []string{"ids=" + base + "," + base, "ids=" + base + "," + same + "," + base, "ids=" + base, "ids=" + base + ",nope", "ids=" + base + "," + strings.Repeat("q", 32), "ids=" + base + "," + same + "&threshold=-1"} {
		if c, _, _ := e.do("GET", "/compare?"+bad, nil); c < 400 || c >= 500 {
			t.Errorf("compare?%s = %d, want 4xx", bad, c)
		}
	}
}

func TestHistory(t *testing.T) {
	e := newEnv(t, nil)
	for i, m := range []string{"alpha", "beta", "alpha", "alpha"} {
		upload(t, e, fixture{model: m, n: 3, ttfp: float64(300 + 100*i), seed: uint64(i)}.json(t))
		e.clock.Advance(1e9)
	}
	_, _, b := e.do("GET", "/history", nil)
	page := string(b)
	if strings.Count(page, `<svg class="spark"`) != 2 || !strings.Contains(page, "3 runs · latest TTFP p50") {
		t.Errorf("history sparklines wrong:\n%s", page)
	}
	_, _, b = e.do("GET", "/history?model=beta", nil)
	if strings.Count(string(b), `>open</a>`) != 1 {
		t.Errorf("history?model=beta shows %d runs", strings.Count(string(b), `>open</a>`))
	}
	_, _, b = e.do("GET", "/history?q=ALPH", nil)
	if strings.Count(string(b), `>open</a>`) != 3 {
		t.Errorf("history?q=ALPH shows %d runs", strings.Count(string(b), `>open</a>`))
	}
}

// TestShardMerge: a run split in 4 shards is merged from the per-response
// rows (pooled), not by averaging the shards' summaries.
func TestShardMerge(t *testing.T) {
	e := newEnv(t, nil)
	// Shard sizes differ so averaged averages would be wrong.
	specs := []struct{ n, ttfp int }{{10, 200}, {1, 2000}, {5, 400}, {2, 800}}
	var all []float64
	upShard := func(i int) {
		sp := specs[i]
		f := fixture{model: "m", n: sp.n, ttfp: float64(sp.ttfp), seed: uint64(i), runID: "nightly-7",
			shard: &report.Shard{Index: i + 1, Count: 4}, session: fmt.Sprintf("s%d", i)}
		r := f.build(t)
		all = append(all, report.Values(r.Metrics.Requests, "ttfp_ms")...)
		code, _, b := e.do("POST", "/api/reports", f.json(t))
		if code != 201 || decode[server.UploadResponse](t, b).RunURL != "/runs/nightly-7" {
			t.Fatalf("shard %d upload = %d %s", i+1, code, b)
		}
	}
	for i := 0; i < 3; i++ {
		upShard(i)
	}
	run := decode[server.RunResponse](t, mustGet(t, e, "/api/runs/nightly-7"))
	if diff := cmp.Diff([]int{1, 2, 3}, run.ShardsReceived); diff != "" || run.ShardCount != 4 || run.Final || run.Report.Complete {
		t.Errorf("3 of 4: received %v count %d final %v complete %v", run.ShardsReceived, run.ShardCount, run.Final, run.Report.Complete)
	}
	_, _, page := e.do("GET", "/runs/nightly-7", nil)
	if !strings.Contains(string(page), "Shards received: 3 of 4 — not final") {
		t.Errorf("run page lacks the shard status")
	}
	upShard(3)
	run = decode[server.RunResponse](t, mustGet(t, e, "/api/runs/nightly-7"))
	if !run.Final || len(run.ShardsReceived) != 4 || len(run.Report.Metrics.Requests) != 18 {
		t.Fatalf("4 of 4: final %v received %v rows %d", run.Final, run.ShardsReceived, len(run.Report.Metrics.Requests))
	}
	want := report.Summarize(all, 3)
	got := run.Report.Metrics
	if *got.NumResponseTTFP != 18 || *got.MeanResponseTTFP != want.Mean || *got.MedianResponseTTFP != want.P50 || *got.P99ResponseTTFP != want.P99 {
		t.Errorf("merged TTFP n=%d mean=%v p50=%v p99=%v, want pooled %+v", *got.NumResponseTTFP, *got.MeanResponseTTFP, *got.MedianResponseTTFP, *got.P99ResponseTTFP, want)
	}
	// Averaged averages differ, so the test can tell them apart.
	var meanOfMeans float64
	for i := range specs {
		f := fixture{model: "m", n: specs[i].n, ttfp: float64(specs[i].ttfp), seed: uint64(i), session: fmt.Sprintf("s%d", i)}
		meanOfMeans += *f.build(t).Metrics.MeanResponseTTFP / 4
	}
	if d := meanOfMeans - want.Mean; d < 50 && d > -50 {
		t.Fatalf("fixture too weak: mean of means %v vs pooled %v", meanOfMeans, want.Mean)
	}
	if !strings.Contains(string(mustGet(t, e, "/runs/nightly-7")), "Shards received: 4 of 4 — final") {
		t.Error("final run page lacks the final status")
	}
	// A re-uploaded shard does not count twice.
	upShard(0)
	run = decode[server.RunResponse](t, mustGet(t, e, "/api/runs/nightly-7"))
	if len(run.Report.Metrics.Requests) != 18 {
		t.Errorf("after a duplicate shard: %d rows, want 18", len(run.Report.Metrics.Requests))
	}
	for _, p := range []string{"/api/runs/nope", "/runs/nope"} {
		if c, _, _ := e.do("GET", p, nil); c != 404 {
			t.Errorf("GET %s = %d", p, c)
		}
	}
	if c, _, _ := e.do("GET", "/api/runs/..%2Fx", nil); c != 400 {
		t.Errorf("bad run id = %d", c)
	}
}

func mustGet(t *testing.T, e *env, path string) []byte {
	t.Helper()
	code, _, b := e.do("GET", path, nil)
	if code != 200 {
		t.Fatalf("GET %s = %d %s", path, code, b)
	}
	return b
}
