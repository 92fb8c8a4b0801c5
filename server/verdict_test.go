//go:build !js

package server_test

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/duplexscope/duplexscope/internal/testkit"
	"github.com/duplexscope/duplexscope/report"
)

// judgedRun is a report with chosen per-response numbers, for verdicts.
type judgedRun struct {
	client   string
	ttfp     float64
	rtf      []float64 // one per response
	speech   float64   // speech end → first sound (ms); 0 = none
	complete bool
	err      string
}

func (j judgedRun) json(t *testing.T) []byte {
	t.Helper()
	var rows []string
	for i, rtf := range j.rtf {
		rows = append(rows, fmt.Sprintf(`{"session_id":"s1","request_index":%d,"response_id":"r%d","source":"server_request_start_and_client_receive","ttft_ms":%g,"ttfp_ms":%g,"rtf":%g,"tpot_ms":12.5}`,
			i, i, j.ttfp*0.8, j.ttfp+float64(i), rtf))
	}
	client := j.client
	if client == "" {
		client = report.ClientBrowser
	}
	r, err := report.New(report.Run{TargetURL: "ws://127.0.0.1:8080/v1/realtime", Model: "m", FrameMs: 200, Version: "test", Client: client,
		Source: report.Source{Kind: report.SourceDataset, Dataset: "builtin"}},
		[]byte(`{"duplex_request_metrics":[`+strings.Join(rows, ",")+`],"duplex_session_metrics":[{"session_id":"s1","audio_turn_count":`+fmt.Sprint(len(rows))+`,"ttft_ms":null,"ttfp_ms":null,"rtf":null,"stream_ttfp_ms":3800}]}`))
	if err != nil {
		t.Fatal(err)
	}
	origin := "playback clock"
	if client == report.ClientCLI {
		origin = "simulated serial playback clock (headless: playback starts when audio is received and the player is free)"
	}
	for i := range j.rtf {
		h := j.ttfp + 5
		x := report.ResponseExtra{SessionID: "s1", ResponseID: fmt.Sprint("r", i), HeardTTFPMs: &h, HeardOrigin: origin}
		if j.speech > 0 {
			s := j.speech + float64(i)
			x.SpeechEndToHeardMs = &s
		}
		r.Responses = append(r.Responses, x)
	}
	r.Sessions = []report.SessionExtra{{SessionID: "s1", Complete: j.complete, Error: j.err}}
	report.Finish(r)
	b, err := report.MarshalIndent(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func fill(v float64, n int) []float64 { return slices.Repeat([]float64{v}, n) }

var (
	verdictEl = regexp.MustCompile(`<p class="verdict [^"]*" id="verdict" data-verdict="([a-z-]+)"[^>]*>([^<]*)</p>`)
	cardSub   = regexp.MustCompile(`<div class="card-sub muted">([^<]*)</div>`)
)

// TestShareVerdict: the share page marks report.Judge's verdict on
// #verdict (data-verdict) with its reasons, and its cards never contradict
// it: no "faster than real time" while any response was slower, no "p99"
// below 20 samples, no "heard" for a CLI run, killed sessions incomplete.
func TestShareVerdict(t *testing.T) {
	e := newEnv(t, nil)
	cases := []struct {
		name     string
		run      judgedRun
		want     string
		contains []string
		lacks    []string
	}{
		{"good", judgedRun{ttfp: 200, rtf: fill(0.5, 6), speech: 250, complete: true}, report.VerdictGood,
			[]string{"heard about 0.25 s after you stop speaking", "faster than real time", `data-metric="speechend"`, "End of your speech → reply heard"}, nil},
		{"RTF p99 ≥ 1 with median < 1", judgedRun{ttfp: 200, rtf: []float64{0.8, 0.85, 1.1, 1.26}, speech: 250, complete: true}, report.VerdictNotRealTime,
			[]string{"2 of 4 responses were generated slower than real time", "2 of 4 responses at RTF ≥ 1"},
			[]string{"faster than real time", ">Good", ">Usable"}},
		{"one slow response of ten", judgedRun{ttfp: 200, rtf: append(fill(0.5, 9), 1.05), speech: 250, complete: true}, report.VerdictSlow,
			[]string{"1 of 10 responses were generated slower than real time"}, []string{"faster than real time"}},
		{"killed session", judgedRun{ttfp: 200, rtf: fill(0.5, 6), speech: 250, err: "unexpected session.closed: server_shutdown"}, report.VerdictIncomplete,
			[]string{"the server shut the session down", "server_shutdown"}, []string{">Good", ">Usable"}},
		{"two responses", judgedRun{ttfp: 200, rtf: fill(0.5, 2), speech: 250, complete: true}, report.VerdictNotEnoughData,
			[]string{"at least 3"}, nil},
		{"CLI run: simulated playback", judgedRun{client: report.ClientCLI, ttfp: 450, rtf: fill(0.5, 6), speech: 900, complete: true}, report.VerdictSlow,
			[]string{"simulated playback", "Input-stream window", `data-metric="stream"`}, []string{"heard"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := tc.run.json(t)
			id := upload(t, e, b)
			code, _, body := e.do("GET", "/r/"+id, nil)
			if code != 200 {
				t.Fatalf("share page = %d", code)
			}
			page := string(body)
			m := verdictEl.FindStringSubmatch(page)
			if m == nil {
				t.Fatalf("no #verdict with data-verdict on the page")
			}
			if m[1] != tc.want {
				t.Errorf("data-verdict %q (%s), want %q", m[1], m[2], tc.want)
			}
			// The page and the function agree: the stored report judged directly.
			rep, err := report.Decode(b, report.DefaultLimits)
			if err != nil {
				t.Fatal(err)
			}
			if v := report.Judge(rep); v.Code != m[1] {
				t.Errorf("page says %q, report.Judge says %q", m[1], v.Code)
			}
			testkit.Mentions(t, "page", page, tc.contains, nil)
			for _, s := range tc.lacks {
				if strings.Contains(strings.ToLower(page), strings.ToLower(s)) {
					i := strings.Index(strings.ToLower(page), strings.ToLower(s))
					t.Errorf("page says %q: …%s…", s, page[max(0, i-80):min(len(page), i+80)])
				}
			}
			n := len(tc.run.rtf)
			for _, sub := range cardSub.FindAllStringSubmatch(page, -1) {
				if n < report.MinP99Samples && strings.Contains(sub[1], "p99") {
					t.Errorf("card labels a p99 of %d responses: %q", n, sub[1])
				}
			}
			if n < report.MinP99Samples && n > 0 && !strings.Contains(page, fmt.Sprintf("slowest of %d", n)) {
				t.Errorf("page lacks \"slowest of %d\"", n)
			}
			// Stream numbers are explained apart, never a headline card.
			head := page[:strings.Index(page, `id="verdict-rule"`)]
			if strings.Contains(head, `data-metric="stream"`) {
				t.Error("stream TTFP is a headline card")
			}
		})
	}
}

// TestHistoryVerdict: each history row carries its run's verdict (the
// share page's data-verdict) on its verdict cell, and labels the TTFP
// tail "slowest of N" below 20 responses.
func TestHistoryVerdict(t *testing.T) {
	e := newEnv(t, nil)
	runs := map[string]judgedRun{
		report.VerdictGood:          {ttfp: 200, rtf: fill(0.5, 6), speech: 250, complete: true},
		report.VerdictNotRealTime:   {ttfp: 200, rtf: []float64{0.8, 0.85, 1.1, 1.26}, speech: 250, complete: true},
		report.VerdictIncomplete:    {ttfp: 200, rtf: fill(0.5, 6), err: "unexpected session.closed: server_shutdown"},
		report.VerdictNotEnoughData: {ttfp: 200, rtf: fill(0.5, 2), complete: true},
		report.VerdictUsable:        {ttfp: 600, rtf: fill(0.5, 25), complete: true},
	}
	ids := map[string]string{}
	for want, r := range runs {
		ids[upload(t, e, r.json(t))] = want
		e.clock.Advance(1e9)
	}
	_, _, b := e.do("GET", "/history", nil)
	page := string(b)
	row := regexp.MustCompile(`(?s)<tr[ >](.*?)</tr>`)
	cell := regexp.MustCompile(`<td class="verdict-cell" data-verdict="([a-z-]+)"[^>]*>([^<]*)</td>`)
	seen := 0
	for _, r := range row.FindAllStringSubmatch(page, -1) {
		id := regexp.MustCompile(`href="/r/([a-z2-7]{32})"`).FindStringSubmatch(r[1])
		if id == nil {
			continue
		}
		seen++
		c := cell.FindStringSubmatch(r[1])
		if c == nil {
			t.Errorf("row of %s has no verdict cell with data-verdict: %s", id[1], r[1])
			continue
		}
		if c[1] != ids[id[1]] {
			t.Errorf("history says %q for %s, want %q", c[1], id[1], ids[id[1]])
		}
		_, _, share := e.do("GET", "/r/"+id[1], nil)
		if m := verdictEl.FindStringSubmatch(string(share)); m == nil || m[1] != c[1] {
			t.Errorf("history says %q, share page %v", c[1], m)
		}
		if ids[id[1]] == report.VerdictUsable {
			if !strings.Contains(r[1], "ms</td>") || strings.Contains(r[1], "slowest of") {
				t.Errorf("25 responses: want a plain p99 cell: %s", r[1])
			}
		} else if !strings.Contains(r[1], "(slowest of ") {
			t.Errorf("fewer than 20 responses: want \"slowest of N\": %s", r[1])
		}
	}
	if seen != len(runs) {
		t.Errorf("history lists %d runs, want %d", seen, len(runs))
	}
}
