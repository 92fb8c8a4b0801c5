//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/duplexscope/duplexscope/audio"
	"github.com/duplexscope/duplexscope/report"
)

// probeRowView is a row of the page's probe table.
type probeRowView struct {
	Kind    string `json:"kind"`
	Outcome string `json:"outcome"`
	Pass    string `json:"pass"`
	Text    string `json:"text"`
}

// TestPageProbes runs the page's probes against simulator scenarios whose
// answers are known. The mic is silent, so the only speech is the probes';
// the simulator's turns are fixed (sim_turns_ms), so the model is talking
// when each probe lands:
//
//  1. personaplex with ignores_backchannels (only speech lasting 1 s
//     truncates), turns at 0.5 s and 3 s of input, 6 s answers, TTFP
//     100 ms: the first answer plays from ≈ 0.6 s. probe_s=backchannel@2,
//     interruption@4. The backchannel ("mm hmm", 0.67 s) is talked through
//     (later_probe: the cut comes after the interruption's onset); the
//     interruption is cut once 1 s of it was heard: stop latency ≥ 1 s
//     (send clock → playback clock), ≤ the 1.7 s clip + slack, with
//     played_ms set; the 3 s turn, held back, is answered right after.
//  2. minicpmo (keeps talking over the user), one turn at 0.5 s, a 7 s
//     answer: probe_s=interruption@2.5 is not cleared (the answer plays to
//     its end: stopped_by ended, verdict ✗); then the kind selector picks
//     noise and the inject button sends it while the answer still plays:
//     kept talking ✓.
func TestPageProbes(t *testing.T) {
	requireBuild(t)
	s := startStack(t)
	ctx := browser(t, silentWAV(t, 40), 3*time.Minute)
	began := time.Now()
	host := strings.TrimPrefix(s.URL, "http://")

	t.Run("personaplex ignores backchannels", func(t *testing.T) {
		target := "ws://" + host + "/v1/realtime?sim_behavior=ignores_backchannels&sim_turns_ms=500,3000&sim_ttfp_ms=100&sim_response_ms=6000"
		q := url.Values{"autostart": {"1"}, "duration_s": {"7"}, "source": {"mic"}, "profile": {"personaplex"}, "model": {"personaplex"},
			"frame_ms": {"80"}, "url": {target}, "probe_s": {"backchannel@2,interruption@4"}}
		start := time.Now()
		run := runPage(t, s, ctx, q, time.Minute)
		ps := reportProbes(t, s, run)
		rows := probeRows(t, ctx)
		t.Logf("run %.1f s; probes %s; rows %+v", time.Since(start).Seconds(), jsonString(ps), rows)
		if len(ps) != 2 || len(rows) != 2 {
			t.Fatalf("%d probes in the report, %d rows on the page; want 2", len(ps), len(rows))
		}
		bc, in := ps[0], ps[1]
		if bc.Kind != "backchannel" || bc.Clip != "standard:backchannel" || bc.ActiveResponseID == "" || bc.StoppedBy != "later_probe" || bc.StopLatencyMs != nil {
			t.Errorf("backchannel %s: want standard:backchannel during an answer, talked through (later_probe, no stop latency)", jsonString(bc))
		}
		if in.Kind != "interruption" || in.Clip != "standard:interruption" || in.ActiveResponseID != bc.ActiveResponseID || in.StoppedBy != "cleared" ||
			in.StopLatencyMs == nil || *in.StopLatencyMs < 1000 || *in.StopLatencyMs > 2500 || in.PlayedMs == nil || *in.PlayedMs <= 0 ||
			in.ReceivedMs == nil || float64(*in.PlayedMs) > *in.ReceivedMs || in.NextResponseMs == nil {
			t.Errorf("interruption %s: want the same answer cleared 1–2.5 s after onset, played_ms ≤ received_ms, then the held turn answered", jsonString(in))
		}
		if in.OffsetS < 4 || in.OffsetS > 4.5 || bc.OffsetS < 2 || bc.OffsetS > 2.5 || in.Clock == "" {
			t.Errorf("offsets %.3f / %.3f s, clock %q: want ≈ 2 and 4 s after stream start with a clock", bc.OffsetS, in.OffsetS, in.Clock)
		}
		for i, want := range []probeRowView{{Kind: "backchannel", Outcome: "later_probe", Pass: "yes"}, {Kind: "interruption", Outcome: "cleared", Pass: "yes"}} {
			if got := rows[i]; got.Kind != want.Kind || got.Outcome != want.Outcome || got.Pass != want.Pass {
				t.Errorf("row %d: %+v, want %+v", i, got, want)
			}
		}
		if !strings.Contains(rows[1].Text, "stopped in") || !strings.Contains(rows[1].Text, "✓") {
			t.Errorf("interruption row %q: want a verdict like \"stopped in N ms ✓\"", rows[1].Text)
		}
		// The timeline shows the onsets and the cut, named by probe and kind.
		marks := timelineMarks(t, ctx)
		if len(marks["probe onset"]) != 2 || len(marks["probe stop"]) != 1 || !strings.HasPrefix(marks["probe stop"][0], "probe_2 (interruption) stopped") {
			t.Errorf("timeline probe markers %v: want 2 onsets and 1 stop naming probe_2 (interruption)", marks)
		}
	})

	t.Run("minicpmo keeps talking", func(t *testing.T) {
		target := "ws://" + host + "/v1/realtime?sim_turns_ms=500&sim_ttfp_ms=300&sim_response_ms=7000"
		q := url.Values{"autostart": {"1"}, "duration_s": {"7"}, "source": {"mic"}, "profile": {"minicpmo"}, "model": {"sim"},
			"url": {target}, "probe_s": {"interruption@2.5"}}
		start := time.Now()
		u := s.URL + "/?" + q.Encode()
		open(t, ctx, u)
		// When the scheduled interruption is on the table, choose noise and
		// inject it with the button: the answer still has ≈ 4 s to play.
		err := pollUntil(ctx, 30*time.Second, func() (bool, error) {
			n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('#probes tr[data-kind]').length`))
			return n == 1, err
		})
		if err != nil {
			t.Fatalf("waiting for the scheduled probe's row: %v", err)
		}
		if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(function(){var s=document.getElementById('in-probe-kind');s.value='noise';s.dispatchEvent(new Event('change',{bubbles:true}));return true})()`)); err != nil {
			t.Fatal(err)
		}
		if err := pollUntil(ctx, 5*time.Second, func() (bool, error) {
			txt, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#btn-probe")))
			return txt == "Noise now", err
		}); err != nil {
			t.Fatalf("the inject button does not follow the kind selector: %v", err)
		}
		hint, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#probe-hint")))
		if !strings.Contains(hint, "keeps talking") {
			t.Errorf("noise hint %q: want it to say a good model keeps talking", hint)
		}
		if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#btn-probe"))); err != nil {
			t.Fatal(err)
		}
		clicked := time.Since(start)
		run := awaitReport(t, ctx, start, time.Minute)
		ps := reportProbes(t, s, run)
		rows := probeRows(t, ctx)
		t.Logf("run %.1f s (noise clicked at %.1f s); probes %s; rows %+v", time.Since(start).Seconds(), clicked.Seconds(), jsonString(ps), rows)
		if len(ps) != 2 || len(rows) != 2 {
			t.Fatalf("%d probes in the report, %d rows on the page; want 2 (scheduled interruption, clicked noise)", len(ps), len(rows))
		}
		in, no := ps[0], ps[1]
		if in.Kind != "interruption" || in.ActiveResponseID == "" || in.StoppedBy != "ended" || in.StopLatencyMs != nil || in.PlayedMs != nil {
			t.Errorf("interruption %s: want the answer talked over to its end (ended, no stop latency)", jsonString(in))
		}
		if r := rows[0]; r.Outcome != "ended" || r.Pass != "no" || !strings.Contains(r.Text, "kept talking ✗") {
			t.Errorf("interruption row %+v: want \"kept talking ✗\"", r)
		}
		if no.Kind != "noise" || no.Clip != "standard:noise" || no.ActiveResponseID != in.ActiveResponseID || no.StoppedBy != "ended" {
			t.Errorf("noise %s: want standard:noise during the same answer, talked over (ended)", jsonString(no))
		}
		if r := rows[1]; r.Kind != "noise" || r.Pass != "yes" || !strings.Contains(r.Text, "kept talking ✓") {
			t.Errorf("noise row %+v: want \"kept talking ✓\"", r)
		}
	})
	t.Logf("TestPageProbes browser time: %.1f s", time.Since(began).Seconds())
}

