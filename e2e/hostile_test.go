//go:build e2e

package e2e

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/duplexscope/duplexscope/report"
)

// Each payload, if it ever executed, would bump window.__pwned.
// hostileMarker[i] is a fragment of hostile[i] that must appear as text.
var hostileMarker = []string{"<script>", "<img", "<svg", "</script>", "</title>", "javascript:", "<iframe", "</style>"}

var hostile = []string{
	`<script>window.__pwned=(window.__pwned||0)+1</script>`,
	`"><img src=x onerror="window.__pwned=(window.__pwned||0)+1">`,
	`'><svg onload="window.__pwned=(window.__pwned||0)+1">`,
	`</script><script>window.__pwned=(window.__pwned||0)+1</script>`,
	`</title><script>window.__pwned=(window.__pwned||0)+1</script>`,
	`javascript:window.__pwned=(window.__pwned||0)+1`,
	`{{.}}<iframe srcdoc="<script>parent.__pwned=(parent.__pwned||0)+1</script>">`,
	"\u2028\u2029</style><style>body{display:none}</style>",
}

// hostileReport builds a valid report whose every free-text field carries
// payload p.
func hostileReport(t *testing.T, p string) []byte {
	t.Helper()
	obj := func(extra map[string]any) map[string]any { return extra }
	sum := map[string]any{"count": 1, "mean": 100.0, "p50": 100.0, "p99": 100.0}
	metrics := map[string]any{
		"duplex_request_metrics": []any{obj(map[string]any{
			"session_id": p, "request_index": 0, "response_id": p, "source": "client_monotonic_receive",
			"measurement_origin": map[string]any{"ttft": p, "ttfp": p, "tpot": p, "rtf": p, "client_ttft": p, "client_ttfp": p},
			"ttft_ms":            100.0, "ttfp_ms": 200.0, "audio_generation_ms": 300.0, "audio_duration_ms": 400.0, "rtf": 0.75,
			"client_ttft_ms": 100.0, "client_ttfp_ms": 200.0,
		})},
		"duplex_session_metrics": []any{obj(map[string]any{
			"session_id": p, "audio_turn_count": 1, "ttft_ms": sum, "ttfp_ms": sum, "rtf": sum,
		})},
	}
	mb, err := json.Marshal(metrics)
	if err != nil {
		t.Fatal(err)
	}
	r, err := report.New(report.Run{
		TargetURL: "ws://127.0.0.1:1/v1/realtime?x=" + url.QueryEscape(p), Model: p, Profile: p, FrameMs: 200,
		Version: p, Client: report.ClientBrowser,
		Machine: report.Machine{OS: p, Arch: p, Hostname: p, UserAgent: p},
		Source:  report.Source{Kind: report.SourceDataset, Dataset: p, Split: p},
	}, mb)
	if err != nil {
		t.Fatalf("report.New: %v", err)
	}
	h := 123.0
	r.Responses = []report.ResponseExtra{{SessionID: p, ResponseID: p, HeardTTFPMs: &h, HeardOrigin: p, Transcript: p}}
	r.Sessions = []report.SessionExtra{{SessionID: p, SampleID: p, Split: p, Complete: true, Error: p}}
	r.Warnings = []report.Warning{{Code: report.WarnTabHidden, Message: p, SessionID: p, ResponseID: p}}
	report.Finish(r)
	b, err := report.MarshalIndent(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestHostileReportsRunNoScript (issue 10): share, compare and history pages
// built from reports with script/HTML in every string field execute none of it.
func TestHostileReportsRunNoScript(t *testing.T) {
	t.Parallel() // no timing bound: may run beside another test (doc.go)
	requireBuild(t)
	s := startStack(t)
	var ids []string
	for i, p := range hostile {
		res, err := http.Post(s.URL+"/api/reports", "application/json", bytes.NewReader(hostileReport(t, p)))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusCreated {
			t.Fatalf("payload %d: upload %s: %s", i, res.Status, b)
		}
		var c struct{ ID string }
		if err := json.Unmarshal(b, &c); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, c.ID)
	}
	ctx := browser(t, fakeMic, 2*time.Minute)
	pages := []string{"/compare?ids=" + strings.Join(ids[:3], ","), "/compare?ids=" + strings.Join(ids[3:6], ","),
		"/history", "/history?q=" + url.QueryEscape(hostile[0]),
		// The live page prefills its form from URL parameters.
		"/?model=" + url.QueryEscape(hostile[1]) + "&url=" + url.QueryEscape(hostile[0]) + "&profile=" + url.QueryEscape(hostile[2])}
	marker := map[string]string{}
	for i, id := range ids {
		pages = append(pages, "/r/"+id)
		marker["/r/"+id] = hostileMarker[i]
	}
	for _, p := range pages {
		open(t, ctx, s.URL+p)
		// The load event fires after images (onerror) and iframes settle.
		if err := pollUntil(ctx, 20*time.Second, func() (bool, error) {
			st, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.readyState`))
			return st == "complete", err
		}); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		got, err := chromedp.Run(ctx, chromedp.Evaluate[string](
			`String(window.__pwned||0)+"|"+document.body.style.display+"|"+getComputedStyle(document.body).display`))
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if !strings.HasPrefix(got, "0|") || strings.HasSuffix(got, "|none") {
			t.Errorf("%s: injected content took effect (pwned|style|display = %s)", p, got)
		}
		text, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.innerText`))
		if err != nil {
			t.Fatal(err)
		}
		if m := marker[p]; m != "" && !strings.Contains(text, m) {
			t.Errorf("%s: the payload (%q) is not shown as text (escaped) on the share page", p, m)
		}
	}
	t.Logf("opened %d pages built from %d hostile reports: no payload executed", len(pages), len(ids))
}
