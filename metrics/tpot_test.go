package metrics_test

import (
	"encoding/json"
	"testing"

	"github.com/duplexscope/duplexscope/metrics"
	"github.com/duplexscope/duplexscope/trace"
	"github.com/google/go-cmp/cmp"
)

func TestEngineTPOT(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		outputs []metrics.EngineOutput
		want    metrics.EngineTPOTResult
	}{
		{"three tokens 30 ms later is 10 ms/token (P2)",
			[]metrics.EngineOutput{{TMs: 100, NewTokens: 1}, {TMs: 130, NewTokens: 3}},
			metrics.EngineTPOTResult{NumTokensOut: 4, Tokens: metrics.IntOf(4), ITLsMs: []float64{30}, TPOTMs: 10}},
		{"two segments exclude the gap and each first step",
			[]metrics.EngineOutput{{0, 1, 0}, {20, 1, 0}, {50, 2, 0}, {1000, 1, 1}, {1012, 1, 1}, {1036, 2, 1}},
			metrics.EngineTPOTResult{NumTokensOut: 8, Tokens: metrics.IntOf(8), ITLsMs: []float64{20, 30, 12, 24}, TPOTMs: 86.0 / 6}},
		{"nothing weighted is 0.0, no whole-request mean",
			[]metrics.EngineOutput{{0, 2, 0}, {500, 3, 1}},
			metrics.EngineTPOTResult{NumTokensOut: 5, Tokens: metrics.IntOf(5), ITLsMs: []float64{}, TPOTMs: 0}},
		{"zero-token output ignored entirely (anchor does not move)",
			[]metrics.EngineOutput{{0, 1, 0}, {10, 0, 0}, {20, 2, 0}},
			metrics.EngineTPOTResult{NumTokensOut: 3, Tokens: metrics.IntOf(3), ITLsMs: []float64{20}, TPOTMs: 10}},
		{"0,1,0 is three segments",
			[]metrics.EngineOutput{{0, 1, 0}, {10, 1, 1}, {20, 1, 0}},
			metrics.EngineTPOTResult{NumTokensOut: 3, Tokens: metrics.IntOf(3), ITLsMs: []float64{}, TPOTMs: 0}},
		{"empty", nil, metrics.EngineTPOTResult{ITLsMs: []float64{}}},
	}
	for _, tc := range tests {
		if diff := cmp.Diff(tc.want, metrics.EngineTPOT(tc.outputs)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
}

func TestScoreEngineTPOTJSONRules(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		outputs string
		want    metrics.EngineTPOTResult
	}{
		{"2.7 truncates to 2; 0.5, true, \"3\", null, missing skipped",
			`[{"t_ms":0,"new_tokens":1},{"t_ms":5,"new_tokens":0.5},{"t_ms":6,"new_tokens":true},{"t_ms":7,"new_tokens":"3"},{"t_ms":8,"new_tokens":null},{"t_ms":9},{"t_ms":20,"new_tokens":2.7}]`,
			metrics.EngineTPOTResult{NumTokensOut: 3, Tokens: metrics.IntOf(3), ITLsMs: []float64{20}, TPOTMs: 10}},
		{"segment missing = 0, equal to 0.0 and false; null is its own value; \"0\" differs",
			`[{"t_ms":0,"new_tokens":1},{"t_ms":10,"new_tokens":1,"segment":0.0},{"t_ms":20,"new_tokens":1,"segment":false},{"t_ms":30,"new_tokens":1,"segment":null},{"t_ms":40,"new_tokens":1,"segment":null},{"t_ms":50,"new_tokens":1,"segment":"0"}]`,
			metrics.EngineTPOTResult{NumTokensOut: 6, Tokens: metrics.IntOf(6), ITLsMs: []float64{10, 10, 10}, TPOTMs: 10}},
	}
	for _, tc := range tests {
		var outs []trace.EngineOutput
		if err := json.Unmarshal([]byte(tc.outputs), &outs); err != nil {
			t.Fatal(err)
		}
		got := metrics.ScoreEngineTPOT(trace.EngineTPOT{Outputs: outs})
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
}
