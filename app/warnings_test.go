package app

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duplexscope/duplexscope/metrics"
	"github.com/duplexscope/duplexscope/report"
)

func f64(v float64) *float64 { return &v }

func TestComputeWarnings(t *testing.T) {
	t.Parallel()
	server := metrics.Row{Raw: &metrics.RawMetric{TTFPClock: metrics.ClockServer, TTFTClock: metrics.ClockServer, TTFTMs: f64(1), RTF: f64(0.5)}}
	client := metrics.Row{Raw: &metrics.RawMetric{TTFPClock: metrics.ClockClientReceive, RTF: f64(1.2)}}
	tests := []struct {
		name string
		in   warnInput
		want []string
	}{
		{"clean", warnInput{FrameMs: 200, PacingMaxMs: 150, OutputRate: 24000, Rows: []metrics.Row{server}}, nil},
		{"everything", warnInput{TabHidden: true, FrameMs: 200, PacingMaxMs: 201, OutputRate: 48000, Rows: []metrics.Row{server, client},
			Underruns: 2, Incomplete: true, LegacyNames: true, FramesDropped: 1},
			[]string{report.WarnTabHidden, report.WarnPacingLag, report.WarnPacingLag, report.WarnAudioRateMismatch, report.WarnRTF,
				report.WarnServerMetricsMissing, report.WarnPlaybackUnderrun, report.WarnLegacyEventNames, report.WarnIncompleteSession}},
		{"lag of exactly one frame is fine", warnInput{FrameMs: 80, PacingMaxMs: 80}, nil},
		{"debug stall is named", warnInput{FrameMs: 200, StallMs: 250, StallEveryMs: 1000}, []string{report.WarnMainThreadStall}},
		{"a worker that could not start is named", warnInput{FrameMs: 200, WorkerFallback: "its wasm did not load"}, []string{report.WarnWorkerUnavailable}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var got []string
			for _, w := range computeWarnings(tc.in) {
				got = append(got, w.Code)
				if _, ok := report.WarningCodes[w.Code]; !ok {
					t.Errorf("code %q is not a report warning code", w.Code)
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}

// judged is report.Judge of a page-like report: n responses with the
// given heard and speech-end latencies and RTF.
func judged(t *testing.T, n int, heard, speech, rtf float64, errText string) report.Verdict {
	t.Helper()
	rows := make([]string, n)
	for i := range rows {
		rows[i] = fmt.Sprintf(`{"session_id":"s","request_index":%d,"response_id":"r%d","source":"server_request_start_and_client_receive","ttfp_ms":200,"rtf":%g}`, i, i, rtf)
	}
	rep, err := report.New(report.Run{Client: report.ClientBrowser}, []byte(`{"duplex_request_metrics":[`+strings.Join(rows, ",")+`],"duplex_session_metrics":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		h, s := heard, speech
		rep.Responses = append(rep.Responses, report.ResponseExtra{SessionID: "s", ResponseID: fmt.Sprint("r", i), HeardTTFPMs: &h, HeardOrigin: "playback clock", SpeechEndToHeardMs: &s})
	}
	rep.Sessions = []report.SessionExtra{{SessionID: "s", Complete: errText == "", Error: errText}}
	report.Finish(rep)
	return report.Judge(rep)
}

func TestBuildPlainBands(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name           string
		v              func(t *testing.T) report.Verdict
		responses      int
		phase          string
		wantBand, code string
		want, wantTail string
		lacks          string
	}{
		{"fast", func(t *testing.T) report.Verdict { return judged(t, 5, 200, 250, 0.5, "") }, 5, phaseDone, bandGreen, report.VerdictGood, "0.25 s", "Slowest of 5 replies", "p99"},
		{"0.48 s is usable, not noticeably slow", func(t *testing.T) report.Verdict { return judged(t, 5, 300, 480, 0.5, "") }, 5, phaseDone, bandAmber, report.VerdictUsable, "a noticeable pause", "Slowest of 5 replies", "noticeably slow"},
		{"red", func(t *testing.T) report.Verdict { return judged(t, 5, 300, 1600, 0.5, "") }, 5, phaseDone, bandRed, report.VerdictSlow, "too slow for conversation", "", ""},
		{"rtf over 1 is not real-time", func(t *testing.T) report.Verdict { return judged(t, 5, 200, 250, 1.1, "") }, 5, phaseDone, bandRed, report.VerdictNotRealTime, "slower than real time", "", "faster than real time"},
		{"25 replies: p99", func(t *testing.T) report.Verdict { return judged(t, 25, 200, 250, 0.5, "") }, 25, phaseDone, bandGreen, report.VerdictGood, "p99", "Slowest replies (p99)", "slowest of"},
		{"killed", func(t *testing.T) report.Verdict {
			return judged(t, 5, 200, 250, 0.5, "unexpected session.closed: server_shutdown")
		}, 5, phaseDone, bandRed, report.VerdictIncomplete, "server shut the session down", "", "Good"},
		{"nothing yet", func(t *testing.T) report.Verdict { return judged(t, 0, 0, 0, 0, "") }, 0, phaseStreaming, bandGrey, report.VerdictNotEnoughData, "No replies yet", "", ""},
		{"never answered", func(t *testing.T) report.Verdict { return judged(t, 0, 0, 0, 0, "") }, 0, phaseDone, bandGrey, report.VerdictNotEnoughData, "no response with audio", "", ""},
		{"two replies", func(t *testing.T) report.Verdict { return judged(t, 2, 200, 250, 0.5, "") }, 2, phaseDone, bandGrey, report.VerdictNotEnoughData, "at least 3", "Slowest replies", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			v := buildPlain(tc.v(t), tc.responses, tc.responses, nil, tc.phase)
			if v.Band != tc.wantBand || v.Code != tc.code {
				t.Errorf("band %q code %q (%q), want %q %q", v.Band, v.Code, v.Verdict, tc.wantBand, tc.code)
			}
			if !strings.Contains(v.Verdict, tc.want) {
				t.Errorf("verdict %q lacks %q", v.Verdict, tc.want)
			}
			if tc.lacks != "" && strings.Contains(strings.ToLower(v.Verdict), strings.ToLower(tc.lacks)) {
				t.Errorf("verdict %q says %q", v.Verdict, tc.lacks)
			}
			var titles []string
			for _, c := range v.Cards {
				titles = append(titles, c.Title)
				if tc.lacks != "" && strings.Contains(strings.ToLower(c.Title), strings.ToLower(tc.lacks)) {
					t.Errorf("card %q says %q", c.Title, tc.lacks)
				}
			}
			if tc.wantTail != "" && !strings.Contains(strings.Join(titles, "|"), tc.wantTail) {
				t.Errorf("cards %q lack %q", titles, tc.wantTail)
			}
			if !strings.Contains(v.Footnote, "0.30 s–0.80 s a noticeable pause") {
				t.Errorf("footnote %q is not the band table", v.Footnote)
			}
		})
	}
}
