package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/duplexscope/duplexscope/metrics"
	"github.com/duplexscope/duplexscope/trace"
)

// The oracle: how reports were built before FromMetrics (the metrics
// report written as JSON and decoded by New; run keys through
// metrics.ParseReport and back through JSON). FromMetrics, ComputeRunKeys
// and the exports must give the same bytes and the same typed values.

// oldBuild is New on dm's JSON: dm.MarshalJSON (CLI, load curves) or
// json.Marshal(dm) (the page, html).
func oldBuild(run Run, dm metrics.Report, html bool) (*Report, error) {
	var b []byte
	var err error
	if html {
		b, err = json.Marshal(dm)
	} else {
		b, err = dm.MarshalJSON()
	}
	if err != nil {
		return nil, err
	}
	return New(run, b)
}

func oldMetricsReport(rows []Row, sessions []SessionEntry) (*metrics.Report, error) {
	if rows == nil {
		rows = []Row{}
	}
	if sessions == nil {
		sessions = []SessionEntry{}
	}
	b, err := json.Marshal(struct {
		Requests []Row          `json:"duplex_request_metrics"`
		Sessions []SessionEntry `json:"duplex_session_metrics"`
	}{rows, sessions})
	if err != nil {
		return nil, err
	}
	return metrics.ParseReport(b)
}

func oldRunKeys(rows []Row, sessions []SessionEntry) RunKeys {
	mr, err := oldMetricsReport(rows, sessions)
	if err != nil {
		return RunKeys{}
	}
	b, err := mr.MarshalJSON()
	if err != nil {
		return RunKeys{}
	}
	var k RunKeys
	_ = json.Unmarshal(b, &k)
	return k
}

// metricsCase is one run's metrics.Report.
type metricsCase struct {
	name string
	dm   metrics.Report
	// own: every entry is this run's (no rows carried from a file).
	own bool
}

func decodeTrace(t testing.TB, path string) (trace.Document, error) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return trace.Decode(data)
}

// vectorCases scores every session and run vector (the golden ones and
// the edge ones, must_refuse included: their bad values are nulled).
func vectorCases(t testing.TB) []metricsCase {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "metrics", "testdata", "vectors", "*.trace.json"))
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, filepath.Join("..", "metrics", "testdata", "worked_11_3.trace.json"))
	if len(files) < 29 {
		t.Fatalf("found %d vectors, want the 8 public and the edge ones", len(files))
	}
	var out []metricsCase
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".trace.json")
		doc, err := decodeTrace(t, f)
		if err != nil {
			continue // must_refuse_kind_null: not a trace to score
		}
		switch {
		case doc.Session != nil:
			out = append(out, metricsCase{name, metrics.BuildReport([]metrics.SessionResult{metrics.ScoreSession(*doc.Session)}), true})
		case doc.Run != nil:
			var results []metrics.SessionResult
			for _, s := range doc.Run.Sessions {
				if !s.Skipped {
					results = append(results, metrics.ScoreSession(s))
				}
			}
			var existing *metrics.Report
			if ex := doc.Run.ExistingReport; doc.Run.HasExistingReport && len(ex) > 0 && string(ex) != "null" {
				if existing, err = metrics.ParseReport(ex); err != nil {
					t.Fatalf("%s: existing_report: %v", name, err)
				}
			}
			out = append(out, metricsCase{name, metrics.MergeReport(existing, results), existing == nil})
		}
	}
	return out
}

