package app

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duplexscope/duplexscope/chart"
	"github.com/duplexscope/duplexscope/session"
	"github.com/duplexscope/duplexscope/session/tracker"
	"github.com/duplexscope/duplexscope/trace"
)

// TestPlaybackReports: the player's messages become heard instants (the
// first start's performance.now() ms), played samples, underruns and
// playback acks — 0 at the first start, then by the 200 ms step, once per
// value and per response — and only for responses on the wire; with the
// session in the worker the page keeps the state but sends no acks.
func TestPlaybackReports(t *testing.T) {
	t.Parallel()
	type msg struct {
		m      playbackMsg
		known  bool
		acking bool
	}
	on := func(typ, id string, played int, perfMs float64) msg {
		return msg{playbackMsg{Type: typ, ID: id, Played: played, PerfMs: perfMs}, true, true}
	}
	type heard struct {
		StartMs float64
		Under   int
	}
	tests := []struct {
		name    string
		msgs    []msg
		heard   map[string]heard
		playing map[string]bool
		acks    []string // "id=ms"
		starts  int      // reports with started set
		notes   []string // "event id"
	}{
		{
			name: "heard at the first start; acks 0, then per 200 ms step, then at drain",
			msgs: []msg{
				on("start", "r1", 0, 1000), on("start", "r1", 0, 1400), // a repeated start keeps the first instant
				on("progress", "r1", 2400, 1100), // 100 ms: under the step
				on("progress", "r1", 4800, 1200), // 200 ms
				on("progress", "r1", 4800, 1250), // the same value: no second ack
				on("drained", "r1", 6000, 1300),  // 250 ms, the end
			},
			heard:   map[string]heard{"r1": {1000, 0}},
			playing: map[string]bool{"r1": false},
			acks:    []string{"r1=0", "r1=200", "r1=250"},
			starts:  1,
			notes:   []string{"start r1"},
		},
		{
			name:    "acks once per response, each from its own start",
			msgs:    []msg{on("start", "r1", 0, 1000), on("start", "r2", 0, 3000), on("start", "r1", 0, 3100), on("start", "r2", 0, 3200)},
			heard:   map[string]heard{"r1": {1000, 0}, "r2": {3000, 0}},
			playing: map[string]bool{"r1": true, "r2": true},
			acks:    []string{"r1=0", "r2=0"},
			starts:  2,
			notes:   []string{"start r1", "start r2"},
		},
		{
			name:    "a response not on the wire keeps nothing and is not acked",
			msgs:    []msg{{playbackMsg{Type: "start", ID: "ghost", PerfMs: 900}, false, true}, {playbackMsg{Type: "progress", ID: "ghost", Played: 9600}, false, true}},
			heard:   map[string]heard{"ghost": {0, 0}},
			playing: map[string]bool{"ghost": false},
		},
		{
			name:    "the session worker acks: the page keeps the heard instant only",
			msgs:    []msg{{playbackMsg{Type: "start", ID: "r1", PerfMs: 700}, true, false}, {playbackMsg{Type: "progress", ID: "r1", Played: 9600}, true, false}},
			heard:   map[string]heard{"r1": {700, 0}},
			playing: map[string]bool{"r1": true},
			starts:  1,
			notes:   []string{"start r1"},
		},
		{
			name:    "underruns count per response; a cut is acked at what played",
			msgs:    []msg{on("start", "r1", 0, 500), on("underrun", "r1", 0, 600), on("underrun", "r1", 0, 700), on("cleared", "r1", 7200, 800)},
			heard:   map[string]heard{"r1": {500, 2}},
			playing: map[string]bool{"r1": true},
			acks:    []string{"r1=0", "r1=300"},
			starts:  1,
			notes:   []string{"start r1", "underrun r1", "underrun r1", "cleared r1"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := newPlayback()
			var acks, notes []string
			starts := 0
			for _, m := range tc.msgs {
				out := p.report(m.m, m.known, m.acking)
				if out.doAck {
					acks = append(acks, fmt.Sprintf("%s=%d", m.m.ID, out.ack))
				}
				if out.started {
					starts++
				}
				if out.note != nil {
					notes = append(notes, fmt.Sprintf("%v %v", out.note["event"], out.note["response_id"]))
				}
			}
			got := map[string]heard{}
			playing := map[string]bool{}
			for id := range tc.heard {
				var h heard
				var drained bool
				h.StartMs, h.Under, drained = p.heard(id)
				got[id] = h
				playing[id] = h.StartMs > 0 && !drained
			}
			if diff := cmp.Diff(tc.heard, got); diff != "" {
				t.Errorf("heard (-want +got)\n%s", diff)
			}
			if diff := cmp.Diff(tc.playing, playing); diff != "" {
				t.Errorf("playing (-want +got)\n%s", diff)
			}
			if diff := cmp.Diff(tc.acks, acks); diff != "" {
				t.Errorf("acks (-want +got)\n%s", diff)
			}
			if diff := cmp.Diff(tc.notes, notes); diff != "" {
				t.Errorf("notes (-want +got)\n%s", diff)
			}
			if n, _ := p.started(); starts != tc.starts || n != tc.starts {
				t.Errorf("%d first starts reported, started() = %d; want %d", starts, n, tc.starts)
			}
		})
	}
}

