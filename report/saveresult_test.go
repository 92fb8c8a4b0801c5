package report

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// vllmSaveResultKeys reads the researched key list (sources in the file),
// kept apart from SaveResultKeys so a change to it must be deliberate.
func vllmSaveResultKeys(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("testdata/vllm_save_result_keys.txt")
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, line := range strings.Split(string(b), "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			keys = append(keys, line)
		}
	}
	return keys
}

func topKeysOf(t *testing.T, b []byte) []string {
	t.Helper()
	keys, _, err := orderedTop(b)
	if err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	return keys
}

func TestSaveResultKeys(t *testing.T) {
	t.Parallel()
	vllmKeys := vllmSaveResultKeys(t)
	if strings.Join(SaveResultKeys, " ") != strings.Join(vllmKeys, " ") {
		t.Fatalf("SaveResultKeys changed:\n got %v\nwant %v", SaveResultKeys, vllmKeys)
	}
	ex, err := os.ReadFile("testdata/omniinteract_result.example.json")
	if err != nil {
		t.Fatal(err)
	}
	imported, err := Import(ex, DefaultLimits, ImportOptions{Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	empty := &Report{Schema: Schema, Run: Run{Model: "m"}}
	tests := []struct {
		name    string
		r       *Report
		opt     SaveResultOptions
		present []string // conditional keys expected
	}{
		{"no sessions", empty, SaveResultOptions{}, nil},
		{"omniinteract, no sessions", empty, SaveResultOptions{OmniInteract: true}, []string{"omniinteract"}},
		{"sessions without rows", imported, SaveResultOptions{}, []string{"duplex_session_metrics", "duplex_stream_ttft_ms", "duplex_stream_ttfp_ms", "duplex_stream_rtf"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, err := SaveResult(tc.r, tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			for _, k := range vllmKeys {
				if !SaveResultConditional[k] || contains(tc.present, k) {
					want = append(want, k)
				}
			}
			want = append(want, "duplexscope")
			if got := topKeysOf(t, b); strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("keys\n got %v\nwant %v", got, want)
			}
		})
	}
}

// TestVLLMResultRoundTrip: an imported --save-result file exports back with
// its own values for its keys.
func TestVLLMResultRoundTrip(t *testing.T) {
	t.Parallel()
	ex, _ := os.ReadFile("testdata/omniinteract_result.example.json")
	r, err := Import(ex, DefaultLimits, ImportOptions{Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := VLLMResult(r)
	if err != nil {
		t.Fatal(err)
	}
	var in, out map[string]json.RawMessage
	json.Unmarshal(ex, &in)
	json.Unmarshal(b, &out)
	for k, v := range in {
		var a, c bytes.Buffer
		json.Compact(&a, v)
		json.Compact(&c, out[k])
		if k != "duplex_session_metrics" && a.String() != c.String() {
			t.Errorf("%s = %s, imported %s", k, c.String(), a.String())
		}
	}
	if _, ok := out["omniinteract"]; !ok { // its sessions carry omniinteract: ids
		t.Error("no omniinteract summary for an OmniInteract import")
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