// carriedCases merge a session vector into earlier files whose entries
// the typed reader does not take (other types, keys encoding/json matches
// case-insensitively, characters json.Marshal escapes) or that New refused.
func carriedCases(t testing.TB) []metricsCase {
	t.Helper()
	doc, err := decodeTrace(t, filepath.Join("..", "metrics", "testdata", "vectors", "server_metrics_present.trace.json"))
	if err != nil {
		t.Fatal(err)
	}
	results := []metrics.SessionResult{metrics.ScoreSession(*doc.Session)}
	files := map[string]string{
		// One oddity per entry: the typed reader takes some, the JSON
		// decoder the others.
		"odd_rows": `{"duplex_request_metrics":[
			{"session_id":"a","request_index":0,"response_id":null,"TTFT_MS":5,"ttfp_ms":7},
			{"session_id":"b","request_index":1,"response_id":"r","ttft_ms":9007199254740993,"rtf":7},
			{"session_id":"c","request_index":2,"response_id":"r","stage0_tokens":{"output_token_count":123456789012345678901234567890,"itls_ms":[1,null,2.5],"Extra":1}},
			{"session_id":"d","request_index":3,"response_id":"r","stage0_tokens":{"source":"x","output_token_count":3.0}},
			{"session_id":"e","request_index":4,"response_id":"r","measurement_origin":{"ttft":"t","TTFP":"p"}},
			{"session_id":"f\u2028<&>","request_index":5,"response_id":"r","note":"<b>"},
			{"session_id":"g","request_index":6,"response_id":"r","rtf":1000000000000000000000000000000},
			{"session_id":"h","request_index":7,"response_id":"r","client_ttfp_ms":1e400,"ttft_ms":null}],
		 "duplex_session_metrics":[
			{"session_id":"a","audio_turn_count":1,"ttft_ms":{"count":2,"mean":1,"P50":3},"ttfp_ms":null,"rtf":null},
			{"session_id":"b","audio_turn_count":1,"ttft_ms":null,"ttfp_ms":null,"rtf":{"count":1,"mean":0.5,"p50":0.5,"p99":0.5,"p95":1}},
			{"session_id":"c","audio_turn_count":1,"ttft_ms":null,"ttfp_ms":null,"rtf":null,"stream_rtf":3},
			{"session_id":"d","audio_turn_count":1,"ttft_ms":null,"ttfp_ms":null,"rtf":null,"stream_measurement_origin":{"ttft":"a","Rtf":"b"}}]}`,
		"overflowing_means": `{"duplex_request_metrics":[{"session_id":"s","request_index":0,"response_id":"r","ttft_ms":1.7e308},{"session_id":"s","request_index":1,"response_id":"r2","ttft_ms":1.7e308}],
		 "duplex_session_metrics":[{"session_id":"s","audio_turn_count":1,"ttft_ms":null,"ttfp_ms":null,"rtf":null,"stream_ttft_ms":1.7e308},{"session_id":"t","audio_turn_count":1,"ttft_ms":null,"ttfp_ms":null,"rtf":null,"stream_ttft_ms":1.7e308}]}`,
		"index_not_int":   `{"duplex_request_metrics":[{"session_id":"s","request_index":1.5,"response_id":"r"}]}`,
		"string_latency":  `{"duplex_request_metrics":[{"session_id":"s","request_index":1,"response_id":"r","ttft_ms":"fast"}]}`,
		"sample_id_int":   `{"duplex_request_metrics":[{"sample_id":5,"split":"x","session_id":"s","request_index":1,"response_id":"r"}]}`,
		"turns_string":    `{"duplex_session_metrics":[{"session_id":"s","audio_turn_count":"x","ttft_ms":null,"ttfp_ms":null,"rtf":null}]}`,
		"summary_boolean": `{"duplex_session_metrics":[{"session_id":"s","audio_turn_count":1,"ttft_ms":{"count":true},"ttfp_ms":null,"rtf":null}]}`,
	}
	// Strings that are not UTF-8 (a lone surrogate kept by the wire decoder,
	// a stray byte) are written as escapes that read back as U+FFFD.
	odd, split := "s\xed\xa0\x80", "\xff<"
	res := results[0]
	res.Rows = append([]metrics.Row(nil), res.Rows...)
	res.Rows[0].SessionID, res.Rows[0].HasSample, res.Rows[0].SampleID, res.Rows[0].Split = &odd, true, &odd, &split
	res.Summary.SessionID = &odd
	out := []metricsCase{{"not_utf8", metrics.BuildReport([]metrics.SessionResult{res}), true}}
	for name, f := range files {
		existing, err := metrics.ParseReport([]byte(f))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out = append(out, metricsCase{"carried_" + name, metrics.MergeReport(existing, results), false})
	}
	return out
}

// typedRow is a row's typed fields alone.
func typedRow(r Row) rowAlias {
	a := rowAlias(r)
	a.raw, a.obj = nil, nil
	return a
}

func typedSession(s SessionEntry) sessionAlias {
	a := sessionAlias(s)
	a.raw, a.obj = nil, nil
	return a
}

