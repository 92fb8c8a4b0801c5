package report_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/duplexscope/duplexscope/report"
)

// TestParserDifferentials: what JSON parsers read differently is refused in
// our own fields (with the field's path), while wire text keeps its lone
// surrogates (the metrics' rule: a real session is never refused).
func TestParserDifferentials(t *testing.T) {
	put := func(old, new string) func(string) string {
		return func(s string) string {
			if !strings.Contains(s, old) {
				panic("fixture lacks " + old)
			}
			return strings.Replace(s, old, new, 1)
		}
	}
	extra := func(fields string) func(string) string { return put(`"complete":true`, `"complete":true,`+fields) }
	cases := []struct {
		name     string
		edit     func(string) string
		wantPath string // "" with wantText "" = accepted
		wantText string
	}{
		{"duplicate key", put(`"model":"sim"`, `"model":"sim","model":"evil"`), "run.model", "duplicate key"},
		{"case-folded key", put(`"model":"sim"`, `"model":"sim","Model":"evil"`), "run.Model", "duplicate key"},
		{"escaped duplicate key", put(`"model":"sim"`, `"model":"sim","mod\u0065l":"evil"`), "run.model", "duplicate key"},
		{"long-s folds to s", put(`"complete":true`, `"complete":true,"\u017fchema":"x"`), "ſchema", "duplicate key"},
		{"kelvin sign folds to k", put(`"duplex_request_metrics":[{"session_id":"s"`, `"duplex_request_metrics":[{"session_id":"s","\u212a":1,"k":2`), "metrics.duplex_request_metrics[0].k", "duplicate key"},
		{"duplicate top-level key", put(`"complete":true`, `"complete":true,"complete":false`), "complete", "duplicate key"},
		{"duplicate key in a row", put(`"ttft_ms":100.0`, `"ttft_ms":100.0,"ttft_ms":1.0`), "metrics.duplex_request_metrics[0].ttft_ms", "duplicate key"},
		{"same key in sibling objects", extra(`"responses":[{"session_id":"s","response_id":"a"},{"session_id":"s","response_id":"b"}]`), "", ""},
		{"lone high surrogate in model", put(`"model":"sim"`, `"model":"\ud800"`), "run.model", "lone UTF-16 surrogate"},
		{"lone low surrogate in profile", put(`"model":"sim"`, `"model":"sim","profile":"a\udc00b"`), "run.profile", "lone UTF-16 surrogate"},
		{"reversed pair", put(`"model":"sim"`, `"model":"\udc00\ud800"`), "run.model", "lone UTF-16 surrogate"},
		{"lone surrogate in a key", put(`"model":"sim"`, `"model":"sim","\ud800":1`), "run.model", "lone UTF-16 surrogate"},
		{"lone surrogate in an attachment name", extra(`"attachments":[{"name":"a\ud800","kind":"other"}]`), "attachments[0].name", "lone UTF-16 surrogate"},
		{"lone surrogate in a warning message", extra(`"warnings":[{"code":"tab_hidden","message":"\udfff"}]`), "warnings[0].message", "lone UTF-16 surrogate"},
		{"escaped backslash then u is not an escape", put(`"model":"sim"`, `"model":"\\ud800"`), "", ""},
		{"valid surrogate pair", put(`"model":"sim"`, `"model":"\ud83d\ude00"`), "", ""},
		{"wire id in a row", put(`"response_id":"r0"`, `"response_id":"\ud800"`), "", ""},
		{"wire id in responses", extra(`"responses":[{"session_id":"\udbff","response_id":"\ud800","transcript":"hi \udc00"}]`), "", ""},
		{"server error text", extra(`"sessions":[{"session_id":"s","complete":false,"error":"server said \ud800"}]`), "", ""},
		{"probe's active response", extra(`"probes":[{"kind":"interruption","clip":"c","offset_s":1,"onset_ms":1,"active_response_id":"\ud800","stopped_by":"","clock":"c"}]`), "", ""},
		{"javascript: target", put(`ws://127.0.0.1:8080/v1/realtime`, `javascript:alert(1)`), "run.target_url", "not allowed"},
		{"data: target", put(`ws://127.0.0.1:8080/v1/realtime`, `data:text/html,x`), "run.target_url", "not allowed"},
		{"upper-case JAVASCRIPT: target", put(`ws://127.0.0.1:8080/v1/realtime`, `JavaScript:alert(1)`), "run.target_url", "not allowed"},
		{"wss target", put(`ws://127.0.0.1:8080/v1/realtime`, `wss://gpu.example/v1/realtime?duplex=1`), "", ""},
		{"https target", put(`ws://127.0.0.1:8080/v1/realtime`, `https://gpu.example/`), "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := report.Decode([]byte(tc.edit(validReport)), report.DefaultLimits)
			if tc.wantText == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var ve *report.ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("err = %v, want a ValidationError with %q", err, tc.wantText)
			}
			if ve.Errors[0].Path != tc.wantPath || !strings.Contains(ve.Errors[0].Reason, tc.wantText) {
				t.Errorf("got %+v, want path %q reason with %q", ve.Errors[0], tc.wantPath, tc.wantText)
			}
		})
	}
}

