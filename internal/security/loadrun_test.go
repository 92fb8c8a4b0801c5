//go:build security && linux

package security

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

var jsonHeader = map[string]string{"Content-Type": "application/json"}

// lagSessions returns a sessions post of about size bytes: sessions whose
// pacing_lag_ms lists are long runs of zeros (each "0," is 8 bytes in memory).
func lagSessions(size int) []byte {
	const perSession = 100000 // loadrun.MaxPacingLags
	var b strings.Builder
	b.WriteString(`{"shard":1,"shards":1,"sessions":[`)
	for i := 0; b.Len() < size; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"level":%d,"index":0,"responses":[],"underruns":0,"pacing_lag_ms":[`, i+1)
		b.WriteString(strings.Repeat("0,", min(perSession-1, (size-b.Len())/2)))
		b.WriteString(`0]}`)
	}
	b.WriteString(`]}`)
	return []byte(b.String())
}

// postSessions posts body as the sessions of n load runs named prefix-0 …
// prefix-(n-1) and returns the count of each status with the server's usage.
func postSessions(t *testing.T, s *Server, prefix string, n int, body []byte) (map[int]int, Usage) {
	t.Helper()
	sm := s.Sample()
	codes := map[int]int{}
	for i := range n {
		res, _ := s.Do(t, Request{Method: "POST", Path: fmt.Sprintf("/api/loadruns/%s-%d/sessions", prefix, i), Body: body, Header: jsonHeader})
		codes[res.StatusCode]++
	}
	return codes, sm.Stop()
}

// TestLoadRunHubBomb (item 3): ten 8 MiB sessions posts kept 1.15 GB in the
// hub with no expiry. Bodies over 4 MiB are refused; many posts under it
// stay within the hub's budget (128 MiB, oldest runs forgotten).
func TestLoadRunHubBomb(t *testing.T) {
	// hubRSS: the 128 MiB hub budget plus one 4 MiB body's decode garbage per post in flight.
	const hubRSS = 450 << 20
	s := Start(t)
	huge := lagSessions(8<<20 - 64<<10) // just under the old 8 MiB body limit
	codes, u1 := postSessions(t, s, "bomb", 10, huge)
	Attack(t, "3", "ten 8 MiB load-run session posts", fmt.Sprintf("statuses %v; %s", codes, u1))
	if codes[http.StatusRequestEntityTooLarge] != 10 {
		t.Errorf("8 MiB posts: statuses %v, want 413 for all", codes)
	}
	big := lagSessions(3 << 20)
	codes, u2 := postSessions(t, s, "many", 20, big)
	Attack(t, "3", "twenty 3 MiB load-run posts (12 MiB of sessions each in memory)", fmt.Sprintf("statuses %v; %s", codes, u2))
	if codes[http.StatusOK] != 20 {
		t.Errorf("3 MiB posts: statuses %v, want 200 (kept within the budget by forgetting old runs)", codes)
	}
	if res, _ := s.Do(t, Request{Path: "/api/loadruns/many-0"}); res.StatusCode != http.StatusNotFound {
		t.Errorf("the oldest run is still kept past the hub budget: %d", res.StatusCode)
	}
	for _, u := range []Usage{u1, u2} {
		if u.MaxRSS > hubRSS {
			t.Errorf("RSS reached %s, want < %s", mib(u.MaxRSS), mib(hubRSS))
		}
	}
}

// TestLoadRunShardSpam (item 3 / 2): anyone could add shards to a run.
// Now the creator gets the run capability and shards without it get 403.
func TestLoadRunShardSpam(t *testing.T) {
	s := Start(t)
	res, b := s.Do(t, Request{Method: "POST", Path: "/api/loadruns/victim/sessions", Header: jsonHeader,
		Body: []byte(`{"shard":1,"shards":4,"sessions":[{"level":1,"index":0,"responses":[{"ttfp_ms":300,"ttfp_clock":"server"}],"underruns":0}]}`)})
	var st struct {
		RunCap string `json:"run_cap"`
	}
	_ = json.Unmarshal(b, &st)
	if res.StatusCode != http.StatusOK || st.RunCap == "" {
		t.Errorf("creator: %d, run_cap %q; want 200 with the run capability", res.StatusCode, st.RunCap)
	}
	codes := map[int]int{}
	for i := range 50 {
		body := fmt.Sprintf(`{"shard":%d,"shards":4,"sessions":[{"level":1,"index":0,"responses":[{"ttfp_ms":99999,"ttfp_clock":"server"}],"underruns":0}]}`, 2+i%3)
		res, _ := s.Do(t, Request{Method: "POST", Path: "/api/loadruns/victim/sessions", Body: []byte(body), Header: jsonHeader})
		codes[res.StatusCode]++
	}
	wrong := map[string]string{"Content-Type": "application/json", "X-Duplexscope-Run-Cap": "AAAAAAAAAAAAAAAAAAAAAA"}
	resW, _ := s.Do(t, Request{Method: "POST", Path: "/api/loadruns/victim/sessions", Header: wrong,
		Body: []byte(`{"shard":2,"shards":4,"sessions":[]}`)})
	right := map[string]string{"Content-Type": "application/json", "X-Duplexscope-Run-Cap": st.RunCap}
	resR, _ := s.Do(t, Request{Method: "POST", Path: "/api/loadruns/victim/sessions", Header: right,
		Body: []byte(`{"shard":2,"shards":4,"sessions":[]}`)})
	Attack(t, "3", "50 shard posts to someone's load run without its capability", fmt.Sprintf("statuses %v; wrong capability %d; right one %d", codes, resW.StatusCode, resR.StatusCode))
	if codes[http.StatusForbidden] != 50 || resW.StatusCode != http.StatusForbidden {
		t.Errorf("shards without the capability: %v, wrong one %d; want 403", codes, resW.StatusCode)
	}
	if resR.StatusCode != http.StatusOK {
		t.Errorf("shard with the capability: %d, want 200", resR.StatusCode)
	}
}

// TestRunMergeBomb (item 3): GET /runs/{id} of 8 big shards re-merged them
// on every request (37.5 s, 3.9 GB, 235 MB of HTML for 8 × 16 MB). Now a
// merged run is bounded (100 000 responses), cached (the second request
// reads no shard), and the page shows at most 2 000 rows.
func TestRunMergeBomb(t *testing.T) {
	const (
		// mergeRSS: one 96 000-row merge at a time, plus the cached result.
		mergeRSS = 700 << 20
		// cachedCPU: a cached run costs one List and rendering 2 000 rows.
		cachedCPU = 400 * time.Millisecond
		// pageBytes: 2 000 table rows and charts of 2 000 points.
		pageBytes = 4 << 20
	)
	s := Start(t)
	for i := 1; i <= 8; i++ {
		uploadReport(t, s, rowsReportJSON(t, "m", 12000, i, "bigrun", i, 8))
	}
	var first, second Usage
	var size int
	for k := range 2 {
		sm := s.Sample()
		res, b := s.Do(t, Request{Path: "/runs/bigrun"})
		u := sm.Stop()
		if res.StatusCode != http.StatusOK {
			t.Fatalf("run page: %d %.300s", res.StatusCode, b)
		}
		size = len(b)
		if k == 0 {
			first = u
		} else {
			second = u
		}
	}
	Attack(t, "3", "GET /runs/{id} of 8 shards × 12 000 rows, twice", fmt.Sprintf("first %s; second %s; page %.1f MiB", first, second, float64(size)/(1<<20)))
	if second.CPU > cachedCPU {
		t.Errorf("second request took %v of CPU, want < %v (cached)", second.CPU, cachedCPU)
	}
	if size > pageBytes {
		t.Errorf("run page is %d bytes, want < %d", size, pageBytes)
	}
	if m := max(first.MaxRSS, second.MaxRSS); m > mergeRSS {
		t.Errorf("RSS reached %s, want < %s", mib(m), mib(mergeRSS))
	}
	uploadReport(t, s, rowsReportJSON(t, "m", 12000, 9, "bigrun", 1, 8)) // a re-upload pushes the run past 100 000 responses
	res, b := s.Do(t, Request{Path: "/runs/bigrun"})
	res2, _ := s.Do(t, Request{Path: "/api/runs/bigrun"})
	Attack(t, "3", "GET /runs/{id} past 100 000 responses", fmt.Sprintf("page %d, API %d", res.StatusCode, res2.StatusCode))
	if res.StatusCode != http.StatusRequestEntityTooLarge || res2.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(string(b), "100000") {
		t.Errorf("run over the merge bound: page %d, API %d, want 413 saying the bound", res.StatusCode, res2.StatusCode)
	}
}
