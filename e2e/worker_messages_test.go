//go:build e2e

package e2e

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/duplexscope/duplexscope/trace"
)

// workerWatch tallies what the session worker posts the page (window.__dsw:
// type → count, and each snapshot's worker instant and whether it was a
// response boundary), installed before any
// page script runs: the page's own handler is onmessage; a listener sees
// the same messages.
const workerWatch = `window.__dsw={types:{},snaps:[]};(function(){var W=window.Worker;if(!W)return;` +
	`window.Worker=function(u,o){var w=new W(u,o);w.addEventListener("message",function(e){var t=e.data&&e.data.type;` +
	`window.__dsw.types[t]=(window.__dsw.types[t]||0)+1;if(t==="snapshot")window.__dsw.snaps.push({at:e.data.at_ms,b:e.data.boundary})});return w};` +
	`window.Worker.prototype=W.prototype})();`

// TestWorkerPostsSnapshots: with the session in the worker, the page gets
// snapshots (at most 10 a second, plus one at each response's first audio
// and end) and the decoded media — never the wire traffic itself — and
// still draws every response.
func TestWorkerPostsSnapshots(t *testing.T) {
	t.Parallel() // no timing bound: may run beside another test (doc.go)
	s, ctx := pageTest(t, nil, 3*time.Minute)
	onNewDocument(t, ctx, workerWatch)
	target := "ws" + strings.TrimPrefix(s.URL, "http") + "/v1/realtime?sim_seed=17"
	q := url.Values{"url": {target}, "source": {"dataset:builtin"}, "profile": {"periodic"}, "frame_ms": {"100"},
		"duration_s": {"9"}, "autostart": {"1"}}
	run := runPage(t, s, ctx, q, 2*time.Minute)

	raw, err := evalString(ctx, `JSON.stringify(window.__dsw)`)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Types map[string]int `json:"types"`
		Snaps []struct {
			At       float64 `json:"at"`
			Boundary bool    `json:"b"`
		} `json:"snaps"`
	}
	if err := json.Unmarshal([]byte(raw), &got); err != nil {
		t.Fatalf("%v: %s", err, raw)
	}
	t.Logf("worker → page messages: %v", got.Types)
	if n := got.Types["event"]; n != 0 {
		t.Errorf("the worker posted %d wire-log entries to the page; the page must get snapshots only", n)
	}
	if got.Types["snapshot"] == 0 || got.Types["media"] == 0 || got.Types["sent"] == 0 {
		t.Fatalf("snapshot/media/sent messages %v: the page drew nothing from the worker", got.Types)
	}
	// Routine snapshots are at least 100 ms apart (≤ 10 a second, on the
	// worker's clock: the page may take them in a burst); the others are
	// boundaries — a response's first audio or its end, two per response
	// at most in the wire log — and the one at the end of the session.
	var rep struct {
		Sessions []struct {
			WireLog string `json:"wire_log"`
		} `json:"sessions"`
	}
	s.getJSON(t, "/api/reports/"+run.ReportID, &rep)
	if len(rep.Sessions) != 1 {
		t.Fatalf("report has %d sessions", len(rep.Sessions))
	}
	tr, err := trace.DecodeSession(s.getJSON(t, "/api/reports/"+run.ReportID+"/attachments/"+url.PathEscape(rep.Sessions[0].WireLog), nil))
	if err != nil {
		t.Fatal(err)
	}
	created := 0
	for _, ev := range tr.Events {
		if ev.Dir == trace.DirRecv && strings.Contains(string(ev.Event), `"response.created"`) {
			created++
		}
	}
	if created == 0 {
		t.Fatal("the session had no response: nothing to draw")
	}
	boundaries, last := 0, -1.0
	for _, sn := range got.Snaps {
		if sn.Boundary {
			boundaries++
			continue
		}
		if last >= 0 && sn.At-last < 100 {
			t.Errorf("a routine snapshot %.1f ms after the previous one (≥ 100 ms)", sn.At-last)
		}
		last = sn.At
	}
	if limit := 2*created + 1; boundaries > limit {
		t.Errorf("%d boundary snapshots for %d responses; at most %d (first audio and end of each, and the last)", boundaries, created, limit)
	}
	t.Logf("%d snapshots (%d at boundaries) for %d responses", len(got.Snaps), boundaries, created)
	// The live view drew the responses, from snapshots.
	if run.FirstPointMs == 0 {
		t.Error("the TTFP chart never got a point")
	}
}
