//go:build e2e

package e2e

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

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
