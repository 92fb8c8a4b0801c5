//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/duplexscope/duplexscope/trace"
)

// Browser benchmarks for issue 9 (run with
// `go test -tags e2e -run '^$' -bench . -benchtime 1x ./e2e/`):
//
//   - BenchmarkLiveViewFPS: frame rate of the live view while it redraws
//     every 250 ms with N synthetic responses on screen (?demo=N), measured
//     by a requestAnimationFrame counter in the page for 5 s.
//   - BenchmarkReceiveStamping: client − truth error of response.created →
//     first audio for each browser transport (?transport=browser|coder).
//   - BenchmarkFirstChartPoint: navigation → first TTFP point (dataset input).

func BenchmarkLiveViewFPS(b *testing.B) {
	// n = 0 is the baseline measured in the same run: a static page
	// (/history) in the same browser, so machine load shows up in both.
	for _, n := range []int{0, 20, 200} {
		name := fmt.Sprintf("responses=%d", n)
		if n == 0 {
			name = "baseline=static-page"
		}
		b.Run(name, func(b *testing.B) {
			requireBuild(b)
			s := startStack(b)
			ctx, cancel := newBrowser(b, filepath.Join("testdata", "fake-mic.wav"))
			defer cancel()
			for i := 0; i < b.N; i++ {
				page := fmt.Sprintf("%s/?demo=%d", s.URL, n)
				if n == 0 {
					page = s.URL + "/history"
				}
				if err := chromedp.Do(ctx, chromedp.Navigate(page)); err != nil {
					b.Fatal(err)
				}
				// Wait until the demo has drawn its points.
				if err := pollUntil(ctx, 60*time.Second, func() (bool, error) {
					if n == 0 {
						st, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.readyState`))
						return st == "complete", err
					}
					v, err := attr(ctx, "#chart-ttfp", "data-points")
					return v == fmt.Sprint(n), err
				}); err != nil {
					b.Fatalf("demo page: %v", err)
				}
				var r struct {
					Frames  int     `json:"frames"`
					Seconds float64 `json:"seconds"`
					MaxGap  float64 `json:"max_gap_ms"`
				}
				raw, err := chromedp.Run(ctx, chromedp.Evaluate[[]byte](`new Promise(function(done){
					var n=0,t0=performance.now(),last=t0,gap=0;
					function f(t){n++;gap=Math.max(gap,t-last);last=t;
						if(t-t0<5000){requestAnimationFrame(f)}else{done({frames:n,seconds:(t-t0)/1000,max_gap_ms:gap})}}
					requestAnimationFrame(f)})`, chromedp.EvalAwaitPromise))
				if err != nil {
					b.Fatal(err)
				}
				if err := json.Unmarshal(raw, &r); err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(r.Frames)/r.Seconds, "fps")
				b.ReportMetric(r.MaxGap, "max-frame-gap-ms")
			}
		})
	}
}

func BenchmarkReceiveStamping(b *testing.B) {
	for _, tr := range []string{"browser", "coder"} {
		b.Run("transport="+tr, func(b *testing.B) {
			requireBuild(b)
			s := startStack(b)
			ctx, cancel := newBrowser(b, filepath.Join("testdata", "fake-mic.wav"))
			defer cancel()
			for i := 0; i < b.N; i++ {
				run := runPage(b, s, ctx, url.Values{"autostart": {"1"}, "duration_s": {"20"}, "source": {"dataset:builtin"}, "transport": {tr}}, 3*time.Minute)
				errs := stampingErrors(b, s, run.ReportID)
				sort.Float64s(errs)
				abs := make([]float64, len(errs))
				for i, e := range errs {
					abs[i] = math.Abs(e)
				}
				sort.Float64s(abs)
				b.ReportMetric(float64(len(errs)), "responses")
				b.ReportMetric(abs[len(abs)/2], "abs-err-p50-ms")
				b.ReportMetric(abs[len(abs)-1], "abs-err-max-ms")
				b.ReportMetric(run.FirstPointMs, "first-point-ms")
			}
		})
	}
}

// stampingErrors returns client − truth (created → first audio) per response.
func stampingErrors(b *testing.B, s *stack, id string) []float64 {
	b.Helper()
	t := b
	var rep archived
	s.getJSON(t, "/api/reports/"+id, &rep)
	wl := s.getJSON(t, "/api/reports/"+id+"/attachments/"+rep.Sessions[0].WireLog, nil)
	tr, err := trace.DecodeSession(wl)
	if err != nil {
		b.Fatal(err)
	}
	var tru truth
	s.getJSON(t, "/sim/sessions/"+url.PathEscape(rep.Sessions[0].SessionID)+"/truth", &tru)
	client := clientIntervals(b, tr)
	var out []float64
	for _, r := range tru.Responses {
		c, ok := client.interval[r.ResponseID]
		if ok && r.CreatedMs != nil && r.FirstAudioMs != nil {
			out = append(out, c.ms-(*r.FirstAudioMs-*r.CreatedMs))
		}
	}
	if len(out) == 0 {
		b.Fatal("no responses to compare")
	}
	return out
}
