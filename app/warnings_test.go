package app

import (
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

func TestBuildPlainBands(t *testing.T) {
	t.Parallel()
	sum := func(p50, p99 float64) *metrics.Summary {
		return &metrics.Summary{Count: 3, Mean: p50, P50: p50, P99: p99}
	}
	tests := []struct {
		name      string
		heard     *metrics.Summary
		rtf       *metrics.Summary
		responses int
		phase     string
		wantBand  string
	}{
		{"fast", sum(250, 290), sum(0.5, 0.6), 3, phaseDone, bandGreen},
		{"edge of green", sum(300, 300), sum(0.5, 0.6), 3, phaseDone, bandGreen},
		{"amber", sum(650, 900), sum(0.5, 0.6), 3, phaseDone, bandAmber},
		{"slow but under 1.5 s", sum(1200, 1400), sum(0.5, 0.6), 3, phaseDone, bandAmber},
		{"red", sum(1600, 2000), sum(0.5, 0.6), 3, phaseDone, bandRed},
		{"rtf over 1 is red", sum(250, 290), sum(0.9, 1.1), 3, phaseDone, bandRed},
		{"nothing yet", nil, nil, 0, phaseStreaming, bandGrey},
		{"never answered", nil, nil, 0, phaseDone, bandRed},
		{"not played", nil, sum(0.5, 0.6), 2, phaseDone, bandAmber},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			v := buildPlain(metrics.SessionSummary{RTF: tc.rtf, AudioTurnCount: tc.responses}, tc.heard, tc.responses, nil, tc.phase)
			if v.Band != tc.wantBand {
				t.Errorf("band %q (%q), want %q", v.Band, v.Verdict, tc.wantBand)
			}
			if v.Verdict == "" || len(v.Cards) < 4 {
				t.Errorf("verdict %q, %d cards", v.Verdict, len(v.Cards))
			}
		})
	}
}
