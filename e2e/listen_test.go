//go:build e2e

package e2e

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// laneExtents is the drawn x range of a two-lane timeline's axes; fewer
// than two while the chart is not laid out yet (an option just set has no
// axis until echarts lays it out: the caller polls).
const laneExtents = `(function(id){
	var c = echarts.getInstanceByDom(document.getElementById(id));
	if (!c) return [];
	var m = c.getModel(), out = [];
	for (var i = 0; i < 2; i++) { var a = m.getComponent('xAxis', i); if (a && a.axis && a.axis.scale) out.push(a.axis.scale.getExtent()); }
	return out })`

// lanes polls (10 s) until the two-lane timeline #id is laid out and
// returns its lanes' extents (user, model).
func lanes(t *testing.T, ctx context.Context, id string) [][]float64 {
	t.Helper()
	var ext [][]float64
	if err := pollUntil(ctx, 10*time.Second, func() (bool, error) {
		var err error
		ext, err = chromedp.Run(ctx, chromedp.Evaluate[[][]float64](laneExtents+`('`+id+`')`))
		return len(ext) == 2, err
	}); err != nil {
		t.Fatalf("timeline #%s: %v", id, err)
	}
	return ext
}

// TestShareListenDatasetRun runs a 12 s page session on the bundled
// dataset (its clips last longer than 12 s), then checks the issue-20
// points end to end: the dashboard's timeline draws both lanes on one time
// axis no longer than the run; the run's share page plays the session
// rebuilt from the uploaded wire log (currentTime advances after play()),
// lists when the replies start, shows the model's transcript and the
// clips' text for the user, and its session timeline shares one axis.
//
//	make wasm && go test -tags e2e -count=1 -run TestShareListenDatasetRun ./e2e/
func TestShareListenDatasetRun(t *testing.T) {
	t.Parallel() // no timing bound: may run beside another test (doc.go)
	s, ctx := pageTest(t, nil, 4*time.Minute)
	q := url.Values{"autostart": {"1"}, "duration_s": {"12"}, "source": {"dataset:builtin"}}
	run := runPage(t, s, ctx, q, 3*time.Minute)

	// The dashboard's timeline.
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#tab-timeline")), chromedp.WaitVisible(chromedp.CSS("#chart-timeline"))); err != nil {
		t.Fatal(err)
	}
	ext := lanes(t, ctx, "chart-timeline") // the dashboard's
	if ext[0][0] != ext[1][0] || ext[0][1] != ext[1][1] {
		t.Errorf("dashboard timeline lanes on different axes: user %v, model %v", ext[0], ext[1])
	}
	// The run streamed 12 s plus the reply tail; the dataset's later clips
	// (never sent) must not stretch the axis.
	if ext[0][1] < 12 || ext[0][1] > 25 {
		t.Errorf("dashboard timeline spans %v s, want the 12 s run (≤ 25 s with the tail)", ext[0])
	}
	t.Logf("dashboard timeline lanes: user %v s, model %v s", ext[0], ext[1])

	// The share page.
	open(t, ctx, s.URL+"/r/"+run.ReportID, chromedp.WaitReady("body"))
	starts, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll('#listen [data-start-s]')).map(e => e.dataset.startS)`))
	if err != nil {
		t.Fatal(err)
	}
	if len(starts) == 0 {
		t.Fatal("the share page lists no reply start: nothing rebuilt from the wire log")
	}
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(document.querySelector('audio[data-lane="mix"]').play().then(() => window.__played = true, e => window.__played = String(e)), true)`)); err != nil {
		t.Fatal(err)
	}
	if err := pollUntil(ctx, 20*time.Second, func() (bool, error) {
		return chromedp.Run(ctx, chromedp.Evaluate[bool](`window.__played === true && document.querySelector('audio[data-lane="mix"]').currentTime > 0.5`))
	}); err != nil {
		played, _ := chromedp.Run(ctx, chromedp.Evaluate[any](`window.__played`))
		t.Fatalf("the share page's player did not play (play(): %v): %v", played, err)
	}
	said, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll('#transcripts li')).map(li => li.dataset.speaker + '|' + li.innerText)`))
	if err != nil {
		t.Fatal(err)
	}
	var user, model int
	for _, l := range said {
		switch {
		case strings.HasPrefix(l, "user|") && strings.Contains(l, "clip text of dataset builtin"):
			user++
		case strings.HasPrefix(l, "model|"):
			model++
		}
	}
	t.Logf("share page: %d reply starts listed, player played; transcripts: %d user lines (clip text), %d model lines", len(starts), user, model)
	if user == 0 || model == 0 {
		t.Errorf("transcripts: %d user lines (clip text), %d model lines, want both:\n%s", user, model, strings.Join(said, "\n"))
	}
	ext = lanes(t, ctx, "chart-session") // the share page's
	if ext[0][0] != ext[1][0] || ext[0][1] != ext[1][1] || ext[0][1] < 12 {
		t.Errorf("share page session timeline lanes: user %v, model %v, want one axis covering the 12 s run", ext[0], ext[1])
	}
	t.Logf("share page session timeline lanes: user %v s, model %v s", ext[0], ext[1])
	screenshot(t, ctx, "share-listen")
}
