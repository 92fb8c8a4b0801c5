package metrics_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/duplexscope/duplexscope/metrics/conformance"
)

// TestIdentityRule: "" is no identity (and no fallback to response.id), two
// lone surrogates are two responses, and a lone surrogate id is written back
// as its \uXXXX escape (strict JSON, identity kept).
func TestIdentityRule(t *testing.T) {
	t.Parallel()
	pair := func(t0 int, idField string) string {
		return `{"t_ms":` + strconv.Itoa(t0) + `,"dir":"recv","event":{"type":"response.created",` + idField + `}},` +
			`{"t_ms":` + strconv.Itoa(t0+50) + `,"dir":"recv","event":{"type":"response.output_audio.delta",` + idField + `,"delta":"AAAA"}}`
	}
	tests := []struct {
		name   string
		events string
		want   map[string]string
	}{
		{"two lone surrogates are two rows", pair(100, `"response_id":"\ud800"`) + "," + pair(200, `"response_id":"\udbff"`),
			map[string]string{"session_metrics.audio_turn_count": "2", "request_metrics[1].request_index": "1"}},
		{"empty response_id does not fall back to response.id", pair(100, `"response_id":"","response":{"id":"r"}`),
			map[string]string{"session_metrics.audio_turn_count": "0", "request_metrics": "[]"}},
		{"empty id before a real one keeps request_index 0", pair(100, `"response_id":""`) + "," + pair(200, `"response_id":"r"`),
			map[string]string{"request_metrics[0].request_index": "0", "request_metrics[0].response_id": `"r"`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			out, err := scoreBytes([]byte(`{"events":[` + tc.events + `]}`))
			if err != nil {
				t.Fatal(err)
			}
			if err := conformance.StrictJSON(out); err != nil {
				t.Fatal(err)
			}
			checkPaths(t, out, tc.want)
			if strings.Contains(tc.name, "surrogates") && (!strings.Contains(string(out), `"response_id":"\ud800"`) || !strings.Contains(string(out), `"response_id":"\udbff"`)) {
				t.Errorf("lone surrogate ids not written back as escapes: %s", out)
			}
		})
	}
}