// silentWAV writes seconds of 16 kHz silence for the fake mic.
func silentWAV(t *testing.T, seconds int) string {
	t.Helper()
	var b bytes.Buffer
	if err := audio.WritePCM16WAV(&b, make([]byte, seconds*audio.InputRate*2), audio.InputRate); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "silence.wav")
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// reportProbes reads probes[] of the archived report.
func reportProbes(t *testing.T, s *stack, run browserRun) []report.Probe {
	t.Helper()
	var rep struct {
		Probes []report.Probe `json:"probes"`
	}
	s.getJSON(t, "/api/reports/"+run.ReportID, &rep)
	return rep.Probes
}

// probeRows reads the page's probe table.
func probeRows(t *testing.T, ctx context.Context) []probeRowView {
	t.Helper()
	rows, err := chromedp.Run(ctx, chromedp.Evaluate[[]probeRowView](`Array.from(document.querySelectorAll('#probes tr[data-kind]')).map(function(r){
		return {kind:r.dataset.kind, outcome:r.dataset.outcome, pass:r.dataset.pass||"", text:r.innerText}})`))
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// timelineMarks opens the timeline tab and returns the probe markers'
// tooltip names by series.
func timelineMarks(t *testing.T, ctx context.Context) map[string][]string {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#tab-timeline")), chromedp.WaitVisible(chromedp.CSS("#chart-timeline"))); err != nil {
		t.Fatal(err)
	}
	var marks map[string][]string
	err := pollUntil(ctx, 5*time.Second, func() (bool, error) {
		var err error
		marks, err = chromedp.Run(ctx, chromedp.Evaluate[map[string][]string](`(function(){
			var c = echarts.getInstanceByDom(document.getElementById('chart-timeline')); var out = {};
			if (!c) return out;
			c.getOption().series.forEach(function(s){ if (s.name.indexOf('probe') === 0) out[s.name] = s.data.map(function(d){return d.name}) });
			return out })()`))
		return len(marks) > 0, err
	})
	if err != nil {
		t.Errorf("timeline: %v", err)
	}
	return marks
}

