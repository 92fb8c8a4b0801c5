package session

import (
	"strings"
	"testing"
)

func TestSettleFrame(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		frame    int // Config.FrameMs after defaults
		given    bool
		tick     int // 0: not advertised
		want     int
		wantWarn bool
	}{
		{"default, MiniCPM-o tick", 200, false, 1000, 200, false},
		{"default, PersonaPlex tick", 200, false, 80, 80, false},
		{"default, no tick", 200, false, 0, 200, false},
		{"given 200, PersonaPlex tick", 200, true, 80, 200, true},
		{"given 80, PersonaPlex tick", 80, true, 80, 80, false},
		{"given 160, PersonaPlex tick", 160, true, 80, 160, false},
		{"given 40, PersonaPlex tick", 40, true, 80, 40, false},
		{"given 200, MiniCPM-o tick", 200, true, 1000, 200, false},
		{"given 300, MiniCPM-o tick", 300, true, 1000, 300, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := &Session{cfg: Config{FrameMs: tc.frame}, chunkMs: 1000}
			if tc.tick > 0 {
				s.chunkMs, s.tickSeen = tc.tick, true
			}
			s.settleFrame(tc.given)
			warned := len(s.warnings) == 1 && strings.HasPrefix(s.warnings[0], WarnFrameTickPrefix)
			if s.FrameMs() != tc.want || warned != tc.wantWarn || (!tc.wantWarn && len(s.warnings) > 0) {
				t.Errorf("frame %d, warnings %q; want %d, warn %v", s.FrameMs(), s.warnings, tc.want, tc.wantWarn)
			}
		})
	}
}