// TestPlaybackCleared: a cut says how much played and how much was
// dropped (ms at 24 kHz), for the probe's stop latency and the wire log.
func TestPlaybackCleared(t *testing.T) {
	t.Parallel()
	p := newPlayback()
	p.report(playbackMsg{Type: "start", ID: "r1", PerfMs: 100}, true, true)
	out := p.report(playbackMsg{Type: "cleared", ID: "r1", Played: 36000, Dropped: 12000, PerfMs: 1700}, true, true)
	if !out.cleared || out.drained || out.playedMs != 1500 {
		t.Errorf("cleared %v drained %v played %d ms; want true false 1500", out.cleared, out.drained, out.playedMs)
	}
	want := map[string]any{"type": "duplexscope.playback", "event": "cleared", "response_id": "r1", "played_ms": 1500, "dropped_ms": 500}
	if diff := cmp.Diff(want, out.note); diff != "" {
		t.Errorf("note (-want +got)\n%s", diff)
	}
	if _, level := p.started(); level != 0 {
		t.Errorf("level %v before any level message, want 0", level)
	}
	p.report(playbackMsg{Type: "level", RMS: 0.25}, false, true)
	if _, level := p.started(); level != 0.25 {
		t.Errorf("level %v, want the level message's RMS 0.25", level)
	}
}

// fakePlayer records what reached the player.
type fakePlayer struct{ calls []string }

func (f *fakePlayer) play(id string, pcm []byte) {
	f.calls = append(f.calls, fmt.Sprintf("play %s %d", id, len(pcm)))
}
func (f *fakePlayer) clear(id string) { f.calls = append(f.calls, "clear "+id) }
func (f *fakePlayer) done(id string)  { f.calls = append(f.calls, "done "+id) }

// TestPlaybackRoute: received audio is kept for replay and the report
// whether or not this page plays it; the player gets push, clear and done
// only when the session runs on this thread.
func TestPlaybackRoute(t *testing.T) {
	t.Parallel()
	steps := []struct {
		a   session.PlayAction
		id  string
		pcm []byte
	}{
		{session.PlayPush, "r1", []byte{1, 2}}, {session.PlayPush, "r2", []byte{5}}, {session.PlayPush, "r1", []byte{3, 4}},
		{session.PlayClear, "r2", nil}, {session.PlayNone, "r1", nil}, {session.PlayDone, "r1", nil},
	}
	for _, onPage := range []bool{true, false} {
		p := newPlayback()
		f := &fakePlayer{}
		var to player
		if onPage {
			to = f
		}
		for i, s := range steps {
			p.route(to, s.a, s.id, float64(i), s.pcm)
		}
		if got := p.output([]string{"r2", "r1"}); !bytes.Equal(got, []byte{5, 1, 2, 3, 4}) {
			t.Errorf("on page %v: output %v, want r2's then r1's audio [5 1 2 3 4]", onPage, got)
		}
		var want []string
		if onPage {
			want = []string{"play r1 2", "play r2 1", "play r1 2", "clear r2", "done r1"}
		}
		if diff := cmp.Diff(want, f.calls); diff != "" {
			t.Errorf("on page %v: player calls (-want +got)\n%s", onPage, diff)
		}
	}
}

