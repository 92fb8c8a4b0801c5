//go:build !js

package sim

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestTranscriptPieces: the opening piece goes first; later pieces wait
// for it except the last, which carries every remaining word.
func TestTranscriptPieces(t *testing.T) {
	t.Parallel()
	type call struct {
		n                    int
		opening, last, first bool
		want                 string
		ok                   bool
	}
	words := strings.Fields("one two three four five")
	tests := []struct {
		name  string
		calls []call
	}{
		{"opening then pieces then last", []call{
			{2, true, false, true, "one two", true},
			{2, false, false, false, " three four", true},
			{2, false, true, false, " five", true},
			{2, false, true, false, "", false},
		}},
		{"a piece before the opening waits", []call{
			{2, false, false, true, "", false},
			{2, true, false, true, "one two", true},
		}},
		{"the last piece before the opening sends everything", []call{
			{1, false, true, true, "one two three four five", true},
			{1, true, false, true, "", false},
		}},
		{"zero words per piece still sends one", []call{
			{0, true, false, true, "one", true},
			{0, false, false, false, " two", true},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr := newTranscript(words, 4)
			for i, c := range tc.calls {
				got, ok := tr.next(c.n, c.opening, c.last, c.first)
				if got != c.want || ok != c.ok {
					t.Errorf("call %d: %q %v, want %q %v", i, got, ok, c.want, c.ok)
				}
			}
			if tr.full() != "one two three four five" {
				t.Errorf("full %q", tr.full())
			}
		})
	}
}

func TestNewTranscriptPerPiece(t *testing.T) {
	t.Parallel()
	tests := []struct{ words, packets, want int }{
		{12, 4, 3}, // (12+4)/5
		{12, 1, 6}, // half opens, half follows the packet
		{3, 30, 1},
		{0, 5, 0},
	}
	for _, tc := range tests {
		if got := newTranscript(make([]string, tc.words), tc.packets).perPiece; got != tc.want {
			t.Errorf("%d words over %d packets: %d per piece, want %d", tc.words, tc.packets, got, tc.want)
		}
	}
}

// TestSpeakTiming: packets rtf × packet_ms apart from TTFP, text at TTFT
// but not after the last packet, delayed_burst sends packets 1… at once.
func TestSpeakTiming(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name               string
		ttfp, ttft         float64
		packets, packetMs  int
		rtf                float64
		burst              bool
		wantText, wantDone time.Duration
		wantPackets        []time.Duration
	}{
		{"test profile", 30, 20, 4, 100, 0.25, false, 1020 * ms, 1105 * ms, []time.Duration{1030 * ms, 1055 * ms, 1080 * ms, 1105 * ms}},
		{"text after the last packet is pulled in", 30, 500, 2, 100, 0.5, false, 1080 * ms, 1080 * ms, []time.Duration{1030 * ms, 1080 * ms}},
		{"burst", 30, 20, 3, 100, 1, true, 1020 * ms, 2230 * ms, []time.Duration{1030 * ms, 2230 * ms, 2230 * ms}},
		{"burst of one packet is none", 30, 20, 1, 100, 1, true, 1020 * ms, 1030 * ms, []time.Duration{1030 * ms}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newSpeakTiming(time.Second, tc.ttfp, tc.ttft, tc.packets, tc.packetMs, tc.rtf, tc.burst)
			var got []time.Duration
			for k := range tc.packets {
				got = append(got, s.packetAt(k))
			}
			if d := cmp.Diff(tc.wantPackets, got); d != "" || s.textAt != tc.wantText || s.doneAt != tc.wantDone {
				t.Errorf("text %v done %v, want %v %v; packets (-want +got):\n%s", s.textAt, s.doneAt, tc.wantText, tc.wantDone, d)
			}
		})
	}
}

// TestDrawLatency: the test profile's TTFP 30 / TTFT 20 ms plus what
// behaviours, load and video frames add.
func TestDrawLatency(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, query         string
		others, videoFrames int
		wantTTFP, wantTTFT  float64
	}{
		{"plain", "", 3, 0, 30, 20},
		{"slow takeover", "sim_behavior=slow_takeover", 0, 0, 1530, 1520},
		{"contended", "sim_behavior=contended", 3, 0, 30 + 3*ContendedMsPerSession, 20 + 3*ContendedMsPerSession},
		{"video", "sim_video_frame_ms=100", 0, 2, 230, 220},
		{"fixed ttfp", "sim_ttfp_ms=500", 0, 0, 500, 490},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newHarness(t, mustProfile(t, ProfileTest), tc.query).e
			e.others = func() int { return tc.others }
			e.video.pending = tc.videoFrames
			ttfp, ttft := e.drawLatency()
			if ttfp != tc.wantTTFP || ttft != tc.wantTTFT {
				t.Errorf("ttfp %v ttft %v, want %v %v", ttfp, ttft, tc.wantTTFP, tc.wantTTFT)
			}
			if e.video.pending != 0 {
				t.Error("video cost charged twice")
			}
		})
	}
}

// TestDrawSpeech: length in whole packets at the output rate; token counts
// drawn up front only for the first tokenAhead packets.
func TestDrawSpeech(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, query      string
		samples, packets int
		lateTokens       bool
	}{
		{"test profile", "", 400 * 24, 4, false},
		{"odd length", "sim_response_ms=333", 330 * 24, 4, false},
		{"longer than tokenAhead", "sim_response_ms=150000", 150000 * 24, 1500, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newHarness(t, mustProfile(t, ProfileTest), tc.query).e
			r := &response{}
			e.drawSpeech(r)
			if r.samples != tc.samples || r.packets != tc.packets || len(r.tokens) != min(tc.packets, tokenAhead) || (r.tokenRand != nil) != tc.lateTokens {
				t.Errorf("%d samples, %d packets, %d tokens drawn, late generator %v", r.samples, r.packets, len(r.tokens), r.tokenRand != nil)
			}
			if len(r.text.words) == 0 || r.voice == nil {
				t.Error("no words or voice")
			}
			if got := e.tokensOf(r, tc.packets-1); got != 3 {
				t.Errorf("last packet's tokens %d, want the profile's 3", got)
			}
		})
	}
}
