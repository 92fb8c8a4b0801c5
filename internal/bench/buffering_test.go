//go:build !js

package bench

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/duplexscope/duplexscope/trace"
	"github.com/google/go-cmp/cmp"
)

// audioEv is an output_audio.delta of ms of 24 kHz PCM16 (48 bytes a ms)
// for response id, received at t.
func audioEv(t float64, id string, ms int) trace.Event {
	b64 := strings.Repeat("AAAA", ms*48/3) // 3 bytes per 4 characters
	return trace.Event{TMs: t, Dir: trace.DirRecv, Event: json.RawMessage(fmt.Sprintf(`{"type":"response.output_audio.delta","response_id":%q,"delta":%q}`, id, b64))}
}

func startEv(t float64, id string, playedAt float64) trace.Event {
	return trace.Event{TMs: t, Dir: trace.DirLocal, Event: json.RawMessage(fmt.Sprintf(`{"type":"duplexscope.playback","event":"start","response_id":%q,"played_at_ms":%g,"clock":"playback"}`, id, playedAt))}
}

func clearedEv(t float64, id string, playedMs int) trace.Event {
	return trace.Event{TMs: t, Dir: trace.DirLocal, Event: json.RawMessage(fmt.Sprintf(`{"type":"duplexscope.playback","event":"cleared","response_id":%q,"played_ms":%d,"dropped_ms":0}`, id, playedMs))}
}

// TestPlayerBuffering: a response the player was free for counts with its
// first audio's receive stamp → first sample; one whose audio arrived
// while the previous response still played is left out (counted as
// queued): heard − client TTFP would give 545 ms for r2 of "queued behind
// the previous response", the previous response's remaining audio, and
// that 545 ms wait is what made a 10-minute session's p50 look like 116 ms
// of buffering.
func TestPlayerBuffering(t *testing.T) {
	t.Parallel()
	r1 := []trace.Event{audioEv(1000, "r1", 500), startEv(1010, "r1", 1040), audioEv(1300, "r1", 500)} // plays 1040–2040
	tests := []struct {
		name   string
		events []trace.Event
		want   []float64
		queued int
	}{
		{"player free", r1, []float64{40}, 0},
		{"queued behind the previous response", append(r1[:3:3], audioEv(1500, "r2", 1000), startEv(2000, "r2", 2045)), []float64{40}, 1},
		{"previous response ended before", append(r1[:3:3], audioEv(2100, "r2", 1000), startEv(2110, "r2", 2140)), []float64{40, 40}, 0},
		{"previous response cleared: it ended at its played_ms", append(r1[:3:3], clearedEv(1340, "r1", 300), audioEv(1500, "r2", 1000), startEv(1510, "r2", 1540)), []float64{40, 40}, 0},
		{"cleared, next response queued until the cut", append(r1[:3:3], clearedEv(1340, "r1", 300), audioEv(1200, "r2", 1000), startEv(1340, "r2", 1345)), []float64{40}, 1},
		{"a response never played is skipped", append(r1[:3:3], audioEv(1400, "r2", 1000), clearedEv(1450, "r2", 0), audioEv(1500, "r3", 1000), startEv(2000, "r3", 2045)), []float64{40}, 1},
		{"only the first start counts; unknown ids are ignored", append(r1[:3:3], startEv(1500, "r1", 1500), startEv(1600, "r9", 1600)), []float64{40}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := PlayerBuffering(tt.events)
			if diff := cmp.Diff(tt.want, got.Delays); diff != "" {
				t.Errorf("Delays (-want +got):\n%s", diff)
			}
			if got.Queued != tt.queued {
				t.Errorf("Queued = %d, want %d", got.Queued, tt.queued)
			}
		})
	}
}

func TestBase64Len(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"", "AA==", "AAA=", "AAAA", "AA", "AAA", "AAAAAA=="} {
		want := 0
		if b, err := base64Decode(s); err == nil {
			want = len(b)
		} else {
			t.Fatalf("%q: %v", s, err)
		}
		if got := base64Len(s); got != want {
			t.Errorf("base64Len(%q) = %d, want %d", s, got, want)
		}
	}
}

// base64Decode decodes padded or unpadded standard base64 (the reference
// for base64Len).
func base64Decode(s string) ([]byte, error) {
	return base64.RawStdEncoding.DecodeString(strings.TrimRight(s, "="))
}
