package loadcurve

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duplexscope/duplexscope/metrics"
	"github.com/duplexscope/duplexscope/trace"
)

func fp(v float64) *float64 { return &v }

func TestParseLevels(t *testing.T) {
	cases := []struct {
		in      string
		want    []int
		wantErr bool
	}{
		{"", DefaultLevels, false},
		{"1,2,4", []int{1, 2, 4}, false},
		{" 8 , 16 ", []int{8, 16}, false},
		{"1,0", nil, true},
		{"1,x", nil, true},
		{"4097", nil, true},
		{"2,2", nil, true},
		{"1,,2", nil, true},
	}
	for _, c := range cases {
		got, err := ParseLevels(c.in)
		if (err != nil) != c.wantErr || (!c.wantErr && !reflect.DeepEqual(got, c.want)) {
			t.Errorf("ParseLevels(%q) = %v, %v; want %v (error %v)", c.in, got, err, c.want, c.wantErr)
		}
	}
}

func TestSlots(t *testing.T) {
	cases := []struct {
		n, shard, count int
		want            []int
		joiner          bool
	}{
		{4, 0, 0, []int{0, 1, 2, 3}, true},
		{4, 1, 1, []int{0, 1, 2, 3}, true},
		{5, 1, 2, []int{0, 2, 4}, true},
		{5, 2, 2, []int{1, 3}, false},
		{2, 3, 3, nil, false}, // more runners than sessions: runner 3 idles
	}
	for _, c := range cases {
		got, j := Slots(c.n, c.shard, c.count)
		if !reflect.DeepEqual(got, c.want) || j != c.joiner {
			t.Errorf("Slots(%d, %d, %d) = %v %v, want %v %v", c.n, c.shard, c.count, got, j, c.want, c.joiner)
		}
	}
	// Every slot of a level is run by exactly one of the shards.
	for n := 1; n <= 9; n++ {
		for count := 1; count <= 4; count++ {
			seen := map[int]int{}
			joiners := 0
			for s := 1; s <= count; s++ {
				sl, j := Slots(n, s, count)
				for _, k := range sl {
					seen[k]++
				}
				if j {
					joiners++
				}
			}
			if len(seen) != n || joiners != 1 {
				t.Errorf("n=%d count=%d: slots %v, %d joiners", n, count, seen, joiners)
			}
			for k, c := range seen {
				if c != 1 {
					t.Errorf("n=%d count=%d: slot %d run %d times", n, count, k, c)
				}
			}
		}
	}
}

func TestSummarize(t *testing.T) {
	srv := func(ms float64, rtf float64) Response { return Response{TTFPMs: ms, TTFPClock: "server", RTF: fp(rtf)} }
	cli := func(ms float64) Response { return Response{TTFPMs: ms, TTFPClock: "client_receive"} }
	cases := []struct {
		name     string
		n        int
		sessions []Session
		want     Level
	}{
		{"nothing reported", 2, nil, Level{Sessions: 2}},
		{"server clock, joiner apart", 2, []Session{
			{Level: 2, Index: 0, Responses: []Response{srv(100, 0.5), srv(300, 0.25)}, Underruns: 1, PacingLagMs: []float64{1, 3}},
			{Level: 2, Index: 1, Responses: []Response{srv(200, 0.75)}, PacingLagMs: []float64{2, 9.5}},
			{Level: 2, Index: 2, Joiner: true, Responses: []Response{srv(700, 2), srv(800, 2)}, Underruns: 2, PacingLagMs: []float64{50}},
			{Level: 4, Index: 0, Responses: []Response{srv(9999, 9)}}, // another level: ignored
		}, Level{Sessions: 2, Responses: 3, TTFPP50Ms: fp(200), TTFPP99Ms: fp(300), TTFPOrigin: OriginServer, RTFP50: fp(0.5),
			PacingLagP99Ms: 9.5, PacingLagMaxMs: 9.5, Underruns: 3, JoinTTFPMs: fp(700), JoinTTFPOrigin: OriginServer, Reported: 3}},
		{"mixed clocks and a failure", 1, []Session{
			{Level: 1, Index: 0, Responses: []Response{srv(100, 1), cli(140)}},
			{Level: 1, Index: 1, Joiner: true, Error: "handshake timeout", Responses: []Response{}},
		}, Level{Sessions: 1, Failed: 1, Responses: 2, TTFPP50Ms: fp(100), TTFPP99Ms: fp(140), TTFPOrigin: OriginMixed, RTFP50: fp(1),
			Reported: 2, FailureMessages: []string{"handshake timeout"}}},
		{"client clock joiner", 1, []Session{
			{Level: 1, Index: 1, Joiner: true, Responses: []Response{cli(333.5)}},
		}, Level{Sessions: 1, JoinTTFPMs: fp(333.5), JoinTTFPOrigin: OriginClient, Reported: 1}},
	}
	for _, c := range cases {
		got := Summarize(c.n, c.sessions)
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, diff)
		}
	}
}

