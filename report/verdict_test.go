package report_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/duplexscope/duplexscope/report"
)

// run is a test report: per response a TTFP, an RTF, a heard TTFP and a
// speech-end → heard latency (NaN-free; <0 means "absent").
type run struct {
	client    string
	ttfp, rtf []float64
	heard     []float64
	speech    []float64
	complete  bool
	sessErr   string
}

func (r run) build(t *testing.T) *report.Report {
	t.Helper()
	var rows []string
	for i, v := range r.ttfp {
		rtf := 0.5
		if i < len(r.rtf) {
			rtf = r.rtf[i]
		}
		rows = append(rows, fmt.Sprintf(`{"session_id":"s1","request_index":%d,"response_id":"r%d","source":"server_request_start_and_client_receive","ttft_ms":%g,"ttfp_ms":%g,"rtf":%g}`, i, i, v*0.8, v, rtf))
	}
	sess := fmt.Sprintf(`{"session_id":"s1","audio_turn_count":%d,"ttft_ms":null,"ttfp_ms":null,"rtf":null}`, len(r.ttfp))
	client := r.client
	if client == "" {
		client = report.ClientBrowser
	}
	rep, err := report.New(report.Run{Model: "m", Client: client, Source: report.Source{Kind: report.SourceMic}},
		[]byte(`{"duplex_request_metrics":[`+strings.Join(rows, ",")+`],"duplex_session_metrics":[`+sess+`]}`))
	if err != nil {
		t.Fatal(err)
	}
	origin := "playback clock"
	if client == report.ClientCLI {
		origin = "simulated serial playback clock"
	}
	for i := range r.ttfp {
		x := report.ResponseExtra{SessionID: "s1", ResponseID: fmt.Sprintf("r%d", i)}
		if i < len(r.heard) && r.heard[i] >= 0 {
			h := r.heard[i]
			x.HeardTTFPMs, x.HeardOrigin = &h, origin
		}
		if i < len(r.speech) && r.speech[i] >= 0 {
			s := r.speech[i]
			x.SpeechEndToHeardMs = &s
		}
		rep.Responses = append(rep.Responses, x)
	}
	rep.Sessions = []report.SessionExtra{{SessionID: "s1", Complete: r.complete, Error: r.sessErr}}
	report.Finish(rep)
	if err := report.Validate(rep, report.DefaultLimits); err != nil {
		t.Fatalf("test report invalid: %v", err)
	}
	return rep
}

func rep(v float64, n int) []float64 { return slices.Repeat([]float64{v}, n) }

