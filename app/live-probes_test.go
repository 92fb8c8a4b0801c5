package app

import (
	"testing"

	"github.com/duplexscope/duplexscope/session/probe"
)

// TestLiveProbes follows three probes through a run: the schedule lets
// each go at its offset; onsets are stamped once, when their frame is
// sent, with the response playing then; the next response.created after
// an onset is its resume.
func TestLiveProbes(t *testing.T) {
	t.Parallel()
	p := newLiveProbes([]probe.At{{Kind: probe.KindInterruption, OffsetS: 1}, {Kind: probe.KindBackchannel, OffsetS: 2}})
	for _, c := range []struct {
		sentMs float64
		want   string
	}{{999, ""}, {1000, probe.KindInterruption}, {1500, ""}, {2200, probe.KindBackchannel}, {9000, ""}} {
		if got := p.due(c.sentMs); got != c.want {
			t.Errorf("due at %v ms sent = %q, want %q", c.sentMs, got, c.want)
		}
	}

	a, b, c := p.add(probe.KindInterruption), p.add(probe.KindBackchannel), p.add(probe.KindInterruption)
	if a.ID != "probe_1" || c.ID != "probe_3" || a.Seq != -1 {
		t.Fatalf("ids %s, %s, %s (seq %d), want probe_1..3 with no frame yet", a.ID, b.ID, c.ID, a.Seq)
	}
	p.onset(a.ID, 10)
	p.onset(a.ID, 11) // a second report of the same probe: the first frame stands
	p.onset(b.ID, 12)
	p.onset(c.ID, 20)
	playing := "r1"
	if got := p.frameSent(10, 1000, func() string { return playing }); len(got) != 1 || got[0] != a || a.OnsetMs != 1000 || a.ResponseID != "r1" {
		t.Errorf("frame 10 sent: stamped %v, probe_1 %+v; want probe_1 at 1000 over r1", got, *a)
	}
	p.frameSent(12, 1400, func() string { return playing })
	if got := p.frameSent(10, 1600, func() string { return playing }); len(got) != 0 || a.OnsetMs != 1000 {
		t.Errorf("frame 10 again: stamped %v, onset %v; want none, 1000", got, a.OnsetMs)
	}
	playing = "r2"
	p.frameSent(20, 3000, func() string { return playing })

	// (Stops and drains: TestProbeStoppedAttribution.)
	if got := p.stopped("r9", 5000, 0); got != nil {
		t.Errorf("a cut with no probe on it was attributed to %s", got.ID)
	}
	p.created(2000)
	if a.ResumeMs != 2000 || b.ResumeMs != 2000 || c.ResumeMs != 0 {
		t.Errorf("resume %v/%v/%v after a created at 2000, want 2000/2000/0 (probe_3 sent at 3000)", a.ResumeMs, b.ResumeMs, c.ResumeMs)
	}
	if got := p.interruptionOnsets(); len(got) != 2 || got[0] != 1000 || got[1] != 3000 {
		t.Errorf("interruption onsets %v, want [1000 3000] (probe_2 is a backchannel)", got)
	}
	cp := p.copies()
	cp[0].Kind = "changed"
	if a.Kind == "changed" || len(cp) != 3 {
		t.Error("copies share the run's probes")
	}
}
