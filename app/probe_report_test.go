package app

import (
	"testing"

	"github.com/duplexscope/duplexscope/report"
)

func TestProbeReports(t *testing.T) {
	recv := map[string]float64{"resp_1": 1800}
	cases := []struct {
		name      string
		p         probe
		want      bool // in the report
		stoppedBy string
		stopLat   float64 // −1 = nil
		next      float64 // −1 = nil
		resume    float64 // −1 = nil
	}{
		{"never sent", probe{ID: "probe_1", Kind: "interrupt", Seq: -1}, false, "", -1, -1, -1},
		{"cleared", probe{ID: "probe_1", Kind: "interrupt", OnsetMs: 3000, ResponseID: "resp_1", StopMs: 3250, PlayedMs: 900, ResumeMs: 4000, Outcome: "stopped"},
			true, "cleared", 250, 1000, 750},
		{"kept talking", probe{ID: "probe_1", Kind: "interrupt", OnsetMs: 3000, ResponseID: "resp_1", Outcome: probeKeptTalking}, true, "ended", -1, -1, -1},
		{"silent model", probe{ID: "probe_1", Kind: "interrupt", OnsetMs: 3000, ResumeMs: 3600, Outcome: "model was silent at onset"}, true, "", -1, 600, -1},
	}
	ptr := func(v float64) *float64 {
		if v < 0 {
			return nil
		}
		return &v
	}
	eq := func(a, b *float64) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := probeReports([]probe{c.p}, 1000, recv, "sess_1")
			if !c.want {
				if len(got) != 0 {
					t.Fatalf("got %d probes, want none", len(got))
				}
				return
			}
			if len(got) != 1 {
				t.Fatalf("got %d probes, want 1", len(got))
			}
			g := got[0]
			if g.OffsetS != 2 || g.OnsetMs != 3000 || g.SessionID != "sess_1" || g.Kind != "interrupt" || g.Clock == "" {
				t.Errorf("offset/onset/session/kind/clock = %v %v %q %q %q", g.OffsetS, g.OnsetMs, g.SessionID, g.Kind, g.Clock)
			}
			if g.StoppedBy != c.stoppedBy || !eq(g.StopLatencyMs, ptr(c.stopLat)) || !eq(g.NextResponseMs, ptr(c.next)) || !eq(g.ResumeAfterMs, ptr(c.resume)) {
				t.Errorf("stopped_by %q stop %v next %v resume %v; want %q %v %v %v", g.StoppedBy, g.StopLatencyMs, g.NextResponseMs, g.ResumeAfterMs,
					c.stoppedBy, ptr(c.stopLat), ptr(c.next), ptr(c.resume))
			}
			if c.p.ResponseID != "" && (g.ReceivedMs == nil || *g.ReceivedMs != 1800) {
				t.Errorf("received_ms = %v, want 1800", g.ReceivedMs)
			}
			if c.stoppedBy == "cleared" && (g.PlayedMs == nil || *g.PlayedMs != 900) {
				t.Errorf("played_ms = %v, want 900", g.PlayedMs)
			}
		})
	}
}

// TestBuildReportProbes: a run with a probe yields report.probes that pass
// the report's own validation.
func TestBuildReportProbes(t *testing.T) {
	in := saveInput{Settings: Settings{URL: "ws://x/v1/realtime", Model: "sim", FrameMs: 20}, Complete: true, StreamStartMs: 1000,
		Probes:     []probe{{ID: "probe_1", Kind: "interrupt", OnsetMs: 3000, ResponseID: "resp_1", StopMs: 3250, PlayedMs: 900, Outcome: "stopped"}},
		ReceivedMs: map[string]float64{"resp_1": 1800}}
	rep, _, err := buildReport(in, "test")
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Probes) != 1 || rep.Probes[0].StoppedBy != "cleared" || *rep.Probes[0].StopLatencyMs != 250 {
		t.Fatalf("probes = %+v", rep.Probes)
	}
	b, err := report.MarshalIndent(rep)
	if err != nil {
		t.Fatal(err)
	}
	lim := report.Limits{MaxBytes: 1 << 20, MaxDepth: 32, MaxArray: 10_000, MaxString: 1 << 16, MaxRows: 10_000}
	if _, err := report.Decode(b, lim); err != nil {
		t.Fatalf("report does not validate: %v", err)
	}
}
