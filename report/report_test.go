package report_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/duplexscope/duplexscope/internal/golden"
	"github.com/duplexscope/duplexscope/metrics/conformance"
	"github.com/duplexscope/duplexscope/report"
	"github.com/google/go-cmp/cmp"
)

func read(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func f64(v float64) *float64 { return &v }
func i(v int) *int           { return &v }

// TestImportDuplexMetrics imports the reference's example
// duplex_metrics.json (docs/metrics.md#report-file) and checks that the
// recomputed run keys equal the file's own.
func TestImportDuplexMetrics(t *testing.T) {
	in := read(t, "duplex_metrics.example.json")
	r, err := report.Import(in, report.DefaultLimits, report.ImportOptions{Model: "minicpm-o-4.5"})
	if err != nil {
		t.Fatal(err)
	}
	if r.Imported.Format != report.FormatDuplexMetrics || r.Run.Model != "minicpm-o-4.5" || r.Run.Client != report.ClientImport {
		t.Errorf("imported = %+v run %+v", r.Imported, r.Run)
	}
	if len(r.Metrics.Requests) != 2 || len(r.Metrics.Sessions) != 1 {
		t.Fatalf("rows %d sessions %d", len(r.Metrics.Requests), len(r.Metrics.Sessions))
	}
	var file report.RunKeys
	if err := json.Unmarshal(in, &file); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(file, r.Metrics.RunKeys); diff != "" {
		t.Errorf("run keys recomputed from rows differ from the file's (-file +recomputed):\n%s", diff)
	}
	want := report.RunKeys{MeanResponseTTFT: f64(381.25), NumClientTTFP: i(2), MeanClientTTFP: f64(310.0)}
	if *r.Metrics.MeanResponseTTFT != *want.MeanResponseTTFT || *r.Metrics.NumClientTTFP != 2 || *r.Metrics.MeanClientTTFP != 310 {
		t.Errorf("run keys = %+v", r.Metrics.RunKeys)
	}
	// Rows keep their exact JSON.
	var orig struct {
		Rows []json.RawMessage `json:"duplex_request_metrics"`
	}
	json.Unmarshal(in, &orig)
	if !bytes.Equal(orig.Rows[0], r.Metrics.Requests[0].Raw()) {
		t.Errorf("row 0 changed:\n%s\nwant\n%s", r.Metrics.Requests[0].Raw(), orig.Rows[0])
	}
	// Nothing in the file is lost: the vLLM export equals the input as JSON.
	out, err := report.VLLM(r)
	if err != nil {
		t.Fatal(err)
	}
	var a, b any
	json.Unmarshal(in, &a)
	if err := json.Unmarshal(out, &b); err != nil {
		t.Fatalf("export is not JSON: %v\n%s", err, out)
	}
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("vllm export differs from the imported file (-in +out):\n%s", diff)
	}
	golden.Check(t, "json", out)
}

