//go:build !js

package sim

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

var (
	jpegFrame = base64.StdEncoding.EncodeToString([]byte("\xff\xd8\xff\xe0\x00\x10JFIF\x00rest-of-jpeg"))
	pngFrame  = base64.StdEncoding.EncodeToString([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"))
)

func appendWithFrames(id string, pcm []byte, frames any) []byte {
	m := map[string]any{"type": "input_audio_buffer.append", "event_id": id,
		"audio": base64.StdEncoding.EncodeToString(pcm), "format": "pcm16", "sample_rate_hz": 16000}
	if frames != nil {
		m["video_frames"] = frames
	}
	b, _ := json.Marshal(m)
	return b
}

func TestInvalidVideoFrames(t *testing.T) {
	t.Parallel()
	gif := base64.StdEncoding.EncodeToString([]byte("GIF89a......"))
	tests := []struct {
		name   string
		frames any
		want   string // error code, "" for accepted
	}{
		{"jpeg", []string{jpegFrame}, ""},
		{"png", []string{pngFrame}, ""},
		{"base and composite", []string{jpegFrame, pngFrame}, ""},
		{"three frames", []string{jpegFrame, jpegFrame, jpegFrame}, CodeInvalidVideoFrames},
		{"empty list", []string{}, CodeInvalidVideoFrames},
		{"data URL", []string{"data:image/jpeg;base64," + jpegFrame}, CodeInvalidVideoFrames},
		{"not base64", []string{"@@@@"}, CodeInvalidVideoFrames},
		{"gif", []string{gif}, CodeInvalidVideoFrames},
		{"too large", []string{base64.StdEncoding.EncodeToString(append([]byte("\xff\xd8\xff"), make([]byte, MaxVideoFrameBytes)...))}, CodeInvalidVideoFrames},
		{"not a list", "frame", "bad_event"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, mustProfile(t, ProfileTest), "")
			h.update(0)
			h.send(10*ms, appendWithFrames("evt_v", make([]byte, 6400), tc.frames))
			h.runUntil(20 * ms)
			errs := h.ofType("error")
			tr := h.truth()
			switch {
			case tc.want == "" && len(errs) != 0:
				t.Fatalf("accepted frames answered %s", errs[0].frame)
			case tc.want == "" && (tr.VideoFramesReceived != len(tc.frames.([]string)) || h.e.inBytes != 6400):
				t.Fatalf("truth frames %d, input bytes %d", tr.VideoFramesReceived, h.e.inBytes)
			case tc.want != "" && len(errs) != 1:
				t.Fatalf("want one error, got %v", h.types())
			case tc.want != "" && (str(errs[0].ev, "error", "code") != tc.want || str(errs[0].ev, "error", "event_id") != "evt_v"):
				t.Fatalf("error = %s", errs[0].frame)
			case tc.want != "" && (h.e.inBytes != 0 || tr.VideoFramesReceived != 0):
				t.Fatalf("a refused append was taken: %d bytes, %d frames", h.e.inBytes, tr.VideoFramesReceived)
			}
		})
	}
}

// TestVideoTruthAndCost: truth names the append that carried each frame,
// and every frame delays the next response's TTFP by sim_video_frame_ms.
func TestVideoTruthAndCost(t *testing.T) {
	t.Parallel()
	run := func(query string, frameAt map[int]int) Truth {
		h := newHarness(t, mustProfile(t, ProfileTest), "sim_turns_ms=1000&sim_ttfp_ms=100&"+query)
		h.update(0)
		at := 10 * ms
		for k := 0; k < 8; k++ {
			var frames any
			if n := frameAt[k]; n > 0 {
				fs := make([]string, n)
				for i := range fs {
					fs[i] = jpegFrame
				}
				frames = fs
			}
			h.send(at, appendWithFrames(fmt.Sprintf("evt_%d", k), make([]byte, 6400), frames))
			at += 200 * time.Millisecond
		}
		h.runUntil(at + 5*time.Second)
		return h.truth()
	}
	ttfp := func(tr Truth) float64 {
		for _, r := range tr.Responses {
			if r.Kind == "speak" && r.TTFPMs != nil {
				return *r.TTFPMs
			}
		}
		t.Fatalf("no spoken response in %+v", tr.Responses)
		return 0
	}
	tests := []struct {
		name     string
		query    string
		frameAt  map[int]int
		wantCost float64
		want     []TruthVideoFrame
	}{
		{"no video", "", nil, 0, []TruthVideoFrame{}},
		{"default cost", "", map[int]int{1: 1, 3: 2}, 3 * DefaultVideoFrameMs,
			[]TruthVideoFrame{{1, 400}, {3, 800}, {3, 800}}},
		{"set cost", "sim_video_frame_ms=250", map[int]int{0: 1}, 250, []TruthVideoFrame{{0, 200}}},
		{"free", "sim_video_frame_ms=0", map[int]int{0: 1, 2: 1}, 0, []TruthVideoFrame{{0, 200}, {2, 600}}},
		{"after the turn", "", map[int]int{6: 1}, 0, []TruthVideoFrame{{6, 1400}}}, // charged to a later response
	}
	base := ttfp(run("", nil))
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr := run(tc.query, tc.frameAt)
			if got := ttfp(tr) - base; got != tc.wantCost {
				t.Errorf("video cost on TTFP = %v ms, want %v", got, tc.wantCost)
			}
			if tr.VideoFrames == nil {
				tr.VideoFrames = []TruthVideoFrame{} // the harness reads truth without snapshot's normalising
			}
			b, _ := json.Marshal(tr.VideoFrames)
			w, _ := json.Marshal(tc.want)
			if string(b) != string(w) || tr.VideoFramesReceived != len(tc.want) {
				t.Errorf("truth video_frames = %s (%d), want %s", b, tr.VideoFramesReceived, w)
			}
		})
	}
}

func TestVideoFrameMsBounds(t *testing.T) {
	t.Parallel()
	for _, v := range []string{"-1", "NaN", "Inf", "1001", "x", "1e400"} {
		o := &Options{}
		if _, err := o.resolve(mustProfile(t, ProfileTest), map[string][]string{"sim_video_frame_ms": {v}}); err == nil || !strings.Contains(err.Error(), "sim_video_frame_ms") {
			t.Errorf("sim_video_frame_ms=%s: err %v", v, err)
		}
	}
	for _, v := range []string{"0", "40", "1000", "12.5"} {
		if _, err := parseVideoFrameMs(v); err != nil {
			t.Errorf("sim_video_frame_ms=%s refused: %v", v, err)
		}
	}
}