// TestFromMetricsMatchesJSON: over every vector and the carried-over
// cases, FromMetrics (and FromMetricsHTML) build what New built from the
// metrics report's JSON: the same typed rows, session entries and run keys,
// the same row JSON, the same error; then, after Finish, the same report
// JSON, duplex_metrics.json export, save-result and CSV, and run keys equal
// to the old ComputeRunKeys.
func TestFromMetricsMatchesJSON(t *testing.T) {
	run := Run{TargetURL: "ws://x/v1/realtime", Model: "m", FrameMs: 200, Version: "test", Client: ClientCLI, Source: Source{Kind: SourceDataset, Dataset: "d"}}
	cases := append(vectorCases(t), carriedCases(t)...)
	errs := 0
	for _, tc := range cases {
		for _, html := range []bool{false, true} {
			t.Run(tc.name+map[bool]string{false: "", true: "/html"}[html], func(t *testing.T) {
				want, werr := oldBuild(run, tc.dm, html)
				build := FromMetrics
				if html {
					build = FromMetricsHTML
				}
				got, gerr := build(run, tc.dm)
				if werr != nil || gerr != nil {
					if werr == nil || gerr == nil || werr.Error() != gerr.Error() {
						t.Fatalf("error = %v, want %v", gerr, werr)
					}
					errs++
					return
				}
				compareMetrics(t, got.Metrics, want.Metrics)
				if tc.own && !html && !strings.Contains(tc.name, "surrogate") && tc.name != "not_utf8" {
					for i, r := range got.Metrics.Requests {
						if r.raw != nil || r.obj == nil {
							t.Errorf("row %d was decoded from JSON, not read from its metrics object", i)
						}
					}
				}
				if k := oldRunKeys(want.Metrics.Requests, want.Metrics.Sessions); !reflect.DeepEqual(ComputeRunKeys(got.Metrics.Requests, got.Metrics.Sessions), k) ||
					!reflect.DeepEqual(ComputeRunKeys(want.Metrics.Requests, want.Metrics.Sessions), k) {
					t.Errorf("ComputeRunKeys differs from the JSON round trip's %+v", k)
				}
				Finish(got)
				Finish(want)
				compareOutputs(t, got, want)
			})
		}
	}
	if errs == 0 {
		t.Error("no case exercised New's refusal")
	}
}

func compareMetrics(t *testing.T, got, want Metrics) {
	t.Helper()
	if len(got.Requests) != len(want.Requests) || len(got.Sessions) != len(want.Sessions) {
		t.Fatalf("%d rows, %d sessions; want %d, %d", len(got.Requests), len(got.Sessions), len(want.Requests), len(want.Sessions))
	}
	for i := range want.Requests {
		g, w := got.Requests[i], want.Requests[i]
		if !reflect.DeepEqual(typedRow(g), typedRow(w)) {
			t.Errorf("row %d typed:\n%+v\nwant\n%+v", i, typedRow(g), typedRow(w))
		}
		if !bytes.Equal(g.Raw(), w.Raw()) {
			t.Errorf("row %d JSON:\n%s\nwant\n%s", i, g.Raw(), w.Raw())
		}
	}
	for i := range want.Sessions {
		g, w := got.Sessions[i], want.Sessions[i]
		if !reflect.DeepEqual(typedSession(g), typedSession(w)) {
			t.Errorf("session %d typed:\n%+v\nwant\n%+v", i, typedSession(g), typedSession(w))
		}
		gb, _ := g.MarshalJSON()
		wb, _ := w.MarshalJSON()
		if !bytes.Equal(gb, wb) {
			t.Errorf("session %d JSON:\n%s\nwant\n%s", i, gb, wb)
		}
	}
	if !reflect.DeepEqual(got.RunKeys, want.RunKeys) {
		t.Errorf("run keys %+v, want %+v", got.RunKeys, want.RunKeys)
	}
}

func compareOutputs(t *testing.T, got, want *Report) {
	t.Helper()
	outputs := map[string]func(*Report) ([]byte, error){
		"MarshalIndent": MarshalIndent,
		"json.Marshal":  func(r *Report) ([]byte, error) { return json.Marshal(r) },
		"VLLM":          VLLM,
		"SaveResult":    func(r *Report) ([]byte, error) { return SaveResult(r, SaveResultOptions{Date: "20260101-000000"}) },
		"CSV":           func(r *Report) ([]byte, error) { var b bytes.Buffer; err := CSV(&b, r); return b.Bytes(), err },
	}
	for name, out := range outputs {
		g, gerr := out(got)
		w, werr := out(want)
		if fmt.Sprint(gerr) != fmt.Sprint(werr) || !bytes.Equal(g, w) { // the same refusal is the same output
			t.Errorf("%s differs (errors %v, %v):\n%s\nwant\n%s", name, gerr, werr, g, w)
		}
	}
	mr, err := oldMetricsReport(want.Metrics.Requests, want.Metrics.Sessions)
	if err != nil {
		t.Fatal(err)
	}
	if g, _ := VLLM(got); !bytes.Equal(g, mr.File()) {
		t.Errorf("VLLM differs from the JSON round trip's:\n%s\nwant\n%s", g, mr.File())
	}
}