func TestImportSaveResult(t *testing.T) {
	in := read(t, "omniinteract_result.example.json")
	r, err := report.Import(in, report.DefaultLimits, report.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Imported.Format != report.FormatSaveResult || r.Run.Model != "unknown" {
		t.Errorf("imported %+v model %q", r.Imported, r.Run.Model)
	}
	if len(r.Metrics.Sessions) != 2 || len(r.Metrics.Requests) != 0 {
		t.Fatalf("sessions %d rows %d", len(r.Metrics.Sessions), len(r.Metrics.Requests))
	}
	want := &report.Summary{Count: 2, Mean: 2644.344, P50: 2611.569, P99: 2677.119}
	if diff := cmp.Diff(want, r.Metrics.StreamTTFT); diff != "" {
		t.Errorf("duplex_stream_ttft_ms (-want +got):\n%s", diff)
	}
	if r.Metrics.StreamRTF == nil || r.Metrics.StreamRTF.Mean != 2.454154 {
		t.Errorf("duplex_stream_rtf = %+v", r.Metrics.StreamRTF)
	}
	if s := r.Metrics.Sessions[1]; s.TTFPMs == nil || s.TTFPMs.P50 != 669.412 || *s.StreamAudioDurationMs != 91960 {
		t.Errorf("session 1 = %+v", s)
	}
}

func TestImportRejects(t *testing.T) {
	cases := []struct {
		name, in, want string
	}{
		{"neither format", `{"results": []}`, "not a vLLM"},
		{"not an object", `[1,2]`, "top level must be a JSON object"},
		{"rows not a list", `{"duplex_request_metrics": {"a": 1}}`, "duplex_request_metrics: must be a JSON list"},
		{"NaN outside a row", `{"duplex_request_metrics": {"ttft_ms": NaN}}`, "NaN"},
		{"NaN in an unknown key", `{"hostile": NaN, "duplex_request_metrics": []}`, "NaN"},
		{"1e999 in an unknown key", `{"hostile": 1e999, "duplex_session_metrics": []}`, "out of float64 range"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := report.Import([]byte(tc.in), report.DefaultLimits, report.ImportOptions{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Import = %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

// validReport is a minimal valid upload; tests break one field at a time.
const validReport = `{"schema":"duplexscope.report/v1","complete":true,
"run":{"target_url":"ws://127.0.0.1:8080/v1/realtime","model":"sim","frame_ms":200,"duplexscope_version":"dev","client":"browser","machine":{},"source":{"kind":"mic"}},
"metrics":{"duplex_request_metrics":[{"session_id":"s","request_index":0,"response_id":"r0","source":"client_monotonic_receive","ttft_ms":100.0,"ttfp_ms":200.0,"audio_generation_ms":900.0,"audio_duration_ms":1000.0,"rtf":0.9,"client_ttft_ms":100.0,"client_ttfp_ms":200.0}],"duplex_session_metrics":[]}}`

// beyondFields are the optional issue-11 fields, all set.
const beyondFields = `"turn_taking":{"rule":"energy","clock":"trace ms","scores":[{"category":"pause","cases":1,"takeovers":1,"tor":1,"latency_count":1,"latency_mean_ms":412.5,"lower_is_better":true}],
"cases":[{"sample_id":"pause","split":"turntaking","id":"pause","category":"pause","label_anchor_ms":2190,"anchor_ms":2700.5,"window_ms":1000,"anchor_source":"vad","took_turn":true,"onset_ms":3113,"latency_ms":412.5}]},
"probes":[{"kind":"interruption","clip":"builtin:math","offset_s":3.4,"onset_ms":4000,"active_response_id":"r1","stopped_by":"cleared","stop_latency_ms":92.1,"played_ms":640,"committed_ms":600,"received_ms":1200,"resume_after_ms":800,"next_response_ms":900,"clock":"client"}],
"load_curve":{"clock":"client","levels":[{"sessions":1,"failed":0,"responses":2,"ttfp_p50_ms":30.5,"ttfp_p99_ms":31,"ttfp_origin":"server","rtf_p50":0.25,"pacing_lag_p99_ms":1.5,"pacing_lag_max_ms":2,"underruns":0,"join_ttfp_ms":null,"wall_s":3.2,"cpu_s_per_session":0.1,"peak_heap_mib":12}]}`

func TestDecode(t *testing.T) {
	deep := strings.Repeat(`{"a":`, 40) + "1" + strings.Repeat("}", 40)
	bigArray := `[` + strings.Repeat(`0,`, 300) + `0]`
	cases := []struct {
		name     string
		edit     func(string) string
		lim      *report.Limits
		wantPath string // "" = valid
		wantText string
	}{
		{name: "valid", edit: func(s string) string { return s }},
		{name: "wrong schema", edit: func(s string) string { return strings.Replace(s, "report/v1", "report/v9", 1) }, wantPath: "schema"},
		{name: "missing model", edit: func(s string) string { return strings.Replace(s, `"model":"sim"`, `"model":""`, 1) }, wantPath: "run.model", wantText: "required"},
		{name: "bad client", edit: func(s string) string { return strings.Replace(s, `"browser"`, `"toaster"`, 1) }, wantPath: "run.client"},
		{name: "unknown field", edit: func(s string) string { return strings.Replace(s, `"complete":true`, `"complete":true,"evil":1`, 1) }, wantPath: "evil", wantText: "unknown field"},
		{name: "NaN", edit: func(s string) string { return strings.Replace(s, `"ttft_ms":100.0`, `"ttft_ms":NaN`, 1) }, wantPath: "ttft_ms", wantText: "non-finite"},
		{name: "Infinity", edit: func(s string) string { return strings.Replace(s, `"rtf":0.9`, `"rtf":-Infinity`, 1) }, wantPath: "rtf", wantText: "malformed number"},
		{name: "overflow", edit: func(s string) string { return strings.Replace(s, `"rtf":0.9`, `"rtf":1e400`, 1) }, wantPath: "rtf", wantText: "out of float64 range"},
		{name: "invalid UTF-8", edit: func(s string) string { return strings.Replace(s, `"sim"`, "\"s\xffm\"", 1) }, wantText: "invalid UTF-8 at byte offset"},
		{name: "deep nesting", edit: func(s string) string { return strings.Replace(s, `"machine":{}`, `"machine":`+deep, 1) }, wantText: "nesting deeper than 32"},
		{name: "huge array", edit: func(s string) string {
			return strings.Replace(s, `"duplex_session_metrics":[]`, `"duplex_session_metrics":`+bigArray, 1)
		}, lim: &report.Limits{MaxBytes: 1 << 20, MaxDepth: 32, MaxArray: 100, MaxString: 1000}, wantText: "array longer than 100"},
		{name: "oversize", edit: func(s string) string { return s }, lim: &report.Limits{MaxBytes: 100}, wantText: "limit is 100"},
		{name: "long string", edit: func(s string) string { return strings.Replace(s, `"sim"`, `"`+strings.Repeat("x", 2000)+`"`, 1) },
			lim: &report.Limits{MaxString: 1000}, wantPath: "model", wantText: "string of 2000 bytes"},
		{name: "shard without run id", edit: func(s string) string {
			return strings.Replace(s, `"frame_ms":200`, `"frame_ms":200,"shard":{"index":1,"count":2}`, 1)
		}, wantPath: "run.shard"},
		{name: "shard index out of range", edit: func(s string) string {
			return strings.Replace(s, `"frame_ms":200`, `"frame_ms":200,"run_id":"r1","shard":{"index":3,"count":2}`, 1)
		}, wantPath: "run.shard.index"},
		{name: "run id with a path", edit: func(s string) string {
			return strings.Replace(s, `"frame_ms":200`, `"frame_ms":200,"run_id":"../etc"`, 1)
		}, wantPath: "run.run_id"},
		{name: "attachment path trick", edit: func(s string) string {
			return strings.Replace(s, `"complete":true`, `"complete":true,"attachments":[{"name":"../../x","kind":"wire_log"}]`, 1)
		}, wantPath: "attachments[0].name"},
		{name: "unknown warning", edit: func(s string) string {
			return strings.Replace(s, `"complete":true`, `"complete":true,"warnings":[{"code":"pwned","message":"x"}]`, 1)
		}, wantPath: "warnings[0].code"},
		{name: "turn-taking, probes and load curve", edit: func(s string) string {
			return strings.Replace(s, `"complete":true`, `"complete":true,`+beyondFields, 1)
		}},
		{name: "takeovers above cases", edit: func(s string) string {
			return strings.Replace(s, `"complete":true`, `"complete":true,`+strings.Replace(beyondFields, `"takeovers":1`, `"takeovers":2`, 1), 1)
		}, wantPath: "turn_taking.scores[0]"},
		{name: "unknown turn-taking category", edit: func(s string) string {
			return strings.Replace(s, `"complete":true`, `"complete":true,`+strings.Replace(beyondFields, `"category":"pause","label`, `"category":"chat","label`, 1), 1)
		}, wantPath: "turn_taking.cases[0].category"},
		{name: "unknown probe field", edit: func(s string) string {
			return strings.Replace(s, `"complete":true`, `"complete":true,`+strings.Replace(beyondFields, `"stopped_by":"cleared"`, `"stopped_by":"cleared","x":1`, 1), 1)
		}, wantPath: "x", wantText: "unknown field"},
		{name: "string where number", edit: func(s string) string { return strings.Replace(s, `"frame_ms":200`, `"frame_ms":"200"`, 1) }, wantPath: "run.frame_ms", wantText: "want int"},
		{name: "trailing data", edit: func(s string) string { return s + `{}` }, wantText: "trailing data"},
		{name: "script in strings is data", edit: func(s string) string {
			return strings.Replace(s, `"model":"sim"`, `"model":"<script>alert(1)</script>","profile":"\"><img src=x onerror=alert(1)>"`, 1)
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			lim := report.DefaultLimits
			if tc.lim != nil {
				lim = *tc.lim
			}
			r, err := report.Decode([]byte(tc.edit(validReport)), lim)
			if tc.wantPath == "" && tc.wantText == "" {
				if err != nil {
					t.Fatalf("Decode: %v", err)
				}
				if r.Run.Model == "" {
					t.Error("decoded report has no model")
				}
				return
			}
			var ve *report.ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("Decode = %v, want a *ValidationError", err)
			}
			found := false
			for _, fe := range ve.Errors {
				if strings.Contains(fe.Path, tc.wantPath) && strings.Contains(fe.Reason, tc.wantText) {
					found = true
				}
			}
			if !found {
				t.Errorf("errors %v lack path %q with reason containing %q", ve.Errors, tc.wantPath, tc.wantText)
			}
		})
	}
}

func row(session string, idx int, ttfp float64) string {
	return fmt.Sprintf(`{"session_id":%q,"request_index":%d,"response_id":"r%d","source":"client_monotonic_receive","ttft_ms":%v,"ttfp_ms":%v,"audio_generation_ms":900.0,"audio_duration_ms":1000.0,"rtf":0.9,"client_ttft_ms":%v,"client_ttfp_ms":%v}`,
		session, idx, idx, ttfp/2, ttfp, ttfp/2, ttfp)
}

func shard(t *testing.T, idx, count int, session string, ttfps ...float64) *report.Report {
	t.Helper()
	var rows []string
	for k, v := range ttfps {
		rows = append(rows, row(session, k, v))
	}
	r, err := report.New(report.Run{Model: "sim", Client: report.ClientCLI, Source: report.Source{Kind: report.SourceDataset, Dataset: "builtin"}, FrameMs: 200,
		RunID: "run-1", Shard: &report.Shard{Index: idx, Count: count}},
		[]byte(`{"duplex_request_metrics":[`+strings.Join(rows, ",")+`],"duplex_session_metrics":[{"session_id":"`+session+`","audio_turn_count":1,"ttft_ms":null,"ttfp_ms":null,"rtf":null,"stream_ttfp_ms":`+fmt.Sprint(ttfps[0]+1000)+`}]}`))
	if err != nil {
		t.Fatal(err)
	}
	report.Finish(r)
	return r
}

// TestMergeShards: run keys come from the pooled rows, not from the
// shards' summaries (averaged averages would give 250 here, not 175).
func TestMergeShards(t *testing.T) {
	a := shard(t, 1, 3, "s1", 100, 100, 100)
	b := shard(t, 2, 3, "s2", 400)
	if *a.Metrics.MeanResponseTTFP != 100 || *b.Metrics.MeanResponseTTFP != 400 {
		t.Fatal("fixture means wrong")
	}
	m, got, err := report.MergeShards([]*report.Report{b, a, b})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != "[1 2]" {
		t.Errorf("received = %v, want [1 2]", got)
	}
	if m.Complete {
		t.Error("merged run with 2 of 3 shards is complete")
	}
	want := report.RunKeys{
		StreamTTFP:      &report.Summary{Count: 2, Mean: 1250, P50: 1100, P99: 1400},
		NumResponseTTFT: i(4), MeanResponseTTFT: f64(87.5), MedianResponseTTFT: f64(50), P99ResponseTTFT: f64(200),
		NumResponseTTFP: i(4), MeanResponseTTFP: f64(175), MedianResponseTTFP: f64(100), P99ResponseTTFP: f64(400),
		NumClientTTFT: i(4), MeanClientTTFT: f64(87.5), MedianClientTTFT: f64(50), P99ClientTTFT: f64(200),
		NumClientTTFP: i(4), MeanClientTTFP: f64(175), MedianClientTTFP: f64(100), P99ClientTTFP: f64(400),
	}
	if diff := cmp.Diff(want, m.Metrics.RunKeys); diff != "" {
		t.Errorf("merged run keys (-want +got):\n%s", diff)
	}
	if len(m.Metrics.Requests) != 4 || *m.Metrics.Requests[0].SessionID != "s1" {
		t.Errorf("merged rows = %d, first session %v", len(m.Metrics.Requests), *m.Metrics.Requests[0].SessionID)
	}
	c := shard(t, 3, 3, "s3", 700)
	m, got, _ = report.MergeShards([]*report.Report{a, b, c})
	if !m.Complete || len(got) != 3 || *m.Metrics.MeanResponseTTFP != 280 {
		t.Errorf("3 of 3: complete=%v received=%v mean=%v", m.Complete, got, *m.Metrics.MeanResponseTTFP)
	}
	other := shard(t, 1, 3, "x", 1)
	other.Run.RunID = "run-2"
	if _, _, err := report.MergeShards([]*report.Report{a, other}); err == nil {
		t.Error("merging different runs: no error")
	}
}

func TestCSV(t *testing.T) {
	r, err := report.Decode([]byte(strings.Replace(validReport, `"session_id":"s"`, `"session_id":"=HYPERLINK(\"x\")"`, 1)), report.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	r.Responses = []report.ResponseExtra{{SessionID: `=HYPERLINK("x")`, ResponseID: "r0", HeardTTFPMs: f64(250.5), HeardOrigin: "playback clock"}}
	var buf bytes.Buffer
	if err := report.CSV(&buf, r); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "csv", buf.Bytes())
}

func TestFinishWarnings(t *testing.T) {
	r, err := report.Decode([]byte(validReport), report.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	r.Sessions = []report.SessionExtra{{SessionID: "s", Complete: false, Error: "disconnect mid-response"}}
	report.Finish(r)
	report.Finish(r) // idempotent
	var codes []string
	for _, w := range r.Warnings {
		codes = append(codes, w.Code)
	}
	if diff := cmp.Diff([]string{report.WarnServerMetricsMissing, report.WarnIncompleteSession}, codes); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
	if r.Complete {
		t.Error("report with an incomplete session is complete")
	}
}

// TestMergeShardsTurnTaking: turn-taking cases pool across shards and the
// cards are recomputed from them (TOR 1/2, latency mean over the one
// takeover), probes are concatenated.
func TestMergeShardsTurnTaking(t *testing.T) {
	a, b := shard(t, 1, 2, "s1", 100), shard(t, 2, 2, "s2", 200)
	tcase := func(took bool, lat float64) report.TurnTakingCase {
		c := report.TurnTakingCase{SampleID: "x", Split: "turntaking", ID: "p", Category: "pause", AnchorSource: "vad", TookTurn: took}
		if took {
			c.OnsetMs, c.LatencyMs = f64(1000+lat), f64(lat)
		}
		return c
	}
	a.TurnTaking = &report.TurnTaking{Rule: "energy", Clock: "trace", Cases: []report.TurnTakingCase{tcase(true, 300)}}
	b.TurnTaking = &report.TurnTaking{Rule: "energy", Clock: "trace", Cases: []report.TurnTakingCase{tcase(false, 0)}}
	b.Probes = []report.Probe{{Kind: "noise", Clip: "noise", Clock: "c"}}
	m, _, err := report.MergeShards([]*report.Report{b, a})
	if err != nil {
		t.Fatal(err)
	}
	if m.TurnTaking == nil || len(m.TurnTaking.Cases) != 2 || len(m.TurnTaking.Scores) != 1 {
		t.Fatalf("merged turn_taking %+v", m.TurnTaking)
	}
	c := m.TurnTaking.Scores[0]
	if c.Cases != 2 || c.Takeovers != 1 || *c.TOR != 0.5 || c.LatencyCount != 1 || *c.LatencyMeanMs != 300 || !c.LowerIsBetter {
		t.Errorf("merged card %+v", c)
	}
	if len(m.Probes) != 1 {
		t.Errorf("merged probes %+v", m.Probes)
	}
	if err := report.Validate(m, report.DefaultLimits); err != nil {
		t.Errorf("merged report invalid: %v", err)
	}
}

// TestImportNonFinite: a vLLM file with Python's NaN/Infinity (or a literal
// beyond float64) is imported, not lost: each such value becomes null and
// gets an invalid_server_value warning naming its path; files without them
// keep their exact bytes.
func TestImportNonFinite(t *testing.T) {
	cases := []struct {
		name, in string
		paths    []string
		nulls    []string
	}{
		{"NaN in a row", `{"duplex_request_metrics": [{"session_id": "s", "request_index": 0, "response_id": "r", "ttft_ms": NaN, "ttfp_ms": 5}], "duplex_session_metrics": []}`,
			[]string{"duplex_request_metrics[0].ttft_ms"}, []string{`"ttft_ms":null`}},
		{"huge number in a session", `{"duplex_session_metrics": [{"session_id": "s", "audio_turn_count": 0, "ttft_ms": null, "ttfp_ms": null, "rtf": null, "stream_rtf": 1e999}]}`,
			[]string{"duplex_session_metrics[0].stream_rtf"}, nil},
		{"Infinity twice", `{"duplex_request_metrics": [{"session_id": "s", "request_index": 0, "response_id": "r", "ttfp_ms": Infinity, "rtf": -Infinity}]}`,
			[]string{"duplex_request_metrics[0].ttfp_ms", "duplex_request_metrics[0].rtf"}, []string{`"ttfp_ms":null`, `"rtf":null`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, err := report.Import([]byte(tc.in), report.DefaultLimits, report.ImportOptions{})
			if err != nil {
				t.Fatalf("Import: %v", err)
			}
			var msgs []string
			for _, w := range r.Warnings {
				if w.Code == report.WarnInvalidValue {
					msgs = append(msgs, w.Message)
				}
			}
			if len(msgs) != len(tc.paths) {
				t.Fatalf("invalid-value warnings %q, want one per %q", msgs, tc.paths)
			}
			for i, p := range tc.paths {
				if !strings.Contains(msgs[i], p) {
					t.Errorf("warning %q does not name %s", msgs[i], p)
				}
			}
			b, err := report.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			if err := conformance.StrictJSON(b); err != nil {
				t.Errorf("report JSON: %v", err)
			}
			for _, n := range tc.nulls {
				if !strings.Contains(string(b), n) {
					t.Errorf("report lacks %s: %s", n, b)
				}
			}
		})
	}
	clean := `{"duplex_request_metrics": [{"session_id": "s", "request_index": 0, "response_id": "r", "ttft_ms": 1e-7}], "duplex_session_metrics": []}`
	r, err := report.Import([]byte(clean), report.DefaultLimits, report.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := string(r.Metrics.Requests[0].Raw()); got != `{"session_id": "s", "request_index": 0, "response_id": "r", "ttft_ms": 1e-7}` {
		t.Errorf("a finite file's row changed: %s", got)
	}
}
