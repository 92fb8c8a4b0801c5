//go:build e2e

package e2e

import (
	"encoding/json"
	"net/url"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestPageTurnTakingProbe: one probe_s probe on a mic run yields one
// derived interruption case on the live cards, and the archived report
// carries the same scores as turn_taking plus the probe in probes[].
func TestPageTurnTakingProbe(t *testing.T) {
	s, ctx := pageTest(t, nil, 3*time.Minute)
	q := url.Values{"autostart": {"1"}, "duration_s": {"12"}, "source": {"mic"}, "probe_s": {"5"}}
	run := runPage(t, s, ctx, q, 2*time.Minute)
	var rep struct {
		Probes []struct {
			Kind    string  `json:"kind"`
			OffsetS float64 `json:"offset_s"`
			Clock   string  `json:"clock"`
		} `json:"probes"`
		TurnTaking *struct {
			Scores []struct {
				Category  string `json:"category"`
				Cases     int    `json:"cases"`
				Takeovers int    `json:"takeovers"`
			} `json:"scores"`
		} `json:"turn_taking"`
	}
	b := s.getJSON(t, "/api/reports/"+run.ReportID, nil)
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Probes) != 1 || rep.Probes[0].OffsetS < 5 || rep.Probes[0].OffsetS > 6 || rep.Probes[0].Clock == "" {
		t.Errorf("report probes = %+v, want one at offset 5–6 s with a clock", rep.Probes)
	}
	if rep.TurnTaking == nil {
		t.Fatal("report has no turn_taking")
	}
	cards, err := chromedp.Run(ctx, chromedp.Evaluate[[]map[string]string](`Array.from(document.querySelectorAll('#turntaking [data-category]')).map(function(e){return {c:e.dataset.category,k:e.dataset.takeovers,n:e.dataset.cases}})`))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("report scores %+v; cards %v", rep.TurnTaking.Scores, cards)
	got := map[string]int{}
	for _, sc := range rep.TurnTaking.Scores {
		got[sc.Category] = sc.Cases
	}
	if got["interruption"] != 1 {
		t.Errorf("interruption cases = %d, want 1 (the probe)", got["interruption"])
	}
	if len(cards) != len(rep.TurnTaking.Scores) {
		t.Errorf("%d cards on the page, %d scores in the report", len(cards), len(rep.TurnTaking.Scores))
	}
}
