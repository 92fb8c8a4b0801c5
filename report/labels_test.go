package report_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/duplexscope/duplexscope/report"
)

// TestLabels: run.name, run.notes and run.tags decode when within their
// bounds and are refused, with the field named, when not.
func TestLabels(t *testing.T) {
	with := func(fields string) string {
		return strings.Replace(validReport, `"frame_ms":200`, `"frame_ms":200,`+fields, 1)
	}
	tags := func(n int) string {
		var b []string
		for i := 0; i < n; i++ {
			b = append(b, `"t`+strings.Repeat("x", i)+`"`)
		}
		return `"tags":[` + strings.Join(b, ",") + `]`
	}
	cases := []struct {
		name, fields string
		wantPath     string // "" = valid
	}{
		{"all three", `"name":"nightly GPU-A","notes":"fp8 build\nsecond line\ttab","tags":["gpu-a","fp8"]`, ""},
		{"name at the cap", `"name":"` + strings.Repeat("é", report.MaxNameChars) + `"`, ""},
		{"name over the cap", `"name":"` + strings.Repeat("x", report.MaxNameChars+1) + `"`, "run.name"},
		{"name with a newline", `"name":"a\nb"`, "run.name"},
		{"name with ESC", `"name":"a\u001b[31mb"`, "run.name"},
		{"name with DEL", `"name":"a\u007fb"`, "run.name"},
		{"name with a C1 control", `"name":"a\u0085b"`, "run.name"},
		{"name with a bidi override", `"name":"abc\u202edcba"`, "run.name"},
		{"notes over the cap", `"notes":"` + strings.Repeat("x", report.MaxNotesChars+1) + `"`, "run.notes"},
		{"notes with a bell", `"notes":"ding\u0007"`, "run.notes"},
		{"16 tags", tags(report.MaxTags), ""},
		{"17 tags", tags(report.MaxTags + 1), "run.tags"},
		{"empty tag", `"tags":["a",""]`, "run.tags[1]"},
		{"blank tag", `"tags":["  "]`, "run.tags[0]"},
		{"padded tag", `"tags":[" a"]`, "run.tags[0]"},
		{"duplicate tag", `"tags":["a","b","a"]`, "run.tags[2]"},
		{"long tag", `"tags":["` + strings.Repeat("x", report.MaxTagChars+1) + `"]`, "run.tags[0]"},
		{"tag with a tab", `"tags":["a\tb"]`, "run.tags[0]"},
		{"tags not a list", `"tags":"a,b"`, "tags"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, err := report.Decode([]byte(with(tc.fields)), report.DefaultLimits)
			if tc.wantPath == "" {
				if err != nil {
					t.Fatalf("Decode = %v, want valid", err)
				}
				if !strings.Contains(with(tc.fields), r.Run.Name) || (strings.Contains(tc.fields, `"tags"`) && len(r.Run.Tags) == 0) {
					t.Errorf("decoded run = %+v", r.Run)
				}
				return
			}
			var ve *report.ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("Decode = %v, want a ValidationError at %s", err, tc.wantPath)
			}
			found := false
			for _, fe := range ve.Errors {
				found = found || strings.HasSuffix(fe.Path, tc.wantPath)
			}
			if !found {
				t.Errorf("errors %v do not name %s", ve.Errors, tc.wantPath)
			}
		})
	}
}
