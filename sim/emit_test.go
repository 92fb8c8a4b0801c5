//go:build !js

package sim

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/duplexscope/duplexscope/protocol"
	"github.com/google/go-cmp/cmp"
)

// TestHeader: event ids count up per session; server_event_seq is stamped
// only under replayed_events.
func TestHeader(t *testing.T) {
	t.Parallel()
	for _, replayed := range []bool{false, true} {
		query := ""
		if replayed {
			query = "sim_fault=" + FaultReplayedEvents
		}
		e := newHarness(t, mustProfile(t, ProfileTest), query).e
		for i := 1; i <= 3; i++ {
			h := e.header(protocol.TypeSessionHeartbeatAck)
			if id := fmt.Sprintf("event_%s%016x", e.idHex, i); h.EventID != id || h.Type != protocol.TypeSessionHeartbeatAck {
				t.Errorf("%q header %d: %+v, want event_id %s", query, i, h.Header, id)
			}
			want := ""
			if replayed {
				want = fmt.Sprint(i)
			}
			if got := string(h.ServerEventSeq); got != want {
				t.Errorf("%q header %d: server_event_seq %q, want %q", query, i, got, want)
			}
		}
	}
}

// TestErrorFrame: the nested shape echoes the client's event_id; the flat
// shape (flat_error) carries the message and code at the top level.
func TestErrorFrame(t *testing.T) {
	t.Parallel()
	tests := []struct {
		query string
		want  map[string]any
	}{
		{"", map[string]any{"type": "error", "error": map[string]any{"type": "invalid_request_error", "code": "bad_event", "message": "nope", "event_id": "evt_1"}}},
		{"sim_fault=flat_error", map[string]any{"type": "error", "error": "nope", "code": "bad_event"}},
	}
	for _, tc := range tests {
		t.Run(tc.query, func(t *testing.T) {
			e := newHarness(t, mustProfile(t, ProfileTest), tc.query).e
			var got map[string]any
			if err := json.Unmarshal(e.errorFrame(5*ms, protocol.CodeBadEvent, "nope", "evt_1"), &got); err != nil {
				t.Fatal(err)
			}
			delete(got, "event_id")
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("error frame (-want +got):\n%s", d)
			}
			if ev := e.truth.t.Events; len(ev) != 1 || ev[0].Type != protocol.TypeError || ev[0].TMs != 5 {
				t.Errorf("truth events %+v", ev)
			}
		})
	}
}

// TestRemember: replayed_events keeps the last replayCount frames and,
// once a replay is due, queues them again in their order, marked replays.
func TestRemember(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		frames int // remembered before the replay is due
		want   []string
	}{
		{"more than kept", 5, []string{"f4", "f5", "f6"}},
		{"fewer than kept", 1, []string{"f1", "f2"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newHarness(t, mustProfile(t, ProfileTest), "sim_fault=replayed_events").e
			for i := 1; i <= tc.frames; i++ {
				e.remember(0, []byte(fmt.Sprintf("f%d", i)))
			}
			if len(e.queue) != 0 {
				t.Fatalf("%d items queued before a replay is due", len(e.queue))
			}
			e.replay.due = true
			e.remember(10*ms, []byte(fmt.Sprintf("f%d", tc.frames+1)))
			var got []string
			for len(e.queue) > 0 {
				it := e.queue.take()
				f, act := it.render(20 * ms)
				if !it.replay || act != actNone {
					t.Errorf("item %s: replay %v, act %v", f, it.replay, act)
				}
				got = append(got, string(f))
			}
			if d := cmp.Diff(tc.want, got); d != "" || e.replay.due {
				t.Errorf("replayed (-want +got):\n%s (due still %v)", d, e.replay.due)
			}
			for _, ev := range e.truth.t.Events {
				if !ev.Replay || ev.TMs != 20 {
					t.Errorf("truth %+v: want a replay at 20 ms", ev)
				}
			}
		})
	}
}

// TestReplayLogKeep: at most replayCount frames are kept; a due replay
// returns them once.
func TestReplayLogKeep(t *testing.T) {
	t.Parallel()
	var l replayLog
	frames := func(rs []replayed) (out []string) {
		for _, r := range rs {
			out = append(out, string(r.frame))
		}
		return out
	}
	steps := []struct {
		frame string
		due   bool
		want  []string
	}{
		{"a", false, nil},
		{"b", true, []string{"a", "b"}},
		{"c", false, nil},
		{"d", false, nil},
		{"e", true, []string{"c", "d", "e"}},
		{"f", false, nil},
	}
	for _, s := range steps {
		l.due = s.due
		if d := cmp.Diff(s.want, frames(l.keep(replayed{frame: []byte(s.frame)}))); d != "" || l.due {
			t.Errorf("keep %s (due %v): (-want +got):\n%s", s.frame, s.due, d)
		}
	}
}
