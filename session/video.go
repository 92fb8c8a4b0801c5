package session

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"sync"

	"github.com/duplexscope/duplexscope/protocol"
	"github.com/duplexscope/duplexscope/trace"
)

// VideoSource chooses the video frames an append carries. Frames is called
// once per append, in order, with the append's 0-based index and its
// cumulative audio_end_ms; it returns the bare-base64 JPEG/PNG frames to
// attach (nil for none).
type VideoSource interface {
	Frames(appendIndex int, audioEndMs int64) []string
}

// Boundary gives the audio_end_ms at which frame k is due.
type Boundary func(k int) float64

// OmniInteractBoundary is vLLM-Omni OmniInteract's rule at 1 fps: frame k
// rides the first append whose end_ms ≥ (k+0.5)·1000.
func OmniInteractBoundary(k int) float64 { return (float64(k) + 0.5) * 1000 }

// DuplexEvalBoundary is Omni-DuplexEval's unit boundary: frame k rides the
// append whose cumulative audio_end_ms first reaches 1030 + 1000·k ms.
func DuplexEvalBoundary(k int) float64 { return 1030 + 1000*float64(k) }

// ScheduledVideo attaches pre-extracted frames at their boundaries; several
// frames due by the same append all ride it (as OmniInteract sends them).
// An empty frame (extraction missed it) is skipped but still consumes its
// slot.
type ScheduledVideo struct {
	List     []string
	Boundary Boundary
	next     int
}

// Frames implements VideoSource.
func (v *ScheduledVideo) Frames(_ int, endMs int64) []string {
	var out []string
	for v.next < len(v.List) && float64(endMs) >= v.Boundary(v.next) {
		if f := v.List[v.next]; f != "" {
			out = append(out, f)
		}
		v.next++
	}
	return out
}

// LatestFrame is a live camera: Set stores the newest captured frame and
// the next append carries it once (the browser demo's behaviour). Safe for
// concurrent use.
type LatestFrame struct {
	mu    sync.Mutex
	frame string
	fresh bool
}

// Set stores a newly captured frame (bare base64).
func (l *LatestFrame) Set(frame string) {
	l.mu.Lock()
	l.frame, l.fresh = frame, frame != ""
	l.mu.Unlock()
}

// Frames implements VideoSource.
func (l *LatestFrame) Frames(int, int64) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.fresh {
		return nil
	}
	l.fresh = false
	return []string{l.frame}
}

// VideoDigest is what a wire log keeps of a frame unless Config.KeepVideo:
// its decoded size and SHA-256 (frames would otherwise dominate the log).
type VideoDigest struct {
	Bytes  int    `json:"bytes"`
	SHA256 string `json:"sha256"`
}

// DigestFrame returns the digest of one bare-base64 frame (size and hash of
// the decoded bytes; of the text itself when it does not decode).
func DigestFrame(frame string) VideoDigest {
	b, err := base64.StdEncoding.DecodeString(frame)
	if err != nil {
		b = []byte(frame)
	}
	h := sha256.Sum256(b)
	return VideoDigest{Bytes: len(b), SHA256: hex.EncodeToString(h[:])}
}

// logVideo rewrites the logged copy of an append that carried frames: each
// frame becomes its VideoDigest. wire is what went on the socket.
func logVideo(wire []byte, frames []string) []byte {
	var m map[string]json.RawMessage
	if len(frames) == 0 || json.Unmarshal(wire, &m) != nil {
		return wire
	}
	ds := make([]VideoDigest, len(frames))
	for i, f := range frames {
		ds[i] = DigestFrame(f)
	}
	repl, _ := json.Marshal(ds)
	old, _ := json.Marshal(frames)
	// Replace the array in place, keeping the event's key order.
	if i := bytes.Index(wire, old); i >= 0 {
		out := make([]byte, 0, len(wire)-len(old)+len(repl))
		out = append(out, wire[:i]...)
		out = append(out, repl...)
		return append(out, wire[i+len(old):]...)
	}
	return wire
}

// VideoFramesSent counts the frames the appends of a wire log carried
// (kept bytes or digests alike).
func VideoFramesSent(t *trace.Session) int {
	n := 0
	for _, e := range t.Events {
		if e.Dir != trace.DirSend || !bytes.Contains(e.Event, []byte(`"video_frames"`)) {
			continue
		}
		var ev struct {
			Type        string            `json:"type"`
			VideoFrames []json.RawMessage `json:"video_frames"`
		}
		if json.Unmarshal(e.Event, &ev) == nil && ev.Type == "input_audio_buffer.append" {
			n += len(ev.VideoFrames)
		}
	}
	return n
}

// attachVideo asks the video source for the frames of the next append.
func (s *Session) attachVideo(ev *protocol.InputAudioBufferAppend) {
	s.mu.Lock()
	k := s.appends
	s.appends++
	s.mu.Unlock()
	if s.cfg.Video == nil || ev.AudioEndMs == nil {
		return
	}
	if fs := s.cfg.Video.Frames(k, *ev.AudioEndMs); len(fs) > 0 {
		ev.VideoFrames = fs
	}
}

// VideoFramesSent counts the video frames this session's appends carried.
func (s *Session) VideoFramesSent() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.videoSent
}
