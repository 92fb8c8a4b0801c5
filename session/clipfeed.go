package session

import (
	"context"
	"time"

	"github.com/duplexscope/duplexscope/audio"
)

// ClipFeed cuts a clip (16 kHz mono PCM16 LE) into input frames for a
// session that streams it on its own clock (the page's session worker):
// the clip, then silence for as long as frames are asked for, with probe
// clips mixed in from the start of the next frame. It is the browser input
// worklet's clip mode without the audio clock, whose drift against
// performance.now() (≈ 190 ppm on a headless Chromium's fake device) would
// otherwise become the send schedule's drift.
type ClipFeed struct {
	clip  []byte
	frame int // bytes per frame
	pos   int // stream byte offset of the next frame
	seq   int
	ended bool // the frame holding the clip's last byte was cut
	inj   []byte
	injID string
}

// FeedFrame is one frame of a ClipFeed.
type FeedFrame struct {
	Seq     int
	PCM     []byte
	RMS     float64
	ClipEnd bool   // the clip's last sample is in this frame
	ProbeID string // a probe's first sample is this frame's first sample
}

// NewClipFeed cuts clip into frames of frameMs (200 ms when ≤ 0).
func NewClipFeed(clip []byte, frameMs int) *ClipFeed {
	if frameMs <= 0 {
		frameMs = FrameOmniInteract
	}
	return &ClipFeed{clip: clip[:len(clip)&^1], frame: audio.FrameBytes(audio.InputRate, frameMs)}
}

// Inject mixes pcm (16 kHz mono PCM16 LE) into the stream from the next
// frame's first sample on; that frame carries id as its ProbeID. A probe
// injected while another plays replaces it, as in the input worklet.
func (f *ClipFeed) Inject(id string, pcm []byte) {
	f.inj, f.injID = pcm[:len(pcm)&^1], id
}

// Next cuts the next frame.
func (f *ClipFeed) Next() FeedFrame {
	out := FeedFrame{Seq: f.seq, PCM: make([]byte, f.frame)}
	if f.pos < len(f.clip) {
		copy(out.PCM, f.clip[f.pos:])
	}
	if f.injID != "" {
		out.ProbeID, f.injID = f.injID, ""
	}
	if len(f.inj) > 0 {
		n := mixPCM16(out.PCM, f.inj)
		f.inj = f.inj[n:]
	}
	f.pos += f.frame
	f.seq++
	if !f.ended && len(f.clip) > 0 && f.pos >= len(f.clip) {
		out.ClipEnd, f.ended = true, true
	}
	out.RMS = audio.RMSPCM16(out.PCM)
	return out
}

// mixPCM16 adds src onto dst sample by sample, clipped to int16, and
// returns the bytes of src used.
func mixPCM16(dst, src []byte) int {
	n := min(len(dst), len(src)) &^ 1
	for i := 0; i < n; i += 2 {
		v := int32(int16(uint16(dst[i])|uint16(dst[i+1])<<8)) + int32(int16(uint16(src[i])|uint16(src[i+1])<<8))
		v = max(-32768, min(32767, v))
		dst[i], dst[i+1] = byte(uint16(v)), byte(uint16(v)>>8)
	}
	return n
}

// spinUntil busy-waits until clock c reads t (the last PaceSpin before a
// frame is due), checking ctx every 1 000 reads.
func spinUntil(ctx context.Context, c Clock, t time.Duration) error {
	for i := 1; c.Now() < t; i++ {
		if i%1000 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
	}
	return nil
}

// PaceFrames sends the frames next returns on the session's own clock: a
// frame is due at stream start (the first append) + the bytes sent before
// it / 32 000 s, the absolute schedule Stream keeps, so a late wake-up
// never becomes drift. It stops without error when next returns ok false,
// and with the session's (or ctx's) error otherwise; sent runs after each
// append with its instant on the session clock.
func (s *Session) PaceFrames(ctx context.Context, next func() (FeedFrame, bool), sent func(FeedFrame, time.Duration)) error {
	for k := 0; ; k++ {
		if k > 0 {
			s.mu.Lock()
			var due time.Duration
			if s.streamAt != nil {
				due = *s.streamAt + audio.BytesToDuration(s.sentBytes, audio.InputRate)
			}
			s.mu.Unlock()
			if err := s.cfg.Sleeper.SleepUntil(ctx, due-s.cfg.PaceSpin); err != nil {
				return err
			}
			if err := spinUntil(ctx, s.clock, due); err != nil {
				return err
			}
		}
		f, ok := next()
		if !ok {
			return nil
		}
		if err := s.SendFrame(ctx, f.PCM); err != nil {
			return err
		}
		if sent != nil {
			sent(f, s.clock.Now())
		}
	}
}