// TestComputeRunKeysJSONInputs: for rows that really are JSON (imports,
// stored reports, rows built in Go without JSON), ComputeRunKeys gives
// what the JSON round trip gave.
func TestComputeRunKeysJSONInputs(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.json"))
	if len(files) < 2 {
		t.Fatalf("found %d example files", len(files))
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		m, err := ParseMetrics(b)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if len(m.Requests)+len(m.Sessions) == 0 {
			continue
		}
		if got, want := ComputeRunKeys(m.Requests, m.Sessions), oldRunKeys(m.Requests, m.Sessions); !reflect.DeepEqual(got, want) || reflect.DeepEqual(got, RunKeys{}) {
			t.Errorf("%s: run keys %+v, want %+v", f, got, want)
		}
	}
	ttft, bad := 5.0, 1.0
	rows := []Row{{SessionID: new(string), ResponseID: new(string), TTFTMs: &ttft}}
	if got, want := ComputeRunKeys(rows, nil), oldRunKeys(rows, nil); !reflect.DeepEqual(got, want) || got.NumResponseTTFT == nil {
		t.Errorf("rows built in Go: %+v, want %+v", got, want)
	}
	bad = 0 / zero
	rows[0].TTFTMs = &bad
	if got := ComputeRunKeys(rows, nil); !reflect.DeepEqual(got, RunKeys{}) || !reflect.DeepEqual(oldRunKeys(rows, nil), RunKeys{}) {
		t.Errorf("a NaN row built in Go: %+v, want none (it has no JSON)", got)
	}
}

var zero float64

// BenchmarkReportBuild builds and writes the report of one vector's run
// both ways: json (the metrics report written as JSON, decoded, run keys
// through JSON twice as New and Finish did) and typed (FromMetrics, run
// keys from the kept objects); both end in MarshalIndent, as the page's
// upload and the CLI's report.json do.
func BenchmarkReportBuild(b *testing.B) {
	run := Run{TargetURL: "ws://x/v1/realtime", Model: "m", FrameMs: 200, Version: "test", Client: ClientBrowser, Source: Source{Kind: SourceMic}}
	paths := []struct {
		name  string
		build func(metrics.Report) []byte
	}{
		{"json", func(dm metrics.Report) []byte {
			r, err := oldBuild(run, dm, true)
			if err != nil {
				b.Fatal(err)
			}
			r.Metrics.RunKeys = oldRunKeys(r.Metrics.Requests, r.Metrics.Sessions) // Finish
			out, _ := MarshalIndent(r)
			return out
		}},
		{"typed", func(dm metrics.Report) []byte {
			r, err := FromMetricsHTML(run, dm)
			if err != nil {
				b.Fatal(err)
			}
			r.Metrics.RunKeys = ComputeRunKeys(r.Metrics.Requests, r.Metrics.Sessions) // Finish
			out, _ := MarshalIndent(r)
			return out
		}},
	}
	doc, err := decodeTrace(b, filepath.Join("..", "metrics", "testdata", "vectors", "multi_turn_client_fallback.trace.json"))
	if err != nil {
		b.Fatal(err)
	}
	many := make([]metrics.SessionResult, 100) // a dataset run's 100 sessions
	for i := range many {
		many[i] = metrics.ScoreSession(*doc.Session)
	}
	cases := append(vectorCases(b), metricsCase{name: "100_sessions", dm: metrics.BuildReport(many)})
	for _, tc := range cases {
		if tc.name != "multi_turn_client_fallback" && tc.name != "run_three_sessions" && tc.name != "100_sessions" {
			continue
		}
		if !bytes.Equal(paths[0].build(tc.dm), paths[1].build(tc.dm)) {
			b.Fatalf("%s: the two paths write different reports", tc.name)
		}
		for _, p := range paths {
			b.Run(tc.name+"/"+p.name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					p.build(tc.dm)
				}
			})
		}
	}
}