// TestSummarizeNearestRank: p50/p99 are nearest-rank over the pooled
// responses of every session of the level (docs/metrics.md#nearest-rank-percentile), whatever
// order the sessions arrive in.
func TestSummarizeNearestRank(t *testing.T) {
	var a, b []Session
	for i := 0; i < 10; i++ {
		var rs []Response
		for j := 0; j < 10; j++ {
			rs = append(rs, Response{TTFPMs: float64(i*10 + j + 1), TTFPClock: "server"})
		}
		s := Session{Level: 10, Index: i, Responses: rs}
		a = append(a, s)
		b = append([]Session{s}, b...)
	}
	la, lb := Summarize(10, a), Summarize(10, b)
	if *la.TTFPP50Ms != 50 || *la.TTFPP99Ms != 99 || la.Responses != 100 {
		t.Errorf("p50 %v p99 %v n %d, want 50, 99, 100", *la.TTFPP50Ms, *la.TTFPP99Ms, la.Responses)
	}
	if !reflect.DeepEqual(la, lb) {
		t.Errorf("order changed the level: %+v vs %+v", la, lb)
	}
	if la.Complete() {
		t.Error("10 of 11 sessions reported counts as complete")
	}
	if !Summarize(10, append(a, Session{Level: 10, Index: 10, Joiner: true})).Complete() {
		t.Error("all 11 reported is not complete")
	}
}

func TestCurveOrder(t *testing.T) {
	ss := []Session{{Level: 8}, {Level: 3}, {Level: 2}, {Level: 16}}
	var got []int
	for _, l := range Curve([]int{2, 1, 16}, ss) {
		got = append(got, l.Sessions)
	}
	if want := []int{2, 1, 16, 3, 8}; !reflect.DeepEqual(got, want) {
		t.Errorf("levels %v, want %v", got, want)
	}
}

// TestFromTrace checks a session's responses against the golden vectors'
// expected rows (server and client clock), and counts underrun notes.
func TestFromTrace(t *testing.T) {
	for _, name := range []string{"server_metrics_present", "multi_turn_client_fallback"} {
		b, err := os.ReadFile(filepath.Join("testdata", name+".trace.json"))
		if err != nil {
			t.Fatal(err)
		}
		tr, err := trace.DecodeSession(b)
		if err != nil {
			t.Fatal(err)
		}
		eb, err := os.ReadFile(filepath.Join("testdata", name+".expected.json"))
		if err != nil {
			t.Fatal(err)
		}
		var exp struct {
			Rows []struct {
				TTFPMs float64  `json:"ttfp_ms"`
				RTF    *float64 `json:"rtf"`
				Source string   `json:"source"`
			} `json:"request_metrics"`
		}
		if err := json.Unmarshal(eb, &exp); err != nil {
			t.Fatal(err)
		}
		// Two playback notes: one response ran dry, one did not.
		last := tr.Events[len(tr.Events)-1].TMs
		tr.Events = append(tr.Events,
			trace.Event{TMs: last + 1, Dir: trace.DirLocal, Event: json.RawMessage(`{"type":"duplexscope.playback_end","response_id":"x","underrun_ms":35.5}`)},
			trace.Event{TMs: last + 2, Dir: trace.DirLocal, Event: json.RawMessage(`{"type":"duplexscope.playback_end","response_id":"y","underrun_ms":0}`)})
		s := FromTrace(tr, []float64{1.23456, 2})
		if len(s.Responses) != len(exp.Rows) {
			t.Fatalf("%s: %d responses, want %d", name, len(s.Responses), len(exp.Rows))
		}
		for i, r := range exp.Rows {
			clock := "client_receive"
			if r.Source == "server_request_start_and_client_receive" {
				clock = "server"
			}
			got := s.Responses[i]
			if got.TTFPMs != r.TTFPMs || got.TTFPClock != clock || (r.RTF == nil) != (got.RTF == nil) || (r.RTF != nil && *r.RTF != *got.RTF) {
				t.Errorf("%s row %d: %+v (rtf %v), want ttfp %v %s rtf %v", name, i, got, got.RTF, r.TTFPMs, clock, r.RTF)
			}
		}
		if s.Underruns != 1 {
			t.Errorf("%s: underruns %d, want 1", name, s.Underruns)
		}
		if !reflect.DeepEqual(s.PacingLagMs, []float64{1.235, 2}) {
			t.Errorf("%s: lags %v, want rounded to 0.001 ms", name, s.PacingLagMs)
		}
	}
}

// TestResponses: the live view's and the archive's responses are each
// finished row's TTFP (with its clock) and RTF; rows without raw metrics
// are left out, and no rows is an empty list, never null.
func TestResponses(t *testing.T) {
	rtf := 0.4
	cases := []struct {
		name string
		rows []metrics.Row
		want []Response
	}{
		{"none", nil, []Response{}},
		{"rows without metrics", []metrics.Row{{}, {}}, []Response{}},
		{"server and client clocks", []metrics.Row{
			{Raw: &metrics.RawMetric{TTFPMs: 31.5, TTFPClock: metrics.ClockServer, RTF: &rtf}},
			{},
			{Raw: &metrics.RawMetric{TTFPMs: 80, TTFPClock: metrics.ClockClientReceive}},
		}, []Response{{TTFPMs: 31.5, TTFPClock: "server", RTF: &rtf}, {TTFPMs: 80, TTFPClock: string(metrics.ClockClientReceive)}}},
	}
	for _, c := range cases {
		got := Responses(c.rows)
		if got == nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: Responses = %#v, want %#v", c.name, got, c.want)
		}
	}
}
