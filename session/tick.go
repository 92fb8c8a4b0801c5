package session

import (
	"fmt"
	"strings"
)

// WarnFrameTickPrefix starts the session warning written when the append
// size disagrees with the server's advertised tick.
const WarnFrameTickPrefix = "frame size"

// settleFrame applies the advertised tick once session.created is in: with
// no frame size given (Config.FrameMs 0) a tick smaller than the 200 ms
// default becomes the append size (PersonaPlex: 80 ms); a given size that
// neither divides nor is a multiple of the tick is kept but warned about,
// since the server then re-cuts every append across tick boundaries.
func (s *Session) settleFrame(given bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.tickSeen {
		return
	}
	tick, f := s.chunkMs, s.cfg.FrameMs
	switch {
	case !given && tick < f:
		s.cfg.FrameMs = tick
	case given && f%tick != 0 && tick%f != 0:
		s.warnings = append(s.warnings, fmt.Sprintf("%s %d ms disagrees with the server's tick (capabilities.chunk_period_ms = %d ms); appends are cut across ticks", WarnFrameTickPrefix, f, tick))
	}
}

// FrameMs is the append size in use (after the server's tick was applied).
func (s *Session) FrameMs() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cfg.FrameMs
}

// TickWarning returns the frame-size warning settleFrame wrote ("" when the
// size agrees with the server's tick).
func (s *Session) TickWarning() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, w := range s.warnings {
		if strings.HasPrefix(w, WarnFrameTickPrefix) {
			return w
		}
	}
	return ""
}