func jsonString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestPersonaPlexProfile runs the 80 ms PersonaPlex-like profile, which
// truncates the model on barge-in (output_audio_buffer.cleared): the page
// must drop the cleared audio, mark the response truncated, and still save
// a report whose numbers match truth and replay. It runs the coder
// transport, which the session worker must run as well as the browser one.
func TestPersonaPlexProfile(t *testing.T) {
	s, ctx := pageTest(t, nil, 4*time.Minute)
	q := url.Values{"autostart": {"1"}, "duration_s": {"22"}, "source": {"mic"}, "profile": {"personaplex"}, "frame_ms": {"80"}, "model": {"personaplex"}, "probe_s": {"5,11,17"}, "transport": {"coder"}}
	run := runPage(t, s, ctx, q, 3*time.Minute)
	tr := checkReport(t, s, run)
	wantThread(t, tr, "worker")
	var ex struct {
		Transport string `json:"transport"`
	}
	if err := json.Unmarshal(tr.Session.Extra, &ex); err != nil || ex.Transport != "coder" {
		t.Errorf("wire log transport %q (%v), want coder", ex.Transport, err)
	}
	var rep struct {
		Run struct {
			FrameMs int    `json:"frame_ms"`
			Profile string `json:"profile"`
		} `json:"run"`
		Responses []struct {
			ResponseID string `json:"response_id"`
			Truncated  bool   `json:"truncated"`
		} `json:"responses"`
	}
	b := s.getJSON(t, "/api/reports/"+run.ReportID, nil)
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Run.FrameMs != 80 || rep.Run.Profile != "personaplex" {
		t.Errorf("report run: frame_ms %d profile %q, want 80 / personaplex", rep.Run.FrameMs, rep.Run.Profile)
	}
	var tru struct {
		Responses []struct {
			ResponseID string `json:"response_id"`
			Status     string `json:"status"`
		} `json:"responses"`
	}
	var sess struct {
		Sessions []struct {
			SessionID string `json:"session_id"`
		} `json:"sessions"`
	}
	_ = json.Unmarshal(b, &sess)
	s.getJSON(t, "/sim/sessions/"+url.PathEscape(sess.Sessions[0].SessionID)+"/truth", &tru)
	truncated := map[string]bool{}
	for _, r := range rep.Responses {
		truncated[r.ResponseID] = r.Truncated
	}
	n := 0
	for _, r := range tru.Responses {
		if r.Status == "cancelled" {
			n++
			if !truncated[r.ResponseID] {
				t.Errorf("response %s was cut off by the simulator (barge-in) but the report does not mark it truncated", r.ResponseID)
			}
		}
	}
	t.Logf("%d of %d responses were cut off by barge-in", n, len(tru.Responses))

	// Issue 11 probes: each probe_s offset mixed the interruption clip in;
	// the wire log records its onset (client send clock) and, when the
	// model was talking, whether its playback stopped.
	rows, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll('#probes tr[data-outcome]')).map(function(r){return r.innerText})`))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 {
		t.Errorf("probe table has %d rows, want 3: %q", len(rows), rows)
	}
	t.Logf("probes: %q", rows)
	var full archived
	_ = json.Unmarshal(b, &full)
	wl := s.getJSON(t, "/api/reports/"+run.ReportID+"/attachments/"+full.Sessions[0].WireLog, nil)
	onsets := strings.Count(string(wl), `"event":"onset"`)
	if onsets != 3 {
		t.Errorf("wire log has %d probe onset notes, want 3", onsets)
	}
}
