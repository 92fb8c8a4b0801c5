//go:build !js

package sim

import (
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestListSetting: the query wins when its key is present (even empty,
// which clears), then the flag, then the scenario.
func TestListSetting(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, flag, query, want string
		scenario                []string
	}{
		{"scenario", "", "", "a,b", []string{"a", "b"}},
		{"flag over scenario", "c", "", "c", []string{"a"}},
		{"query over flag", "c", "sim_fault=d", "d", []string{"a"}},
		{"empty query clears", "c", "sim_fault=", "", []string{"a"}},
		{"repeated query keys join", "", "sim_fault=d&sim_fault=e", "d,e", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q, err := url.ParseQuery(tc.query)
			if err != nil {
				t.Fatal(err)
			}
			if got := listSetting(tc.scenario, tc.flag, q, "sim_fault"); got != tc.want {
				t.Errorf("%q, want %q", got, tc.want)
			}
		})
	}
}

func TestParseTurnsMs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    []int
		wantErr string
	}{
		{"1000", []int{1000}, ""},
		{"0, 2500 ,9000", []int{0, 2500, 9000}, ""},
		{"1000,", nil, "want comma-separated"},
		{"-1", nil, "want comma-separated"},
		{"86400001", nil, "want comma-separated"},
		{"1.5", nil, "want comma-separated"},
		{strings.Repeat("1,", MaxTurns) + "1", nil, "turns, want at most"},
	}
	for _, tc := range tests {
		got, err := parseTurnsMs(tc.in)
		if d := cmp.Diff(tc.want, got); d != "" || (err == nil) != (tc.wantErr == "") || (err != nil && !strings.Contains(err.Error(), tc.wantErr)) {
			t.Errorf("parseTurnsMs(%.20q) = %v, %v; want %v, %q", tc.in, got, err, tc.want, tc.wantErr)
		}
	}
}

func TestParseNames(t *testing.T) {
	t.Parallel()
	docs := map[string]string{"a": "", "b": ""}
	for _, tc := range []struct {
		in      string
		want    map[string]bool
		wantErr string
	}{
		{"", map[string]bool{}, ""},
		{"none", map[string]bool{}, ""},
		{" a , b,a,", map[string]bool{"a": true, "b": true}, ""},
		{"a,c", nil, `sim: unknown thing "c"`},
	} {
		got, err := parseNames(tc.in, docs, "thing")
		gotErr := ""
		if err != nil {
			gotErr = err.Error()
		}
		if d := cmp.Diff(tc.want, got); d != "" || gotErr != tc.wantErr {
			t.Errorf("parseNames(%q) = %v, %v; want %v, %q", tc.in, got, err, tc.want, tc.wantErr)
		}
	}
}
