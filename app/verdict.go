package app

import (
	"sort"

	"github.com/duplexscope/duplexscope/metrics"
	"github.com/duplexscope/duplexscope/metrics/turntaking"
	"github.com/duplexscope/duplexscope/report"
)

// heardOriginPage labels the page's heard latencies: audio that played.
const heardOriginPage = "playback clock"

// responseExtras are the report's per-response extras of a page run: heard
// TTFP and end of user speech → heard, both on the playback clock (mapped
// to the trace clock the user speech is on). The live verdict and the
// saved report both use it, so they judge the same numbers.
func responseExtras(resp []respView, user []turntaking.Interval, sid string) []report.ResponseExtra {
	starts := make([]*float64, len(resp))
	for i, rv := range resp {
		if rv.PlayStartMs > 0 {
			t := rv.PlayStartMs
			starts[i] = &t
		}
	}
	ends := turntaking.SpeechEndToFirstSound(user, starts)
	out := make([]report.ResponseExtra, 0, len(resp))
	for i, rv := range resp {
		x := report.ResponseExtra{SessionID: sid, ResponseID: rv.ID, Underruns: rv.Underruns, Truncated: rv.Truncated, Transcript: rv.Transcript}
		if h, ok := rv.heardMs(); ok {
			x.HeardTTFPMs = &h
			x.HeardOrigin = heardOriginPage
			if e := ends[i]; e != nil {
				v := metrics.Round(*e, 3)
				x.SpeechEndToHeardMs = &v
			}
		}
		out = append(out, x)
	}
	return out
}

// sortedResp lists responses in the order they were created.
func sortedResp(m map[string]respView) []respView {
	out := make([]respView, 0, len(m))
	for _, rv := range m {
		out = append(out, rv)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].CreatedMs != out[j].CreatedMs {
			return out[i].CreatedMs < out[j].CreatedMs
		}
		return out[i].ID < out[j].ID
	})
	return out
}

// liveReport is the report the page would save now: the same metrics
// rows (metrics.BuildReport through report.FromMetrics, as buildReport), the same
// extras and the same completeness, so report.Judge gives the dashboard
// exactly the verdict the share page will show. nil on a build error.
func liveReport(res metrics.SessionResult, resp []respView, user []turntaking.Interval, errText, sid string) *report.Report {
	built, err := report.FromMetrics(report.Run{Client: report.ClientBrowser}, metrics.BuildReport([]metrics.SessionResult{res}))
	if err != nil {
		return nil
	}
	rep := &report.Report{Schema: report.Schema, Complete: true, Run: built.Run, Metrics: report.Metrics{Requests: built.Metrics.Requests}}
	rep.Responses = responseExtras(resp, user, sid)
	rep.Sessions = []report.SessionExtra{{SessionID: sid, Complete: errText == "", Error: errText}}
	// No report.Finish: what it adds (run keys, warnings, the summary of
	// speech_end_to_heard_ms) is not what Judge reads, and the page's only
	// thread is busy.
	return rep
}
