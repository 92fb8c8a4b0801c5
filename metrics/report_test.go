package metrics_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/duplexscope/duplexscope/internal/golden"
	"github.com/duplexscope/duplexscope/metrics"
	"github.com/duplexscope/duplexscope/trace"
)

func mustObj(t *testing.T, s string) metrics.Object {
	t.Helper()
	o, err := metrics.ParseObject([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// TestFlattenedKeys is the reference unit test of docs/metrics.md#pooled-per-response-keys.
func TestFlattenedKeys(t *testing.T) {
	t.Parallel()
	rows := []metrics.Object{
		mustObj(t, `{"ttft_ms": 10, "client_ttft_ms": 100}`),
		mustObj(t, `{"ttft_ms": 10, "client_ttft_ms": 100}`),
		mustObj(t, `{"ttft_ms": 10, "client_ttft_ms": 100}`),
		mustObj(t, `{"ttft_ms": 50, "client_ttft_ms": 500}`),
		mustObj(t, `{"ttft_ms": null, "client_ttft_ms": "NaN", "ttfp_ms": true}`),
	}
	checkPaths(t, mustJSON(t, metrics.NewReport(rows, nil)), map[string]string{
		"num_duplex_response_ttft_ms_samples": `4`, "mean_duplex_response_ttft_ms": `20.0`,
		"median_duplex_response_ttft_ms": `10.0`, "p99_duplex_response_ttft_ms": `50.0`,
		"num_duplex_client_ttft_ms_samples": `4`, "mean_duplex_client_ttft_ms": `200.0`,
		"median_duplex_client_ttft_ms": `100.0`, "p99_duplex_client_ttft_ms": `500.0`,
		"num_duplex_response_ttfp_ms_samples": absent, "duplex_stream_ttft_ms": absent,
	})
	if got := string(mustJSON(t, metrics.NewReport(nil, nil))); got != `{"duplex_request_metrics":[],"duplex_session_metrics":[]}` {
		t.Errorf("empty report = %s", got)
	}
}

func TestMerge(t *testing.T) {
	t.Parallel()
	existing := &metrics.Report{
		Requests: []metrics.Object{
			mustObj(t, `{"sample_id":"kept","split":"PR_correction","ttft_ms":11}`),
			mustObj(t, `{"sample_id":"replaced","split":"PR_correction","ttft_ms":12}`),
			mustObj(t, `{"sample_id":"unkeyed","split":null,"ttft_ms":1}`),
		},
		Sessions: []metrics.Object{
			mustObj(t, `{"sample_id":"kept","split":"PR_correction","stream_ttft_ms":11}`),
			mustObj(t, `{"sample_id":"replaced","split":"PR_correction","stream_ttft_ms":12}`),
		},
	}
	tests := []struct {
		name           string
		requests, sess []metrics.Object
		want           map[string]string
	}{
		{"partial resume replaces only the regenerated sample (merge on resume)",
			[]metrics.Object{mustObj(t, `{"sample_id":"replaced","split":"PR_correction","ttft_ms":99}`)},
			[]metrics.Object{mustObj(t, `{"sample_id":"replaced","split":"PR_correction","stream_ttft_ms":99}`)},
			map[string]string{"duplex_request_metrics[0].sample_id": `"kept"`, "duplex_request_metrics[1].sample_id": `"unkeyed"`,
				"duplex_request_metrics[2].ttft_ms": `99`, "duplex_request_metrics[3]": absent,
				"duplex_stream_ttft_ms.mean": `55.0`, "duplex_stream_ttft_ms.count": `2`}},
		{"all-skipped rerun keeps everything (P1: no erasure)", nil, nil,
			map[string]string{"duplex_request_metrics[2].sample_id": `"unkeyed"`, "duplex_session_metrics[1].stream_ttft_ms": `12`,
				"duplex_stream_ttft_ms.mean": `11.5`}},
		{"lists merge independently: new session entry, no rows → old rows stay (P5)", nil,
			[]metrics.Object{mustObj(t, `{"sample_id":"kept","split":"PR_correction","audio_turn_count":0}`)},
			map[string]string{"duplex_request_metrics[0].ttft_ms": `11`, "duplex_session_metrics[0].sample_id": `"replaced"`,
				"duplex_session_metrics[1].audio_turn_count": `0`, "duplex_stream_ttft_ms.count": `1`}},
		{"unkeyed incoming rows are appended again",
			[]metrics.Object{mustObj(t, `{"sample_id":"unkeyed","split":null,"ttft_ms":2}`)}, nil,
			map[string]string{"duplex_request_metrics[2].ttft_ms": `1`, "duplex_request_metrics[3].ttft_ms": `2`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			checkPaths(t, mustJSON(t, metrics.Merge(existing, tc.requests, tc.sess)), tc.want)
		})
	}
}

func TestParseReport(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		wantErr string
	}{
		{`{`, "duplex_metrics.json"},
		{`[]`, "must contain a JSON object"},
		{`{"duplex_request_metrics": {}}`, "duplex_request_metrics must be a JSON list"},
		{`{"duplex_session_metrics": [1]}`, "duplex_session_metrics entries must be JSON objects"},
		{`{"duplex_request_metrics": null, "mean_duplex_response_ttft_ms": 5, "other": 1}`, ""},
	}
	for _, tc := range tests {
		r, err := metrics.ParseReport([]byte(tc.in))
		switch {
		case tc.wantErr == "" && err != nil:
			t.Errorf("ParseReport(%s): %v", tc.in, err)
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("ParseReport(%s) = %v, want error containing %q", tc.in, err, tc.wantErr)
		case err == nil:
			if got := string(mustJSON(t, *r)); got != `{"duplex_request_metrics":[],"duplex_session_metrics":[]}` {
				t.Errorf("stale keys not dropped: %s", got)
			}
		}
	}
}

// TestReport snapshots our duplex_metrics.json bytes (Report.File, Python
// indent=2 layout in docs/metrics.md#report-file key order) for the run vectors and for
// every session vector as a one-session run. Rewritten with -update.
func TestReport(t *testing.T) {
	t.Parallel()
	for _, name := range vectorNames(t) {
		doc, _ := readVector(t, name)
		if doc.EngineTPOT != nil {
			continue
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var rep metrics.Report
			if doc.Run != nil {
				var err error
				if rep, err = metrics.ScoreRun(*doc.Run); err != nil {
					t.Fatal(err)
				}
			} else {
				rep = metrics.BuildReport([]metrics.SessionResult{metrics.ScoreSession(*doc.Session)})
			}
			file := rep.File()
			golden.Check(t, "json", file)
			// The file reads back to the same report.
			back, err := metrics.ParseReport(file)
			if err != nil {
				t.Fatal(err)
			}
			if string(back.File()) != string(file) {
				t.Errorf("File → ParseReport → File is not stable")
			}
		})
	}
}

// TestReportKeyOrder checks the row and session-entry key orders
// (docs/metrics.md#row-layout, #session-summary) on the reference's worked
// three-response session, whose expected file content the reference prints.
func TestReportKeyOrder(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join("testdata", "worked_11_3.trace.json"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := trace.DecodeSession(data)
	if err != nil {
		t.Fatal(err)
	}
	rep := metrics.BuildReport([]metrics.SessionResult{metrics.ScoreSession(s)})
	var keys []string
	for _, m := range rep.Requests[0] {
		keys = append(keys, m.Key)
	}
	want := "sample_id split session_id request_index response_id source measurement_origin ttft_ms ttfp_ms audio_generation_ms audio_duration_ms response_created_to_first_text_ms response_created_to_first_audio_ms tpot_ms rtf client_ttft_ms client_ttfp_ms stage0_tokens"
	if got := strings.Join(keys, " "); got != want {
		t.Errorf("row keys\n got %s\nwant %s", got, want)
	}
	keys = keys[:0]
	for _, m := range rep.Sessions[0] {
		keys = append(keys, m.Key)
	}
	want = "sample_id split session_id audio_turn_count ttft_ms ttfp_ms rtf tpot_ms client_ttft_ms client_ttfp_ms stream_ttft_ms stream_ttfp_ms stream_rtf stream_audio_generation_ms stream_audio_duration_ms stream_measurement_origin"
	if got := strings.Join(keys, " "); got != want {
		t.Errorf("session keys\n got %s\nwant %s", got, want)
	}
	var top []string
	for _, m := range rep.Object() {
		top = append(top, m.Key)
	}
	if got := strings.Join(top, " "); !strings.HasPrefix(got, "duplex_request_metrics duplex_session_metrics duplex_stream_ttft_ms duplex_stream_ttfp_ms duplex_stream_rtf num_duplex_response_ttft_ms_samples mean_duplex_response_ttft_ms") {
		t.Errorf("report keys %s", got)
	}
	// the worked session's values.
	checkPaths(t, mustJSON(t, rep), map[string]string{
		"duplex_request_metrics[0].ttft_ms": `312.5`, "duplex_request_metrics[0].audio_generation_ms": `1050.0`,
		"duplex_request_metrics[0].rtf": `0.525`, "duplex_request_metrics[1].ttft_ms": `450.0`,
		"duplex_request_metrics[1].rtf": `0.9`, "duplex_request_metrics[2]": absent,
		"duplex_session_metrics[0].ttfp_ms":  `{"count":2,"mean":380.125,"p50":340.25,"p99":420.0}`,
		"duplex_session_metrics[0].rtf.mean": `0.7125`, "duplex_session_metrics[0].stream_audio_duration_ms": `3000.0`,
		"duplex_session_metrics[0].stream_rtf": `2.3`, "duplex_session_metrics[0].stream_ttft_ms": `2650.0`,
		"mean_duplex_client_ttfp_ms": `310.0`,
	})
	var v any
	if err := json.Unmarshal(rep.File(), &v); err != nil {
		t.Fatal(err)
	}
}

// TestConsolePadding: values are left-aligned in 10 columns as Python's
// "{:<40} {:<10.2f}" prints them (trailing spaces included).
func TestConsolePadding(t *testing.T) {
	t.Parallel()
	out := metrics.NewReport([]metrics.Object{{{"client_ttfp_ms", 1234.565}}}, nil).Console()
	lines := strings.Split(out, "\n")
	if want := "Mean client TTFP (ms):                   1234.57   "; lines[1] != want {
		t.Errorf("got %q, want %q", lines[1], want)
	}
	if metrics.NewReport(nil, nil).Console() != "" {
		t.Error("empty report prints a block")
	}
}

func TestMergeFile(t *testing.T) {
	t.Parallel()
	s := metrics.ScoreSession(trace.Session{Session: trace.SessionMeta{SampleID: sid("s2"), Split: sid("A")}})
	file, partial, err := metrics.MergeFile(nil, []metrics.SessionResult{s})
	if err != nil || partial != nil || !strings.Contains(string(file), `"sample_id": "s2"`) {
		t.Fatalf("missing file: %v %s %s", err, file, partial)
	}
	old := []byte(`{"duplex_request_metrics": [], "duplex_session_metrics": [{"sample_id": "s1", "split": "A", "stream_ttft_ms": 5}], "mean_duplex_client_ttft_ms": 1}`)
	file, _, err = metrics.MergeFile(old, []metrics.SessionResult{s})
	if err != nil || !strings.Contains(string(file), `"sample_id": "s1"`) || strings.Contains(string(file), "mean_duplex_client_ttft_ms") {
		t.Fatalf("merge: %v %s", err, file)
	}
	_, partial, err = metrics.MergeFile([]byte(`{"duplex_request_metrics": 5}`), []metrics.SessionResult{s})
	if err == nil || !strings.Contains(string(partial), `"sample_id": "s2"`) {
		t.Fatalf("corrupt file: err %v, partial %s", err, partial)
	}
}

// TestFileCopiesNothing: duplex_metrics.json of a report without a
// non-finite value costs the object and the buffer, not a copy of the
// object (Finite's copy, with a path string per member, more than doubled
// the file's cost: 70 MB and 718 000 allocations for 10 000 rows against
// 31 MB and 10 000). Not parallel: AllocsPerRun counts the process's
// allocations.
func TestFileCopiesNothing(t *testing.T) {
	results := make([]metrics.SessionResult, 4)
	for i := range results {
		results[i] = metrics.ScoreSession(benchSession(50, 3))
	}
	r := metrics.BuildReport(results)
	if len(r.NonFinite()) != 0 {
		t.Fatal("the bench sessions have a non-finite value")
	}
	object := testing.AllocsPerRun(5, func() { _ = r.Object() })
	file := testing.AllocsPerRun(5, func() { _ = r.File() })
	// The file adds its buffer (one allocation, maybe one regrowth) and
	// the float spellings' scratch; a copy would add one per object and
	// per member path: hundreds here.
	if file > object+20 {
		t.Errorf("File: %.0f allocations, Object alone %.0f: File copies the object", file, object)
	}
}
