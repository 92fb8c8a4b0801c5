//go:build !js

package main

import (
	"bytes"
	"testing"
)

func TestLiveStatsDescribe(t *testing.T) {
	t.Parallel()
	type ttfp struct {
		ms     float64
		server bool
	}
	cases := []struct {
		name string
		add  []ttfp
		want string
	}{
		{"none yet", nil, "TTFP p50 –"},
		{"server clock", []ttfp{{300, true}, {100, true}, {200, true}}, "TTFP p50 200.0 ms (server clock, 3 responses)"},
		{"client receive clock", []ttfp{{120.25, false}}, "TTFP p50 120.2 ms (client receive clock, 1 responses)"},
		{"mixed clocks", []ttfp{{400, false}, {100, true}}, "TTFP p50 100.0 ms (mixed clocks, 2 responses)"},
	}
	for _, tc := range cases {
		l := &liveStats{}
		for _, a := range tc.add {
			l.add(a.ms, a.server)
		}
		if got := l.describe(); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestSessionProgressWithoutBar: --progress=false (or nothing to run) draws
// nothing, yet lines written during the run still reach stderr.
func TestSessionProgressWithoutBar(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		show     bool
		sessions int
	}{{false, 3}, {true, 0}} {
		var w bytes.Buffer
		p := newSessionProgress(tc.show, tc.sessions, &w, &liveStats{})
		p.describe()
		p.step()
		p.printf("run: %s\n", "a line")
		p.finish()
		if p.bar != nil || w.String() != "run: a line\n" {
			t.Errorf("show %v sessions %d: bar %v, stderr %q; want no bar and only the line", tc.show, tc.sessions, p.bar != nil, w.String())
		}
	}
}
