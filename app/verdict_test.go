package app

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duplexscope/duplexscope/metrics/turntaking"
	"github.com/duplexscope/duplexscope/report"
)

// TestLiveVerdictMatchesSavedReport: the dashboard judges the report the
// page saves, so its verdict and statistics equal report.Judge of the
// uploaded report for the same run (finished, failed, still streaming).
func TestLiveVerdictMatchesSavedReport(t *testing.T) {
	t.Parallel()
	res := loadResult(t, "server_metrics_present.trace.json")
	resp := map[string]respView{}
	var list []respView
	var user []turntaking.Interval
	for i, r := range res.Responses {
		if r.CreatedMs == nil {
			continue
		}
		rv := respView{ID: r.ResponseID, CreatedMs: *r.CreatedMs, PlayStartMs: *r.CreatedMs + 100 + 50*float64(i)}
		resp[r.ResponseID] = rv
		list = append(list, rv)
		// the user stopped speaking 400 ms before each reply was created
		user = append(user, turntaking.Interval{StartMs: *r.CreatedMs - 1000, EndMs: *r.CreatedMs - 400})
	}
	if len(list) == 0 {
		t.Fatal("vector has no responses")
	}
	for _, tc := range []struct {
		name, err string
		want      string
	}{
		{"finished", "", ""},
		{"killed", "unexpected session.closed: server_shutdown", report.VerdictIncomplete},
	} {
		t.Run(tc.name, func(t *testing.T) {
			live := buildView(viewInput{Phase: phaseDone, Result: res, Resp: resp, UserSpeech: user, Error: tc.err, SessionID: "sess"})
			rep, _, err := buildReport(saveInput{Final: res, Resp: list, UserSpeech: user, Complete: tc.err == "", Error: tc.err,
				Trace: nil, Settings: Settings{Model: "m"}}, "test")
			if err != nil {
				t.Fatal(err)
			}
			saved := report.Judge(rep)
			if live.Plain.Code != saved.Code || live.Verdict.Code != saved.Code {
				t.Errorf("dashboard verdict %q (%s), saved report %q (%s)", live.Plain.Code, live.Plain.Verdict, saved.Code, saved.Text())
			}
			if tc.want != "" && saved.Code != tc.want {
				t.Errorf("verdict %q, want %q", saved.Code, tc.want)
			}
			if diff := cmp.Diff(saved.Facts.SpeechEnd, live.Verdict.Facts.SpeechEnd); diff != "" {
				t.Errorf("speech end → heard differs (-saved +live):\n%s", diff)
			}
			if s := rep.SpeechEndToHeard; s == nil || s.Count != len(list) || s.Playback != report.PlaybackReal {
				t.Errorf("saved speech_end_to_heard_ms = %+v, want %d values, real playback", s, len(list))
			} else if s.P50 < 500 {
				t.Errorf("speech end → heard p50 %v ms, want ≥ 500 (400 ms before created + ≥ 100 ms to play)", s.P50)
			}
			if err := report.Validate(rep, report.DefaultLimits); err != nil {
				t.Errorf("saved report invalid: %v", err)
			}
		})
	}
}
