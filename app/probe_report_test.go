package app

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duplexscope/duplexscope/chart"

	"github.com/duplexscope/duplexscope/report"
	"github.com/duplexscope/duplexscope/session/tracker"
	"github.com/duplexscope/duplexscope/trace"
)

func TestProbeReports(t *testing.T) {
	recv := map[string]float64{"resp_1": 1800}
	cases := []struct {
		name      string
		p         sentProbe
		want      bool // in the report
		stoppedBy string
		stopLat   float64 // −1 = nil
		next      float64 // −1 = nil
		resume    float64 // −1 = nil
	}{
		{"never sent", sentProbe{ID: "probe_1", Kind: "interruption", Seq: -1}, false, "", -1, -1, -1},
		{"cleared", sentProbe{ID: "probe_1", Kind: "interruption", Clip: "standard:interruption", OnsetMs: 3000, ResponseID: "resp_1", StoppedBy: "cleared", StopMs: 3250, PlayedMs: 900, ResumeMs: 4000},
			true, "cleared", 250, 1000, 750},
		{"kept talking", sentProbe{ID: "probe_1", Kind: "interruption", Clip: "standard:interruption", OnsetMs: 3000, ResponseID: "resp_1", StoppedBy: "ended"}, true, "ended", -1, -1, -1},
		{"talked through until a later probe", sentProbe{ID: "probe_1", Kind: "interruption", Clip: "standard:interruption", OnsetMs: 3000, ResponseID: "resp_1", StoppedBy: "later_probe", ResumeMs: 4000},
			true, "later_probe", -1, 1000, -1},
		{"silent model", sentProbe{ID: "probe_1", Kind: "interruption", Clip: "standard:interruption", OnsetMs: 3000, ResumeMs: 3600}, true, "", -1, 600, -1},
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
			got := probeReports([]sentProbe{c.p}, 1000, recv, "sess_1")
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
			if g.OffsetS != 2 || g.OnsetMs != 3000 || g.SessionID != "sess_1" || g.Kind != "interruption" || g.Clip != "standard:interruption" || g.Clock == "" {
				t.Errorf("offset/onset/session/kind/clip/clock = %v %v %q %q %q %q", g.OffsetS, g.OnsetMs, g.SessionID, g.Kind, g.Clip, g.Clock)
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
		Probes: []sentProbe{{ID: "probe_1", Kind: "interruption", Clip: "standard:interruption", OnsetMs: 3000, ResponseID: "resp_1", StoppedBy: "cleared", StopMs: 3250, PlayedMs: 900},
			{ID: "probe_2", Kind: "backchannel", Clip: "standard:backchannel", OnsetMs: 2000, ResponseID: "resp_1", StoppedBy: "later_probe"}},
		ReceivedMs: map[string]float64{"resp_1": 1800}}
	rep, _, err := buildReport(in, "test")
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Probes) != 2 || rep.Probes[0].StoppedBy != "cleared" || *rep.Probes[0].StopLatencyMs != 250 || rep.Probes[1].StoppedBy != "later_probe" {
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

// TestProbeVerdict: each row says what the model did and judges it
// against what a good duplex model does for the kind.
func TestProbeVerdict(t *testing.T) {
	t.Parallel()
	sent := func(kind, by string) sentProbe {
		p := sentProbe{ID: "probe_1", Kind: kind, OnsetMs: 3000, ResponseID: "resp_1", StoppedBy: by}
		if by == "cleared" {
			p.StopMs, p.PlayedMs = 3240, 1500
		}
		return p
	}
	tests := []struct {
		name                   string
		p                      sentProbe
		verdict, outcome, pass string
	}{
		{"interruption stopped", sent("interruption", "cleared"), "stopped in 240 ms ✓", "cleared", "yes"},
		{"interruption talked over", sent("interruption", "ended"), "kept talking ✗", "ended", "no"},
		{"interruption until a later probe", sent("interruption", "later_probe"), "kept talking (until a later probe) ✗", "later_probe", "no"},
		{"backchannel kept talking", sent("backchannel", "ended"), "kept talking ✓", "ended", "yes"},
		{"backchannel until a later probe", sent("backchannel", "later_probe"), "kept talking (until a later probe) ✓", "later_probe", "yes"},
		{"backchannel stopped", sent("backchannel", "cleared"), "stopped in 240 ms ✗", "cleared", "no"},
		{"side talk stopped", sent("side_talk", "cleared"), "stopped in 240 ms ✗", "cleared", "no"},
		{"noise kept talking", sent("noise", "ended"), "kept talking ✓", "ended", "yes"},
		{"still playing", sent("noise", ""), "model still talking…", "pending", ""},
		{"silent model", sentProbe{ID: "probe_1", Kind: "interruption", OnsetMs: 3000}, "model was silent at onset: nothing to stop", "silent", ""},
		{"not sent yet", sentProbe{ID: "probe_1", Kind: "interruption", Seq: -1}, "waiting to be sent", "waiting", ""},
		{"no clip", sentProbe{ID: "probe_1", Kind: "noise", Err: "no noise clip: GET /api/probes: 404"}, "no noise clip: GET /api/probes: 404", "error", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			v := probeRow(tc.p, 2000)
			if v.Verdict != tc.verdict || v.Outcome != tc.outcome || v.Pass != tc.pass {
				t.Errorf("verdict %q outcome %q pass %q; want %q %q %q", v.Verdict, v.Outcome, v.Pass, tc.verdict, tc.outcome, tc.pass)
			}
			if tc.outcome == "cleared" && (v.StopLatency != "240 ms" || v.Played != "1500 ms") {
				t.Errorf("stop latency %q played %q, want 240 ms / 1500 ms", v.StopLatency, v.Played)
			}
		})
	}
}

// TestProbeStoppedAttribution: a cut belongs to the latest probe sent on
// the response before it; earlier probes on it were talked through, and a
// probe sent after the cut is untouched. The cut is marked on the timeline
// with the probe's id and kind.
func TestProbeStoppedAttribution(t *testing.T) {
	t.Parallel()
	follow := tracker.New()
	follow.Add(trace.Event{TMs: 1000, Dir: trace.DirLocal, Event: []byte(`{"type":"duplexscope.stream_start"}`)}, nil) // stream start
	v := tracker.NewView()
	v.Merge(follow.Delta(false))
	r := &liveRun{tracker: follow, wire: v, probes: liveProbes{sent: []*sentProbe{
		{ID: "probe_1", Kind: "backchannel", OnsetMs: 2000, ResponseID: "resp_1"},
		{ID: "probe_2", Kind: "interruption", OnsetMs: 4000, ResponseID: "resp_1"},
		{ID: "probe_3", Kind: "noise", OnsetMs: 4000, ResponseID: "resp_2"},
		{ID: "probe_4", Kind: "interruption", OnsetMs: 6000, ResponseID: "resp_1"},
	}}}
	r.probeStoppedLocked("resp_1", 5300, 3100)
	got := map[string]string{}
	for _, p := range r.probes.sent {
		got[p.ID] = p.StoppedBy
	}
	want := map[string]string{"probe_1": "later_probe", "probe_2": "cleared", "probe_3": "", "probe_4": ""}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("stopped_by (-want +got)\n%s", diff)
	}
	if p := r.probes.sent[1]; p.StopMs != 5300 || p.PlayedMs != 3100 {
		t.Errorf("probe_2 stop %v played %v, want 5300 / 3100", p.StopMs, p.PlayedMs)
	}
	if len(r.markers) != 1 || r.markers[0].Kind != chart.MarkProbeStop || r.markers[0].TS != 4.3 || !strings.Contains(r.markers[0].Label, "probe_2 (interruption)") {
		t.Errorf("markers %+v, want one probe stop at 4.3 s naming probe_2 (interruption)", r.markers)
	}
	r.probes.drained("resp_2")
	if r.probes.sent[2].StoppedBy != "ended" || r.probes.sent[3].StoppedBy != "" {
		t.Errorf("after resp_2 drained: probe_3 %q probe_4 %q, want ended / (still pending)", r.probes.sent[2].StoppedBy, r.probes.sent[3].StoppedBy)
	}
}
