//go:build !js

package server

import (
	"encoding/base64"
	"encoding/json"
	"slices"
	"testing"

	"github.com/duplexscope/duplexscope/report"
	"github.com/duplexscope/duplexscope/trace"
)

func dcB64(n int, v int16) string {
	b := make([]byte, 2*n)
	for i := 0; i < n; i++ {
		b[2*i], b[2*i+1] = byte(uint16(v)), byte(uint16(v)>>8)
	}
	return base64.StdEncoding.EncodeToString(b)
}

func ev(t *testing.T, tms float64, dir string, e map[string]any) trace.Event {
	t.Helper()
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	return trace.Event{TMs: tms, Dir: dir, Event: b}
}

// TestAlignSessionEdges: the placement rule at its edges — a barge-in
// drops the queued rest, other rates are resampled, a wild or negative
// time neither overflows nor lands a reply at the wrong place, bad base64
// is skipped.
func TestAlignSessionEdges(t *testing.T) {
	delta := func(tms float64, id, b64 string, rate int) trace.Event {
		m := map[string]any{"type": "response.output_audio.delta", "response_id": id, "delta": b64}
		if rate > 0 {
			m["sample_rate_hz"] = rate
		}
		return ev(t, tms, "recv", m)
	}
	cases := []struct {
		name      string
		events    []trace.Event
		wantStart map[string]float64
		wantLenS  float64
		wantCut   bool
	}{
		{"barge-in drops the queued rest", []trace.Event{
			delta(1000, "a", dcB64(12000, 100), 0), // 1.0–1.5 s
			ev(t, 1300, "recv", map[string]any{"type": "output_audio_buffer.cleared", "response_id": "a"}),
			delta(1400, "b", dcB64(2400, 100), 0), // 1.4–1.5 s
		}, map[string]float64{"a": 1.0, "b": 1.4}, 1.5, false},
		{"12 kHz reply resampled", []trace.Event{delta(0, "a", dcB64(6000, 100), 12000)}, map[string]float64{"a": 0}, 0.5, false},
		{"before stream start clamps to 0", []trace.Event{delta(-5000, "a", dcB64(2400, 100), 0)}, map[string]float64{"a": 0}, 0.1, false},
		{"wild time is cut, not wrapped", []trace.Event{delta(1e15, "a", dcB64(2400, 100), 0), delta(100, "b", dcB64(2400, 100), 0)},
			map[string]float64{"b": 0.1}, 0.2, true},
		{"bad base64 skipped", []trace.Event{delta(0, "a", "!!notbase64", 0), delta(200, "b", dcB64(2400, 100), 0)},
			map[string]float64{"b": 0.2}, 0.3, false},
	}
	zero := 0.0
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sa := alignSession(trace.Session{Events: c.events}, &zero)
			if len(sa.ReplyStartS) != len(c.wantStart) {
				t.Errorf("reply starts %v, want %v", sa.ReplyStartS, c.wantStart)
			}
			for id, w := range c.wantStart {
				if got, ok := sa.ReplyStartS[id]; !ok || got < w-1e-9 || got > w+1e-9 {
					t.Errorf("reply %s starts at %v (%v), want %v", id, got, ok, w)
				}
			}
			if got := sa.DurationS(); got < c.wantLenS-1e-4 || got > c.wantLenS+1e-4 {
				t.Errorf("duration %.4f s, want %.4f s", got, c.wantLenS)
			}
			if sa.Cut != c.wantCut {
				t.Errorf("cut = %v, want %v", sa.Cut, c.wantCut)
			}
		})
	}
}

// TestSortTranscripts: sessions in the report's order, each in time order,
// lines without a time first, ties kept in arrival order.
func TestSortTranscripts(t *testing.T) {
	line := func(session, atS, text string) transcriptLine {
		return transcriptLine{Session: session, AtS: atS, Text: text}
	}
	for _, tc := range []struct {
		name     string
		sessions []string
		in       []transcriptLine
		want     []string // texts in order
	}{
		{"one session by time", []string{"s1"},
			[]transcriptLine{line("s1", "2.000", "b"), line("s1", "0.500", "a"), line("s1", "", "clip")},
			[]string{"clip", "a", "b"}},
		{"report's session order", []string{"s2", "s1"},
			[]transcriptLine{line("s1", "1.000", "s1a"), line("s2", "3.000", "s2b"), line("s2", "0.100", "s2a")},
			[]string{"s2a", "s2b", "s1a"}},
		{"ties keep arrival order", []string{"s1"},
			[]transcriptLine{line("s1", "1.000", "user"), line("s1", "1.000", "model"), line("s1", "0.000", "first")},
			[]string{"first", "user", "model"}},
		{"repeated session id keeps its first place", []string{"s1", "s2", "s1"},
			[]transcriptLine{line("s2", "0.000", "s2"), line("s1", "5.000", "s1")},
			[]string{"s1", "s2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep := &report.Report{}
			for _, id := range tc.sessions {
				rep.Sessions = append(rep.Sessions, report.SessionExtra{SessionID: id})
			}
			sortTranscripts(rep, tc.in)
			var got []string
			for _, l := range tc.in {
				got = append(got, l.Text)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("order %q, want %q", got, tc.want)
			}
		})
	}
}

// TestModelTranscripts: blank transcripts are left out; a reply whose start
// the wire log placed gets that time and says so, others carry no time.
func TestModelTranscripts(t *testing.T) {
	rep := &report.Report{Responses: []report.ResponseExtra{
		{SessionID: "s1", ResponseID: "r1", Transcript: "hello"},
		{SessionID: "s1", ResponseID: "r2", Transcript: "  "},
		{SessionID: "s2", ResponseID: "r1", Transcript: "unplaced"},
	}}
	got := modelTranscripts(rep, map[string]float64{"s1\x00r1": 1.25, "s1\x00r2": 2})
	want := []transcriptLine{
		{Session: "s1", Who: "model", Text: "hello", ResponseID: "r1", At: "1.25 s", AtS: "1.250", Origin: "model transcript · reply starts (playback placement)"},
		{Session: "s2", Who: "model", Text: "unplaced", ResponseID: "r1", Origin: "model transcript"},
	}
	if !slices.Equal(got, want) {
		t.Errorf("modelTranscripts =\n%+v\nwant\n%+v", got, want)
	}
	markPlayable([]listenView{{Session: "s2"}}, got)
	if got[0].Playable || !got[1].Playable {
		t.Errorf("playable = %v, %v; want only s2's line", got[0].Playable, got[1].Playable)
	}
}
