package report_test

import (
	"encoding/json"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/duplexscope/duplexscope/metrics/loadcurve"
	"github.com/duplexscope/duplexscope/report"
	"github.com/google/go-cmp/cmp"
)

func jsonNames(t reflect.Type) []string {
	var out []string
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" {
			continue
		}
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// TestSchemaMatchesTypes: the JSON Schema's strict objects list exactly
// the Go types' JSON fields, so the two cannot drift apart.
func TestSchemaMatchesTypes(t *testing.T) {
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
		Defs       map[string]struct {
			Properties map[string]json.RawMessage `json:"properties"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(report.SchemaJSON, &s); err != nil {
		t.Fatal(err)
	}
	props := func(m map[string]json.RawMessage) []string {
		var out []string
		for k := range m {
			out = append(out, k)
		}
		sort.Strings(out)
		return out
	}
	var mach, src, shard map[string]json.RawMessage
	var run struct {
		Properties map[string]struct {
			Properties map[string]json.RawMessage `json:"properties"`
		} `json:"properties"`
	}
	raw, _ := json.Marshal(s.Defs["run"])
	json.Unmarshal(raw, &run)
	mach, src, shard = run.Properties["machine"].Properties, run.Properties["source"].Properties, run.Properties["shard"].Properties
	cases := []struct {
		name   string
		schema []string
		typ    any
	}{
		{"report", props(s.Properties), report.Report{}},
		{"run", props(s.Defs["run"].Properties), report.Run{}},
		{"machine", props(mach), report.Machine{}},
		{"source", props(src), report.Source{}},
		{"shard", props(shard), report.Shard{}},
		{"responseExtra", props(s.Defs["responseExtra"].Properties), report.ResponseExtra{}},
		{"sessionExtra", props(s.Defs["sessionExtra"].Properties), report.SessionExtra{}},
		{"warning", props(s.Defs["warning"].Properties), report.Warning{}},
		{"attachment", props(s.Defs["attachment"].Properties), report.Attachment{}},
		{"turnTaking", props(s.Defs["turnTaking"].Properties), report.TurnTaking{}},
		{"turnTakingCard", props(s.Defs["turnTakingCard"].Properties), report.TurnTakingCard{}},
		{"turnTakingCase", props(s.Defs["turnTakingCase"].Properties), report.TurnTakingCase{}},
		{"probe", props(s.Defs["probe"].Properties), report.Probe{}},
		{"loadCurve", props(s.Defs["loadCurve"].Properties), report.LoadCurve{}},
		{"loadLevel", props(s.Defs["loadLevel"].Properties), report.LoadLevel{}},
		{"loadSession", props(s.Defs["loadSession"].Properties), report.LoadSession{}},
		{"loadResponse", props(s.Defs["loadResponse"].Properties), loadcurve.Response{}},
	}
	for _, tc := range cases {
		if diff := cmp.Diff(tc.schema, jsonNames(reflect.TypeOf(tc.typ))); diff != "" {
			t.Errorf("%s: schema properties vs Go JSON fields (-schema +go):\n%s", tc.name, diff)
		}
	}
	var warn struct {
		Properties struct {
			Code struct {
				Enum []string `json:"enum"`
			} `json:"code"`
		} `json:"properties"`
	}
	raw, _ = json.Marshal(s.Defs["warning"])
	json.Unmarshal(raw, &warn)
	var codes []string
	for c := range report.WarningCodes {
		codes = append(codes, c)
	}
	sort.Strings(codes)
	sort.Strings(warn.Properties.Code.Enum)
	if diff := cmp.Diff(warn.Properties.Code.Enum, codes); diff != "" {
		t.Errorf("warning codes (-schema +go):\n%s", diff)
	}
}
