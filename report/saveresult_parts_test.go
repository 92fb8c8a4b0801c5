package report

import (
	"encoding/json"
	"math/big"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSessionCounts: the report's own sessions win when listed (only
// complete ones count as completed); else every metrics entry counts.
func TestSessionCounts(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name                string
		r                   Report
		sessions, completed int
	}{
		{"empty", Report{}, 0, 0},
		{"metrics entries only", Report{Metrics: Metrics{Sessions: make([]SessionEntry, 3)}}, 3, 3},
		{"own sessions win", Report{
			Metrics:  Metrics{Sessions: make([]SessionEntry, 3)},
			Sessions: []SessionExtra{{Complete: true}, {}},
		}, 2, 1},
		{"none complete", Report{Sessions: []SessionExtra{{}, {}, {}}}, 3, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, c := sessionCounts(&tc.r)
			if s != tc.sessions || c != tc.completed {
				t.Errorf("sessionCounts = %d, %d; want %d, %d", s, c, tc.sessions, tc.completed)
			}
		})
	}
}

// TestSaveResultDefaults: zero options take the run's clock and session
// count; set ones are kept.
func TestSaveResultDefaults(t *testing.T) {
	t.Parallel()
	run := Run{StartedAt: "2026-12-04T10:00:00Z", EndedAt: "2026-12-04T10:01:30Z"}
	for _, tc := range []struct {
		name string
		run  Run
		opt  SaveResultOptions
		want SaveResultOptions
	}{
		{"from the run", run, SaveResultOptions{},
			SaveResultOptions{Date: "20261204-100000", Backend: "openai-realtime-duplex", NumPrompts: 4, DurationS: 90}},
		{"set options kept", run, SaveResultOptions{Date: "d", Backend: "b", NumPrompts: 9, DurationS: 7},
			SaveResultOptions{Date: "d", Backend: "b", NumPrompts: 9, DurationS: 7}},
		{"end before start: no duration", Run{StartedAt: run.EndedAt, EndedAt: run.StartedAt}, SaveResultOptions{},
			SaveResultOptions{Date: "20261204-100130", Backend: "openai-realtime-duplex", NumPrompts: 4}},
		{"no clock", Run{}, SaveResultOptions{},
			SaveResultOptions{Date: "00010101-000000", Backend: "openai-realtime-duplex", NumPrompts: 4}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.opt.withDefaults(&Report{Run: tc.run}, 4)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}

// TestSumRequests: token counts add exactly past int64, audio in seconds,
// samples only from rows that have them.
func TestSumRequests(t *testing.T) {
	t.Parallel()
	f := func(v float64) *float64 { return &v }
	huge := "18446744073709551616" // 2^64
	rows := []Row{
		{Stage0: &Stage0{OutputTokenCount: json.Number(huge)}, AudioDurationMs: f(1500), TTFTMs: f(10)},
		{Stage0: &Stage0{OutputTokenCount: "2"}, TPOTMs: f(4)},
		{AudioDurationMs: f(500), TTFTMs: f(30), TPOTMs: f(6)},
	}
	got := sumRequests(rows)
	want, _ := new(big.Int).SetString("18446744073709551618", 10)
	if got.outTokens.Cmp(want) != 0 {
		t.Errorf("outTokens = %v, want %v", got.outTokens, want)
	}
	if got.audioS != 2 {
		t.Errorf("audioS = %v, want 2", got.audioS)
	}
	if diff := cmp.Diff([]float64{10, 30}, got.ttfts); diff != "" {
		t.Errorf("ttfts (-want +got)\n%s", diff)
	}
	if diff := cmp.Diff([]float64{4, 6}, got.tpots); diff != "" {
		t.Errorf("tpots (-want +got)\n%s", diff)
	}
	if empty := sumRequests(nil); empty.outTokens.Sign() != 0 || empty.audioS != 0 || empty.ttfts != nil || empty.tpots != nil {
		t.Errorf("sumRequests(nil) = %+v, want zero totals", empty)
	}
}
