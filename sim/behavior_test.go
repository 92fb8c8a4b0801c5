//go:build !js

package sim

import (
	"testing"
	"time"

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

// TestContended: with the contended behaviour each turn's TTFP is the
// profile's plus 40 ms per other session open on the simulator — three
// sessions open at once answer at 30 + 2 × 40 ms (test profile), a session
// alone at 30 ms, one without the knob at 30 ms whatever else is open. The
// injected clock makes emit times exact.
func TestContended(t *testing.T) {
	t.Parallel()
	clk, hs, ctx := newManualServer(t, 30*time.Second)
	open := func(query string) *rawClient {
		c := dialRaw(ctx, t, hs.URL, query)
		c.send(ctx, sessionUpdate())
		if _, err := c.until(ctx, typeIs("session.created")); err != nil {
			t.Fatal(err)
		}
		return c
	}
	// stepUntil moves the clock exactly to each due output (within 1 s:
	// never to an idle timeout) until c receives an event of type typ.
	stepUntil := func(c *rawClient, typ string) []map[string]any {
		var evs []map[string]any
		for {
			var m map[string]any
			select {
			case m = <-c.recv:
			default:
				if next, ok := clk.NextWaiter(); ok && next < clk.Now()+time.Second {
					clk.Set(next)
					continue
				}
				_, changed := clk.Waiters()
				select {
				case <-changed:
					continue
				case m = <-c.recv:
				case <-ctx.Done():
					t.Fatalf("no %s: %v", typ, evs)
				}
			}
			if m == nil {
				t.Fatalf("connection ended: %v", evs)
			}
			if evs = append(evs, m); m["type"] == typ {
				return evs
			}
		}
	}
	// ttfp runs one turn of c and returns its server-reported TTFP. The
	// response is played out before it returns, so nothing of c is still
	// due while the next session's input is being read (a clock step then
	// would delay that session's turn and add to its TTFP).
	ttfp := func(c *rawClient) float64 {
		c.streamPCM(ctx, speechPCM([2]int{300, 600}), 6400)
		evs := stepUntil(c, "response.output_audio.delta")
		stepUntil(c, "response.done")
		for _, m := range evs {
			if v, ok := num(m, "response", "metadata", "duplex_event", "response_request_metrics", "ttfp_ms"); ok {
				return v
			}
			if v, ok := num(m, "metadata", "vllm_omni", "response_request_metrics", "ttfp_ms"); ok {
				return v
			}
		}
		t.Fatalf("no response_request_metrics ttfp_ms up to the first audio: %v", evs)
		return 0
	}
	alone := open("sim_behavior=contended")
	if got := ttfp(alone); got != 30 {
		t.Errorf("alone: ttfp %v, want 30", got)
	}
	b, c := open("sim_behavior=contended"), open("") // three open now
	if got := ttfp(b); got != 30+2*ContendedMsPerSession {
		t.Errorf("one of three: ttfp %v, want %d", got, 30+2*ContendedMsPerSession)
	}
	if got := ttfp(c); got != 30 {
		t.Errorf("without the knob: ttfp %v, want 30", got)
	}
}