func TestJudge(t *testing.T) {
	cases := []struct {
		name     string
		r        run
		want     string
		band     string
		contains []string
		lacks    []string
	}{
		{name: "good", r: run{ttfp: rep(200, 5), heard: rep(250, 5), speech: rep(280, 5), complete: true},
			want: report.VerdictGood, band: "green",
			contains: []string{"heard about 0.28 s after you stop speaking", "median of 5", "slowest of 5", "natural", "faster than real time"},
			lacks:    []string{"p99"}},
		{name: "0.48 s is usable, a noticeable pause, never noticeably slow", r: run{ttfp: rep(400, 6), speech: rep(480, 6), complete: true},
			want: report.VerdictUsable, band: "amber", contains: []string{"0.48 s", "a noticeable pause"}, lacks: []string{"noticeably slow"}},
		{name: "0.9 s is slow", r: run{ttfp: rep(400, 6), speech: rep(900, 6), complete: true},
			want: report.VerdictSlow, band: "amber", contains: []string{"noticeably slow"}},
		{name: "2 s is slow, red", r: run{ttfp: rep(400, 6), speech: rep(2000, 6), complete: true},
			want: report.VerdictSlow, band: "red", contains: []string{"too slow for conversation"}},
		{name: "RTF p99 ≥ 1 with median < 1: 2 of 4 slower is not real-time",
			r:    run{ttfp: rep(300, 4), rtf: []float64{0.8, 0.85, 1.1, 1.26}, heard: rep(350, 4), complete: true},
			want: report.VerdictNotRealTime, band: "red", contains: []string{"2 of 4 responses were generated slower than real time", "up to 1.26"},
			lacks: []string{"faster than real time", "Good", "Usable"}},
		{name: "one slow response of 10 caps a fast run at slow",
			r:    run{ttfp: rep(200, 10), rtf: append(rep(0.5, 9), 1.05), speech: rep(250, 10), complete: true},
			want: report.VerdictSlow, contains: []string{"1 of 10 responses were generated slower than real time", "not real-time"},
			lacks: []string{"faster than real time"}},
		{name: "killed session", r: run{ttfp: rep(200, 6), speech: rep(250, 6), complete: false, sessErr: "unexpected session.closed: server_shutdown"},
			want: report.VerdictIncomplete, band: "red", contains: []string{"session s1 ended early", "the server shut the session down", "server_shutdown"},
			lacks: []string{"Good", "Usable"}},
		{name: "complete flag false without a session error", r: run{ttfp: rep(200, 6), speech: rep(250, 6), complete: false},
			want: report.VerdictIncomplete, contains: []string{"session s1 ended early"}},
		{name: "session error on a session marked complete", r: run{ttfp: rep(200, 6), complete: true, sessErr: "response r2 failed"},
			want: report.VerdictIncomplete, contains: []string{"response r2 failed"}},
		{name: "two responses are not enough", r: run{ttfp: rep(200, 2), heard: rep(250, 2), speech: rep(260, 2), complete: true},
			want: report.VerdictNotEnoughData, band: "none", contains: []string{"only 2 of 2 responses", "at least 3"}},
		{name: "no responses", r: run{complete: true}, want: report.VerdictNotEnoughData, contains: []string{"no response with audio"}},
		{name: "three responses judge, tail is slowest of 3", r: run{ttfp: []float64{200, 300, 1000}, complete: true},
			want: report.VerdictGood, contains: []string{"vLLM TTFP", "about 0.30 s", "slowest of 3: 1.00 s"}, lacks: []string{"p99"}},
		{name: "25 responses: p99", r: run{ttfp: rep(200, 25), speech: rep(250, 25), complete: true},
			want: report.VerdictGood, contains: []string{"p99: 0.25 s"}, lacks: []string{"slowest of"}},
		{name: "speech end with too few samples falls back to heard", r: run{ttfp: rep(200, 6), heard: rep(700, 6), speech: []float64{250, 250}, complete: true},
			want: report.VerdictUsable, contains: []string{"after the model begins them", "0.70 s"}},
		{name: "CLI: simulated playback, never heard", r: run{client: report.ClientCLI, ttfp: rep(200, 6), heard: rep(210, 6), speech: rep(900, 6), complete: true},
			want: report.VerdictSlow, contains: []string{"simulated playback"}, lacks: []string{"heard"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v := report.Judge(tc.r.build(t))
			text := v.Text()
			if v.Code != tc.want {
				t.Errorf("code %q, want %q (%s)", v.Code, tc.want, text)
			}
			if tc.band != "" && v.Band != tc.band {
				t.Errorf("band %q, want %q (%s)", v.Band, tc.band, text)
			}
			for _, s := range tc.contains {
				if !strings.Contains(text, s) {
					t.Errorf("%q lacks %q", text, s)
				}
			}
			for _, s := range tc.lacks {
				if strings.Contains(strings.ToLower(text), strings.ToLower(s)) {
					t.Errorf("%q says %q", text, s)
				}
			}
		})
	}
}

// TestBandTable: the words, bands and footnote come from one table, and
// the footnote says where each word starts.
func TestBandTable(t *testing.T) {
	cases := []struct {
		ms         float64
		band, word string
	}{
		{0, "green", "natural"}, {300, "green", "natural"}, {304.9, "green", "natural"}, {305, "amber", "a noticeable pause"},
		{480, "amber", "a noticeable pause"}, {800, "amber", "a noticeable pause"}, {805, "amber", "noticeably slow"},
		{1500, "amber", "noticeably slow"}, {1505, "red", "too slow for conversation"},
	}
	for _, tc := range cases {
		if b := report.BandFor(tc.ms); b.Band != tc.band || b.Word != tc.word {
			t.Errorf("BandFor(%v) = %+v, want %s %q", tc.ms, b, tc.band, tc.word)
		}
	}
	foot := report.BandsFootnote()
	for _, want := range []string{"up to 0.30 s natural", "0.30 s–0.80 s a noticeable pause", "0.80 s–1.50 s noticeably slow", "above 1.50 s too slow for conversation"} {
		if !strings.Contains(foot, want) {
			t.Errorf("footnote %q lacks %q", foot, want)
		}
	}
}