// TestPlaybackSnippet: a timeline click replays the response whose
// received audio covers the instant, from the chunk at or after it
// (250 ms slack), at most snippetS seconds.
func TestPlaybackSnippet(t *testing.T) {
	t.Parallel()
	p := newPlayback()
	for i := range 4 { // r1: chunks at 1000…1300 ms
		p.route(nil, session.PlayPush, "r1", 1000+float64(i)*100, []byte{byte(10 + i)})
	}
	p.route(nil, session.PlayPush, "r2", 5000, []byte{20})
	p.route(nil, session.PlayPush, "r2", 5200, []byte{21})
	big := make([]byte, snippetS*24000*2)
	p.route(nil, session.PlayPush, "r3", 9000, big)
	p.route(nil, session.PlayPush, "r3", 9100, big)
	p.route(nil, session.PlayPush, "r3", 9200, []byte{30})
	order := []string{"r1", "r2", "r3"}
	tests := []struct {
		name string
		at   float64
		want int // bytes; first byte below when > 0
		b0   byte
	}{
		{"inside r1: from the chunk at or after the instant", 1450, 2, 12},
		{"before r1 (within 500 ms)", 600, 4, 10},
		{"r2", 5100, 2, 20},
		{"between responses", 3000, 0, 0},
		{"bounded to snippetS", 9000, 2 * len(big), 0},
	}
	for _, tc := range tests {
		got := p.snippet(order, tc.at)
		if len(got) != tc.want || (tc.want > 0 && tc.b0 != 0 && got[0] != tc.b0) {
			t.Errorf("%s: snippet at %v ms = %d bytes (first %v), want %d (first %d)", tc.name, tc.at, len(got), got[:min(1, len(got))], tc.want, tc.b0)
		}
	}
}

// TestLiveRunOnPlayback: the run composes playback with its views and
// probes: a response's first start is its heard instant on the timeline
// (a playback-start mark on the stream clock, the response view's play
// start; repeats add nothing), and a cut of it stops the probe sent on it before the cut.
func TestLiveRunOnPlayback(t *testing.T) {
	t.Parallel()
	follow := tracker.New()
	follow.Add(trace.Event{TMs: 1000, Dir: trace.DirLocal, Event: []byte(`{"type":"duplexscope.stream_start"}`)}, nil)
	follow.Add(trace.Event{TMs: 1500, Dir: trace.DirRecv, Event: []byte(`{"type":"response.created","response":{"id":"resp_1"}}`)}, nil)
	v := tracker.NewView()
	v.Merge(follow.Delta(false))
	r := &liveRun{tracker: follow, wire: v, playback: newPlayback(), life: newLifecycle(), probes: liveProbes{sent: []*sentProbe{{ID: "probe_1", Kind: "interruption", OnsetMs: 3000, ResponseID: "resp_1"}}}}
	r.onPlayback(playbackMsg{Type: "start", ID: "resp_1", PerfMs: 2000})
	r.onPlayback(playbackMsg{Type: "start", ID: "resp_1", PerfMs: 2100}) // a repeat: no second mark
	r.onPlayback(playbackMsg{Type: "progress", ID: "resp_1", Played: 4800, PerfMs: 2200})
	r.onPlayback(playbackMsg{Type: "cleared", ID: "resp_1", Played: 36000, PerfMs: 3200})
	r.onPlayback(playbackMsg{Type: "cleared", ID: "resp_2", Played: 36000, PerfMs: 3300}) // not on the wire
	if got := r.probes.sent[0]; got.StoppedBy != "cleared" || got.StopMs != 3200 || got.PlayedMs != 1500 {
		t.Errorf("probe stopped by %q at %v after %v ms played; want cleared at 3200 after 1500", got.StoppedBy, got.StopMs, got.PlayedMs)
	}
	var marks []string
	for _, m := range r.markers {
		marks = append(marks, fmt.Sprintf("%s %s %.1f", m.Kind, m.ResponseID, m.TS))
	}
	if diff := cmp.Diff([]string{chart.MarkPlaybackStart + " resp_1 1.0", chart.MarkProbeStop + " probe_1 2.2"}, marks); diff != "" {
		t.Errorf("marks (-want +got)\n%s", diff)
	}
	if rv := r.respViewLocked("resp_1"); rv.PlayStartMs != 2000 {
		t.Errorf("play start %v, want the first start's 2000", rv.PlayStartMs)
	}
}
