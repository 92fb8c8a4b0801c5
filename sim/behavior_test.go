//go:build !js

package sim

import (
	"testing"

	"github.com/duplexscope/duplexscope/protocol"
	"github.com/google/go-cmp/cmp"
)

// TestBehaviors checks each turn-taking knob against a known answer: the
// spoken responses' request starts (input-clock aligned, injected time) and
// whether the model truncated.
func TestBehaviors(t *testing.T) {
	t.Parallel()
	pause := [][2]int{{1000, 300}, {1000, 2000}}               // a 300 ms pause inside one user turn
	backchannel := [][2]int{{400, 2000}, {1500, 2000}}         // "mm-hm", then a real turn
	blip := [][2]int{{0, 500}, {80, 2000}}                     // 80 ms of speech
	bargeBC := [][2]int{{1200, 600}, {400, 500}, {1500, 2000}} // a turn, then a backchannel and a real interruption over the answers
	// Appends of 200 ms are accepted at 10 + their input start (ms); a turn
	// is answered at the append holding the frame that completes the silence.
	tests := []struct {
		name, profile, query string
		turns                [][2]int
		wantStarts           []float64 // spoken responses' start_ms
		wantCancelled        int
		wantTTFP             float64 // 0: not checked
	}{
		// minicpmo: 500 ms of silence ends a turn → one answer, at input 2300+500 (append 2600..2800)
		{"pause default", ProfileMiniCPMO, "sim_ttfp_ms=100&sim_response_ms=1000", pause, []float64{2610}, 0, 0},
		// interrupts_pauses: 150 ms → takes the turn at the pause (input 1150) and again at 2450
		{"pause interrupts", ProfileMiniCPMO, "sim_ttfp_ms=100&sim_response_ms=1000&sim_behavior=interrupts_pauses", pause, []float64{1010, 2410}, 0, 0},
		// turn ends at input 900 and 4400
		{"backchannel default", ProfileMiniCPMO, "sim_ttfp_ms=100&sim_response_ms=1000", backchannel, []float64{810, 4210}, 0, 0},
		{"backchannel ignored", ProfileMiniCPMO, "sim_ttfp_ms=100&sim_response_ms=1000&sim_behavior=ignores_backchannels", backchannel, []float64{4210}, 0, 0},
		{"blip default", ProfileMiniCPMO, "sim_ttfp_ms=100", blip, nil, 0, 0},
		{"blip answered", ProfileMiniCPMO, "sim_ttfp_ms=100&sim_behavior=responds_backchannels", blip, []float64{1010}, 0, 0},
		{"slow takeover", ProfileTest, "sim_behavior=slow_takeover", [][2]int{{500, 2500}}, []float64{610}, 0, 1530},
		// personaplex (300 ms silence, 80 ms onset): turns end at input 1500, 2500, 4500; the backchannel's
		// onset (1880) truncates the first answer and the interruption's (2780) the second
		{"barge backchannel default", ProfilePersonaPlex, "sim_ttfp_ms=50&sim_response_ms=3000", bargeBC, []float64{1410, 2410, 4410}, 2, 0},
		// ignores_backchannels: the backchannel neither truncates nor is answered; the interruption
		// truncates once it has lasted 1 s (input 3700, append 3600..3800)
		{"barge backchannel ignored", ProfilePersonaPlex, "sim_ttfp_ms=50&sim_response_ms=3000&sim_behavior=ignores_backchannels", bargeBC, []float64{1410, 4410}, 1, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := runSession(t, mustProfile(t, tc.profile), tc.query, tc.turns)
			checkInvariants(t, h)
			var starts []float64
			cancelled := 0
			for _, r := range h.truth().Responses {
				if r.Kind != "speak" {
					continue
				}
				starts = append(starts, r.StartMs)
				if r.Status == "cancelled" {
					cancelled++
				}
				if tc.wantTTFP != 0 && (r.TTFPMs == nil || *r.TTFPMs != tc.wantTTFP) {
					t.Errorf("ttfp %v, want %v", r.TTFPMs, tc.wantTTFP)
				}
			}
			if d := cmp.Diff(tc.wantStarts, starts); d != "" {
				t.Errorf("spoken starts (-want +got):\n%s", d)
			}
			if cancelled != tc.wantCancelled || len(h.ofType(protocol.TypeOutputAudioBufferCleared)) != tc.wantCancelled {
				t.Errorf("cancelled %d cleared %d, want %d", cancelled, len(h.ofType(protocol.TypeOutputAudioBufferCleared)), tc.wantCancelled)
			}
		})
	}
}