func TestTailLabel(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want string
	}{{1, "slowest of 1"}, {2, "slowest of 2"}, {5, "slowest of 5"}, {19, "slowest of 19"}, {20, "p99"}, {500, "p99"}} {
		if got := report.TailLabel(tc.n); got != tc.want {
			t.Errorf("TailLabel(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
	s, _ := report.StatOf([]float64{100, 900, 300})
	if s.Tail() != 900 || s.TailLabel() != "slowest of 3" {
		t.Errorf("tail of 3 = %v %q, want the maximum", s.Tail(), s.TailLabel())
	}
}

// TestSpeechEndSummary: Finish summarises speech_end_to_heard_ms with the
// playback kind, and strict validation holds the summary to the values.
func TestSpeechEndSummary(t *testing.T) {
	page := run{ttfp: rep(200, 3), heard: rep(250, 3), speech: []float64{300, -1, 500}, complete: true}.build(t)
	s := page.SpeechEndToHeard
	if s == nil || s.Count != 2 || s.P50 != 300 || s.Playback != report.PlaybackReal {
		t.Fatalf("summary = %+v, want 2 values, p50 300 (nearest rank), real playback", s)
	}
	cli := run{client: report.ClientCLI, ttfp: rep(200, 3), heard: rep(250, 3), speech: rep(300, 3), complete: true}.build(t)
	if cli.SpeechEndToHeard.Playback != report.PlaybackSimulated {
		t.Errorf("CLI playback = %q, want simulated", cli.SpeechEndToHeard.Playback)
	}
	bad := []struct {
		name string
		edit func(r *report.Report)
		path string
	}{
		{"count disagrees", func(r *report.Report) { r.SpeechEndToHeard.Count = 5 }, "speech_end_to_heard_ms.count"},
		{"summary missing", func(r *report.Report) { r.SpeechEndToHeard = nil }, "speech_end_to_heard_ms"},
		{"negative value", func(r *report.Report) { v := -1.0; r.Responses[0].SpeechEndToHeardMs = &v }, "responses[0].speech_end_to_heard_ms"},
		{"unknown playback", func(r *report.Report) { r.SpeechEndToHeard.Playback = "maybe" }, "speech_end_to_heard_ms.playback"},
		{"CLI claims real playback", func(r *report.Report) { r.Run.Client = report.ClientCLI }, "speech_end_to_heard_ms.playback"},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			r := run{ttfp: rep(200, 3), heard: rep(250, 3), speech: rep(300, 3), complete: true}.build(t)
			tc.edit(r)
			err := report.Validate(r, report.DefaultLimits)
			if err == nil || !strings.Contains(err.Error(), tc.path) {
				t.Errorf("Validate = %v, want an error at %s", err, tc.path)
			}
		})
	}
	// The JSON round-trips through strict decoding.
	b, err := report.MarshalIndent(page)
	if err != nil {
		t.Fatal(err)
	}
	back, err := report.Decode(b, report.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	if back.SpeechEndToHeard == nil || back.SpeechEndToHeard.Count != 2 || back.SpeechEndToHeard.Playback != report.PlaybackReal {
		t.Errorf("decoded summary = %+v", back.SpeechEndToHeard)
	}
}

// TestJudgeMergedRun: a merged run whose shards are not all in is
// incomplete and says so.
func TestJudgeMergedRun(t *testing.T) {
	shard := func(i int) *report.Report {
		r := run{ttfp: rep(200, 5), speech: rep(250, 5), complete: true}.build(t)
		r.Run.RunID, r.Run.Shard = "nightly", &report.Shard{Index: i, Count: 3}
		return r
	}
	m, _, err := report.MergeShards([]*report.Report{shard(1), shard(2)})
	if err != nil {
		t.Fatal(err)
	}
	v := report.Judge(m)
	if v.Code != report.VerdictIncomplete || !strings.Contains(v.Text(), "not every shard of run nightly") {
		t.Errorf("2 of 3 shards: %q %q", v.Code, v.Text())
	}
	all, _, err := report.MergeShards([]*report.Report{shard(1), shard(2), shard(3)})
	if err != nil {
		t.Fatal(err)
	}
	if v := report.Judge(all); v.Code != report.VerdictGood {
		t.Errorf("3 of 3 shards: %q %q, want good", v.Code, v.Text())
	}
}

// TestRTFBand: the RTF card is red from half the responses at RTF ≥ 1,
// amber for any fewer, green for none (RTFRule).
func TestRTFBand(t *testing.T) {
	for _, tc := range []struct {
		slow, n int
		want    string
	}{{0, 10, report.BandGreen}, {1, 10, report.BandAmber}, {4, 10, report.BandAmber}, {5, 10, report.BandRed}, {10, 10, report.BandRed}, {1, 1, report.BandRed}, {2, 5, report.BandAmber}, {3, 5, report.BandRed}} {
		if got := report.RTFBand(tc.slow, tc.n); got != tc.want {
			t.Errorf("RTFBand(%d, %d) = %q, want %q", tc.slow, tc.n, got, tc.want)
		}
	}
}
