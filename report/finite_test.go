package report_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/duplexscope/duplexscope/metrics"
	"github.com/duplexscope/duplexscope/metrics/conformance"
	"github.com/duplexscope/duplexscope/report"
	"github.com/duplexscope/duplexscope/trace"
	"pgregory.net/rapid"
)

// Extreme values a server (or a Python-written file) can put where the
// metrics read numbers and ids.
var (
	extremeNumbers = []string{"NaN", "Infinity", "-Infinity", "1e308", "-1e308", "1.7976931348623157e308", "1e999",
		"-0.0", "0", "5e-324", "1" + strings.Repeat("0", 400), "9007199254740993", "9223372036854775808",
		"true", "null", `"inf"`, `"-Infinity"`, `"nan"`, `"١٢"`, `"1_000"`, `"abc"`, "[]", `{"a":1}`, "12.5", "-3"}
	extremeTimes = []string{"0", "-0.0", "1e308", "-1e308", "1.7976931348623157e308", "5e-324", "100", "100.5", "9007199254740993"}
	extremeIDs   = []string{`"a"`, `"b"`, `""`, `"\ud800"`, `"\udbff"`, `"\ud83d\ude00"`, `5`, `null`}
)

// genExtremeTrace draws a session trace whose numbers and ids come from the
// extreme pools, in every place the metrics read them.
func genExtremeTrace(t *rapid.T) []byte {
	num := func(label string) string { return rapid.SampledFrom(extremeNumbers).Draw(t, label) }
	var evs []string
	for i := range rapid.IntRange(1, 12).Draw(t, "n") {
		tm := rapid.SampledFrom(extremeTimes).Draw(t, "t")
		id := rapid.SampledFrom(extremeIDs).Draw(t, "id")
		idf := `"response_id":` + id
		if rapid.Bool().Draw(t, "nested") {
			idf = `"response":{"id":` + id + `}`
		}
		var ev string
		switch rapid.IntRange(0, 4).Draw(t, "kind") {
		case 0:
			ev = `{"type":"response.created",` + idf + `,"server_event_seq":` + num("seq") + `}`
		case 1:
			ev = fmt.Sprintf(`{"type":"response.output_audio.delta",%s,"delta":"AAAA","sample_rate_hz":%s,"metadata":{"audio_duration_ms":%s},"response_request_metrics":{"ttft_ms":%s,"ttfp_ms":%s}}`,
				idf, num("rate"), num("dur"), num("ttft"), num("ttfp"))
		case 2:
			ev = fmt.Sprintf(`{"type":"response.output_text.delta",%s,"delta":"hi"}`, idf)
		case 3:
			ev = fmt.Sprintf(`{%s,"metadata":{"stage_metrics":{"0":{"num_tokens_out":%s,"vllm_ttft_ms":%s,"vllm_tpot_ms":%s,"vllm_itls_ms":[%s,1]}}}}`,
				idf, num("tok"), num("s0ttft"), num("s0tpot"), num("itl"))
		default:
			ev = `{"type":"response.done",` + idf + `}`
		}
		evs = append(evs, fmt.Sprintf(`{"t_ms":%s,"dir":"recv","event":%s}`, tm, ev))
		_ = i
	}
	start := ""
	if rapid.Bool().Draw(t, "hasStart") {
		start = `"stream_start_ms":` + rapid.SampledFrom(extremeTimes).Draw(t, "start") + `,`
	}
	return []byte(`{"format":"duplex-trace/v1","kind":"session","session":{` + start + `"sample_id":"s","split":"x"},"events":[` + strings.Join(evs, ",") + `]}`)
}

// TestWritersStayStrictJSON is the issue-16 property: whatever extreme
// values a server sends, every writer — score (or its refusal), the
// duplex_metrics.json file, report JSON (compact and indented, as the API
// serves it), the vLLM export, the CSV — writes strict JSON (no NaN or
// Infinity token, no float literal beyond float64), the run is never lost
// (the report builds and validates), and each value written as null is
// named by an invalid_server_value warning.
func TestWritersStayStrictJSON(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		data := genExtremeTrace(t)
		s, err := trace.DecodeSession(data)
		if err != nil {
			t.Fatalf("decode %s: %v", data, err)
		}
		res := metrics.ScoreSession(s)

		// score: strict JSON, or a refusal naming a path.
		if out, err := res.Object().MarshalJSON(); err == nil {
			if len(res.Faults) == 0 {
				if err := conformance.StrictJSON(out); err != nil {
					t.Fatalf("score: %v\n%s", err, out)
				}
			}
		} else if !strings.Contains(err.Error(), ".") && !strings.Contains(err.Error(), "[") {
			t.Fatalf("score refusal names no path: %v", err)
		}

		dm := metrics.BuildReport([]metrics.SessionResult{res})
		for name, b := range map[string][]byte{"duplex_metrics.json": dm.File()} {
			if err := conformance.StrictJSON(b); err != nil {
				t.Fatalf("%s: %v\n%s", name, err, b)
			}
		}
		mb, err := dm.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		rep, err := report.New(report.Run{TargetURL: "ws://x", Model: "m", Client: report.ClientCLI, Source: report.Source{Kind: report.SourceDataset, Dataset: "d"}}, mb)
		if err != nil {
			t.Fatalf("the run was lost: report.New: %v\n%s", err, mb)
		}
		rep.Warnings = append(rep.Warnings, report.ValueWarnings(dm)...)
		report.Finish(rep)
		nulled := len(dm.NonFinite()) + len(dm.Faults)
		warned := 0
		for _, w := range rep.Warnings {
			if w.Code == report.WarnInvalidValue {
				warned++
			}
		}
		if nulled > 0 && warned == 0 || nulled == 0 && warned > 0 {
			t.Fatalf("%d values written as null, %d invalid_server_value warnings", nulled, warned)
		}
		encoded := map[string][]byte{}
		for name, encode := range map[string]func(*report.Report) ([]byte, error){
			"report": report.Marshal, "report indented": report.MarshalIndent, "vllm export": report.VLLM,
		} {
			b, err := encode(rep)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if err := conformance.StrictJSON(b); err != nil {
				t.Fatalf("%s: %v\n%s", name, err, b)
			}
			encoded[name] = b
		}
		compact, vllm := encoded["report"], encoded["vllm export"]
		if _, err := report.Decode(compact, report.DefaultLimits); err != nil {
			t.Fatalf("the API would refuse the report it was given: %v\n%s", err, compact)
		}
		if _, err := report.Import(vllm, report.DefaultLimits, report.ImportOptions{}); err != nil {
			t.Fatalf("/api/import refuses our own export: %v\n%s", err, vllm)
		}
		var csv bytes.Buffer
		if err := report.CSV(&csv, rep); err != nil {
			t.Fatal(err)
		}
		for _, bad := range []string{"NaN", "Inf"} {
			if strings.Contains(csv.String(), bad) {
				t.Fatalf("CSV holds %s:\n%s", bad, csv.String())
			}
		}
	})
}