// TestArrayLimitExact: an array of exactly MaxArray elements passes and one
// more is refused, for every kind of element (scalar arrays used to be
// counted by their commas, one short).
func TestArrayLimitExact(t *testing.T) {
	lim := report.Limits{MaxArray: 3}
	for _, elem := range []string{`0`, `-1.5`, `"s"`, `true`, `false`, `null`, `{}`, `[]`} {
		for n, ok := range map[int]bool{0: true, 1: true, 3: true, 4: false} {
			items := make([]string, n)
			for i := range items {
				items[i] = elem
			}
			doc := `{"a":[` + strings.Join(items, ",") + `]}`
			err := report.CheckJSON([]byte(doc), lim)
			if ok != (err == nil) {
				t.Errorf("%s ×%d: err = %v, want ok=%v", elem, n, err, ok)
			}
		}
	}
	// Nested arrays count separately.
	if err := report.CheckJSON([]byte(`[[1,2,3],[4,5,6],[7,8,9]]`), lim); err != nil {
		t.Errorf("3×3 = %v", err)
	}
}

// TestDefaultArrayLimit is the case: 200 001 numbers are refused,
// 200 000 pass.
func TestDefaultArrayLimit(t *testing.T) {
	for n, ok := range map[int]bool{report.DefaultLimits.MaxArray: true, report.DefaultLimits.MaxArray + 1: false} {
		doc := `{"itls_ms":[` + strings.TrimSuffix(strings.Repeat("0,", n), ",") + `]}`
		err := report.CheckJSON([]byte(doc), report.DefaultLimits)
		if ok != (err == nil) {
			t.Errorf("%d elements: err = %v, want ok=%v", n, err, ok)
		}
	}
}

// TestStoredRelaxes: an archive re-reading what an older version stored is
// not refused by the newer upload rules.
func TestStoredRelaxes(t *testing.T) {
	old := strings.Replace(strings.Replace(validReport, `"model":"sim"`, `"model":"sim","Model":"x"`, 1), `ws://127.0.0.1:8080/v1/realtime`, `javascript:x`, 1)
	if _, err := report.Decode([]byte(old), report.DefaultLimits); err == nil {
		t.Fatal("upload rules accepted it")
	}
	lim := report.DefaultLimits
	lim.Stored = true
	if _, err := report.Decode([]byte(old), lim); err != nil {
		t.Errorf("stored report refused: %v", err)
	}
}

// TestImportDifferentials: an imported vLLM file is wire data except the
// model name it is listed under.
func TestImportDifferentials(t *testing.T) {
	base := `{"model_id":"M","duplex_request_metrics":[{"session_id":"s","request_index":0,"response_id":"\ud800","ttft_ms":1.0}],"duplex_session_metrics":[]}`
	cases := []struct {
		name, doc string
		ok        bool
	}{
		{"lone surrogate id in a row", base, true},
		{"lone surrogate model_id", strings.Replace(base, `"M"`, `"\ud800"`, 1), false},
		{"duplicate model_id", strings.Replace(base, `"model_id":"M"`, `"model_id":"M","MODEL_ID":"N"`, 1), false},
	}
	for _, tc := range cases {
		_, err := report.Import([]byte(tc.doc), report.DefaultLimits, report.ImportOptions{})
		if tc.ok != (err == nil) {
			t.Errorf("%s: err = %v, want ok=%v", tc.name, err, tc.ok)
		}
	}
}
