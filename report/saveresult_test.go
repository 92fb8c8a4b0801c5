package report

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/duplexscope/duplexscope/metrics"
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

// TestSaveResultObjectKeys: a session entry of duplexscope.sessions has
// its identity and outcome first and wire_log last, whichever writer adds
// keys around video_frames_sent (the page's report, `duplexscope run`).
func TestSaveResultObjectKeys(t *testing.T) {
	t.Parallel()
	e := SessionExtra{SessionID: "s1", Complete: true, WireLog: "w.jsonl", VideoFramesSent: 3}
	run := [2]metrics.Object{{{Key: "input_audio_chunks", Value: 10}}, {{Key: "pacing_mean_lag_s", Value: 0.001}, {Key: "frame_ms", Value: 200}}}
	for _, tc := range []struct {
		name          string
		before, after metrics.Object
		want          string
	}{
		{"report", nil, nil, "session_id server_session_id sample_id split complete error video_frames_sent wire_log"},
		{"run", run[0], run[1], "session_id server_session_id sample_id split complete error input_audio_chunks video_frames_sent pacing_mean_lag_s frame_ms wire_log"},
	} {
		var keys []string
		for _, m := range e.SaveResultObject(tc.before, tc.after) {
			keys = append(keys, m.Key)
		}
		if got := strings.Join(keys, " "); got != tc.want {
			t.Errorf("%s: keys\n got %s\nwant %s", tc.name, got, tc.want)
		}
	}
}
