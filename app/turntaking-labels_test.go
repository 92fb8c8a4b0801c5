package app

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duplexscope/duplexscope/metrics/turntaking"
	"github.com/duplexscope/duplexscope/report"
	"github.com/duplexscope/duplexscope/trace"
)

func TestJoinLabels(t *testing.T) {
	t.Parallel()
	pause := turntaking.Label{ID: "pause", Category: turntaking.Pause, OnsetMs: 300, OffsetMs: 2190, AnchorMs: 2190, WindowMs: 1000}
	intr := turntaking.Label{ID: "interruption", Category: turntaking.Interruption, OnsetMs: 3445, OffsetMs: 5101, AnchorMs: 3445, WindowMs: 3000}
	clipA := report.CaseClip{SampleID: "a", Split: "turntaking"}
	clipB := report.CaseClip{SampleID: "b", Split: "turntaking", OffsetMs: 11218}
	clipC := report.CaseClip{SampleID: "c", Split: "other", OffsetMs: 24418.0625}
	tests := []struct {
		name  string
		clips []labelledClip
		want  *streamLabels
	}{
		{"no clips", nil, &streamLabels{}},
		{"first clip stays on its own clock", []labelledClip{{CaseClip: clipA, Labels: []turntaking.Label{pause}}},
			&streamLabels{Labels: []turntaking.Label{pause}, Clips: []report.CaseClip{clipA}}},
		{"later clips move by their offset; unlabelled clips add nothing; window kept",
			[]labelledClip{{CaseClip: clipA, Labels: []turntaking.Label{pause}}, {CaseClip: clipB}, {CaseClip: clipC, Labels: []turntaking.Label{pause, intr}}},
			&streamLabels{
				Labels: []turntaking.Label{
					pause,
					{ID: "pause", Category: turntaking.Pause, OnsetMs: 24718.0625, OffsetMs: 26608.0625, AnchorMs: 26608.0625, WindowMs: 1000},
					{ID: "interruption", Category: turntaking.Interruption, OnsetMs: 27863.0625, OffsetMs: 29519.0625, AnchorMs: 27863.0625, WindowMs: 3000},
				},
				Clips: []report.CaseClip{clipA, clipC, clipC},
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tc.want, joinLabels(tc.clips)); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}

// labelledTrace is a page session streaming two joined clips, first
// append sent at 1000 ms (trace clock) in 200 ms frames: clip "a" at
// stream 0 speaks 0–1000 ms; clip "b" at stream 3000 speaks its
// 600–1600 ms (stream 3600–4600). The model answers "a" with 1.5 s of
// audio received at 2300 (300 ms after the user's speech end) and never
// answers "b". Events stop at endMs.
func labelledTrace(endMs float64) *trace.Session {
	var s trace.Session
	add := func(tMs float64, dir, body string) {
		if tMs <= endMs {
			s.Events = append(s.Events, trace.Event{TMs: tMs, Dir: dir, Event: json.RawMessage(body)})
		}
	}
	for k := range 40 {
		loud := k < 5 || (k >= 18 && k < 23)
		a := base64.StdEncoding.EncodeToString(ttPCM(200, 16000, loud))
		add(1000+float64(k)*200, trace.DirSend, fmt.Sprintf(`{"type":"input_audio_buffer.append","audio":%q}`, a))
	}
	a := base64.StdEncoding.EncodeToString(ttPCM(1500, 24000, true))
	add(2300, trace.DirRecv, fmt.Sprintf(`{"type":"response.output_audio.delta","response_id":"r1","delta":%q}`, a))
	add(3800, trace.DirRecv, `{"type":"response.done","response":{"id":"r1"}}`)
	add(9000, trace.DirRecv, `{"type":"session.closed"}`)
	sort.SliceStable(s.Events, func(i, j int) bool { return s.Events[i].TMs < s.Events[j].TMs }) // a wire log is in time order
	return &s
}

// TestPageTurnTakingLabelled: the labels of joined clips are scored on the
// trace clock (first append + stream ms, snapped to the user's detected
// speech end), stored with each clip's sample_id and its own-clock
// label_anchor_ms; live scoring leaves out a case whose window is still
// open; a probe adds a derived interruption case.
func TestPageTurnTakingLabelled(t *testing.T) {
	t.Parallel()
	labels := joinLabels([]labelledClip{
		{CaseClip: report.CaseClip{SampleID: "a", Split: "tt"}, Labels: []turntaking.Label{{ID: "end_a", Category: turntaking.TurnEnd, OffsetMs: 1000, AnchorMs: 1000, WindowMs: 1500}}},
		{CaseClip: report.CaseClip{SampleID: "b", Split: "tt", OffsetMs: 3000}, Labels: []turntaking.Label{{ID: "end_b", Category: turntaking.TurnEnd, OnsetMs: 600, OffsetMs: 1600, AnchorMs: 1600, WindowMs: 1500}}},
	})
	lat := func(v float64) *float64 { return &v }
	caseA := report.TurnTakingCase{SampleID: "a", Split: "tt", SessionID: "s1", ID: "end_a", Category: "turn_end", LabelAnchorMs: 1000, AnchorMs: 2000,
		WindowMs: 1500, AnchorSource: "vad", TookTurn: true, OnsetMs: lat(2300), LatencyMs: lat(300)}
	caseB := report.TurnTakingCase{SampleID: "b", Split: "tt", SessionID: "s1", ID: "end_b", Category: "turn_end", LabelAnchorMs: 1600, AnchorMs: 5600,
		WindowMs: 1500, AnchorSource: "vad"}
	probe := report.TurnTakingCase{SessionID: "s1", ID: "probe_1", Category: "interruption", AnchorMs: 2500, WindowMs: 3000, AnchorSource: "label"}
	tests := []struct {
		name   string
		endMs  float64
		live   bool
		probes []float64
		want   []report.TurnTakingCase
		cards  map[turntaking.Category][2]int // takeovers, cases
	}{
		{"final", 9000, false, nil, []report.TurnTakingCase{caseA, caseB}, map[turntaking.Category][2]int{turntaking.TurnEnd: {1, 2}}},
		{"live: b's window [5600, 7100) still open at 6000", 6000, true, nil, []report.TurnTakingCase{caseA}, map[turntaking.Category][2]int{turntaking.TurnEnd: {1, 1}}},
		{"live: both windows closed at 7200", 7200, true, nil, []report.TurnTakingCase{caseA, caseB}, map[turntaking.Category][2]int{turntaking.TurnEnd: {1, 2}}},
		{"probe during the answer adds an untaken interruption", 9000, false, []float64{2500}, []report.TurnTakingCase{caseA, caseB, probe},
			map[turntaking.Category][2]int{turntaking.TurnEnd: {1, 2}, turntaking.Interruption: {0, 1}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tt := pageTurnTaking(turntaking.RecordTrace(*labelledTrace(tc.endMs)), labels, tc.probes, "s1", tc.live)
			if tt == nil {
				t.Fatal("no turn-taking")
			}
			if diff := cmp.Diff(tc.want, tt.Cases); diff != "" {
				t.Errorf("cases (-want +got)\n%s", diff)
			}
			got := map[turntaking.Category][2]int{}
			for _, c := range tt.Scores {
				got[c.Category] = [2]int{c.Takeovers, c.Cases}
			}
			if diff := cmp.Diff(tc.cards, got); diff != "" {
				t.Errorf("cards (-want +got)\n%s", diff)
			}
			if tt.Rule != labelledRule || tt.Clock != turntaking.ClockTrace {
				t.Errorf("rule %q clock %q", tt.Rule, tt.Clock)
			}
		})
	}
}

func TestGapBefore(t *testing.T) {
	t.Parallel()
	const ms = 32 // bytes of 16 kHz PCM16 per ms
	tests := []struct {
		name     string
		cursor   int // bytes already in the stream
		labelled bool
		frameMs  int
		want     int
	}{
		{"unlabelled: 1.5 s, not aligned", 5218*ms + 4, false, 200, 1500 * ms},
		{"labelled, clip ends on a frame boundary: 6 s", 5200 * ms, true, 200, 6000 * ms},
		{"labelled: rounded up to the next 200 ms frame", 5218*ms + 4, true, 200, 6182*ms - 4},
		{"labelled: 80 ms frames", 7201 * ms, true, 80, 6079 * ms},
		{"labelled: 1000 ms frames", 4405*ms + 26, true, 1000, 6595*ms - 26},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := gapBefore(tc.cursor, tc.labelled, tc.frameMs)
			if got != tc.want {
				t.Errorf("gap %d bytes (%.3f ms), want %d (%.3f ms)", got, float64(got)/ms, tc.want, float64(tc.want)/ms)
			}
			if tc.labelled && (tc.cursor+got)%(tc.frameMs*ms) != 0 {
				t.Errorf("next clip starts at byte %d: not on a %d ms frame boundary", tc.cursor+got, tc.frameMs)
			}
		})
	}
}
