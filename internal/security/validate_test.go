//go:build security && linux

package security

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// edit applies old→new once to a valid report (fatal if old is absent).
func edit(t testing.TB, body []byte, old, new string) []byte {
	t.Helper()
	if !strings.Contains(string(body), old) {
		t.Fatalf("report lacks %q", old)
	}
	return []byte(strings.Replace(string(body), old, new, 1))
}

// fieldOf returns the first field path of a 400 answer.
func fieldOf(b []byte) string {
	var e struct {
		Errors []struct{ Path string }
	}
	if json.Unmarshal(b, &e) != nil || len(e.Errors) == 0 {
		return ""
	}
	return e.Errors[0].Path
}

// TestReportValidation: the parser differentials and gaps of item 7 are
// refused with the field; wire data keeps its lone surrogates.
func TestReportValidation(t *testing.T) {
	s := Start(t)
	valid := reportJSON(t, "m")
	arr := func(n int) string {
		return `"response_id":"r0","stage0_tokens":{"source":"x","output_token_count":1,"ttft_ms":1,"tpot_ms":1,"itls_ms":[` + strings.TrimSuffix(strings.Repeat("0,", n), ",") + `]}`
	}
	cases := []struct {
		what      string
		body      []byte
		want      int
		wantField string
		before    string
	}{
		{"200 001-entry scalar array", edit(t, valid, `"response_id":"r0"`, arr(200_001)), 400, "", "201"},
		{"200 000-entry scalar array (the limit)", edit(t, valid, `"response_id":"r0"`, arr(200_000)), 201, "", "201"},
		{"lone \\ud800 in run.model", edit(t, valid, `"model":"m"`, `"model":"\ud800"`), 400, "run.model", "201"},
		{"duplicate key run.model", edit(t, valid, `"model":"m"`, `"model":"m","model":"evil"`), 400, "run.model", "201"},
		{"case-folded duplicate run.Model", edit(t, valid, `"model":"m"`, `"model":"m","Model":"evil"`), 400, "run.Model", "201 (Go kept \"evil\")"},
		{"javascript: run.target_url", edit(t, valid, `ws://127.0.0.1:8080/v1/realtime`, `javascript:alert(document.domain)`), 400, "run.target_url", "201"},
		{"lone \\ud800 in a wire response id (kept)", edit(t, valid, `"response_id":"r0"`, `"response_id":"\ud800"`), 201, "", "201"},
	}
	for _, c := range cases {
		resp, b := s.Do(t, Request{Method: "POST", Path: "/api/reports", Header: map[string]string{"Content-Type": "application/json"}, Body: c.body})
		f := fieldOf(b)
		if resp.StatusCode != c.want || (c.wantField != "" && f != c.wantField) {
			t.Errorf("%s: %d field %q %.200s, want %d %q", c.what, resp.StatusCode, f, b, c.want, c.wantField)
		}
		got := fmt.Sprint(resp.StatusCode)
		if f != "" {
			got += " " + f
		}
		Attack(t, "7", "POST report: "+c.what, got+" (before: "+c.before+")")
	}
	resp, b := s.Do(t, Request{Method: "POST", Path: "/api/import?model=x&target_url=javascript:alert(1)", Header: map[string]string{"Content-Type": "application/json"},
		Body: []byte(`{"duplex_request_metrics":[],"duplex_session_metrics":[]}`)})
	if resp.StatusCode != http.StatusBadRequest || fieldOf(b) != "run.target_url" {
		t.Errorf("import with target_url=javascript: %d %s", resp.StatusCode, b)
	}
	Attack(t, "7", "POST /api/import?target_url=javascript:…", fmt.Sprintf("%d %s (before: 201)", resp.StatusCode, fieldOf(b)))
}
