//go:build !js

package sim

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/duplexscope/duplexscope/protocol"
)

// CodeInvalidVideoFrames is the error code of an append whose video_frames
// the server refuses (docs/protocol.md#errors).
const CodeInvalidVideoFrames = "invalid_video_frames"

// Video frame bounds the simulator enforces, as the real server does: 1–2
// bare-base64 JPEG/PNG frames per append (a base frame and an optional
// composite).
const (
	MaxVideoFramesPerAppend = 2
	// DefaultVideoFrameMs is the default per-frame cost: each frame delays
	// the next response's first text and audio by this much (the model
	// prefills the image's tokens before it can answer).
	DefaultVideoFrameMs = 40
	// MaxVideoFrameMs bounds sim_video_frame_ms (a realistic image prefill
	// is tens of ms; a second per frame is already far beyond it).
	MaxVideoFrameMs = 1000
	// maxTruthVideoFrames bounds the frames listed per session in truth.
	maxTruthVideoFrames = 20000
)

// TruthVideoFrame says which append carried a frame: its 0-based index
// among the session's accepted appends and the cumulative input clock
// (audio_end_ms, from decoded bytes) after it.
type TruthVideoFrame struct {
	AppendIndex int   `json:"append_index"`
	AudioEndMs  int64 `json:"audio_end_ms"`
}

// videoState is one session's video bookkeeping.
type videoState struct {
	appends int     // accepted appends so far
	pending int     // frames received since the last response started
	frameMs float64 // per-frame cost
}

// parseVideoFrameMs reads a sim_video_frame_ms value: finite, 0…MaxVideoFrameMs.
func parseVideoFrameMs(v string) (float64, error) {
	ms, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(ms) || math.IsInf(ms, 0) || ms < 0 || ms > MaxVideoFrameMs {
		return 0, fmt.Errorf("sim: sim_video_frame_ms %q: want a number 0…%d", v, MaxVideoFrameMs)
	}
	return ms, nil
}

// validVideoFrames checks an append's video_frames: count, bare base64,
// JPEG or PNG magic, size. It returns a message for invalid_video_frames,
// or "" when the frames are acceptable (or absent).
func validVideoFrames(frames []string) string {
	if frames == nil {
		return ""
	}
	if len(frames) == 0 || len(frames) > MaxVideoFramesPerAppend {
		return fmt.Sprintf("video_frames: want 1 to %d frames, got %d", MaxVideoFramesPerAppend, len(frames))
	}
	for i, f := range frames {
		if base64.StdEncoding.DecodedLen(len(f)) > MaxVideoFrameBytes+3 {
			return fmt.Sprintf("video_frames[%d]: larger than %d bytes", i, MaxVideoFrameBytes)
		}
		b, err := base64.StdEncoding.DecodeString(f)
		if err != nil {
			return fmt.Sprintf("video_frames[%d]: not bare base64 (no data: prefix)", i)
		}
		if !isJPEG(b) && !isPNG(b) {
			return fmt.Sprintf("video_frames[%d]: not a JPEG or PNG image", i)
		}
	}
	return ""
}

func isJPEG(b []byte) bool { return len(b) >= 3 && b[0] == 0xFF && b[1] == 0xD8 && b[2] == 0xFF }

func isPNG(b []byte) bool { return bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")) }

// checkVideo rejects an append with invalid video frames (the audio is not
// taken either, as the server refuses the whole event).
func (e *engine) checkVideo(now time.Duration, ev *protocol.InputAudioBufferAppend) bool {
	if msg := validVideoFrames(ev.VideoFrames); msg != "" {
		e.sendError(now, CodeInvalidVideoFrames, "input_audio_buffer.append: "+msg, ev.EventID)
		return false
	}
	return true
}

// noteAppend records an accepted append and the frames it carried in the
// session's truth; the frames' cost is charged to the next response.
func (e *engine) noteAppend(ev *protocol.InputAudioBufferAppend) {
	idx := e.video.appends
	e.video.appends++
	n := len(ev.VideoFrames)
	if n == 0 {
		return
	}
	e.video.pending += n
	end := e.inputMs()
	e.truth.mu.Lock()
	e.truth.t.VideoFramesReceived += n
	for range n {
		if len(e.truth.t.VideoFrames) < maxTruthVideoFrames {
			e.truth.t.VideoFrames = append(e.truth.t.VideoFrames, TruthVideoFrame{AppendIndex: idx, AudioEndMs: end})
		}
	}
	e.truth.mu.Unlock()
}

// takeVideoCost returns the delay the frames received since the last
// response add to this one, and clears it.
func (e *engine) takeVideoCost() float64 {
	c := float64(e.video.pending) * e.video.frameMs
	e.video.pending = 0
	return c
}
