//go:build security && linux

package security

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestCompareBombs (item 3): /compare?ids=A,A,A,A,A,A,A,A on a 100 000-row
// report burned 35 s of CPU and kept going after the client left. Now
// duplicates are refused, big runs are subsampled (the page says so), the
// work stops when the client leaves, and at most 2 compares run at once.
func TestCompareBombs(t *testing.T) {
	const (
		// dupCPU: refusing duplicates reads no report.
		dupCPU = 200 * time.Millisecond
		// afterCPU: once the client is gone, at most the report being decoded finishes.
		afterCPU = 1500 * time.Millisecond
		// compareRSS: 3 decoded 100 000-row reports and their subsamples.
		compareRSS = 900 << 20
	)
	s := Start(t)
	var ids []string
	for i := range 3 {
		ids = append(ids, uploadReport(t, s, rowsReportJSON(t, "m", 100000, i, "", 0, 0)))
	}

	// Duplicates.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	sm := s.Sample()
	status, body := get(ctx, s, "/compare?ids="+strings.Repeat(ids[0]+",", 7)+ids[0])
	u := sm.Stop()
	cancel()
	Attack(t, "3", "/compare?ids=A,A,A,A,A,A,A,A (100 000 rows)", fmt.Sprintf("HTTP %d; %s", status, u))
	if status != http.StatusBadRequest || !strings.Contains(body, "twice") || u.CPU > dupCPU {
		t.Errorf("duplicate ids: HTTP %d, CPU %v; want 400 saying so within %v", status, u.CPU, dupCPU)
	}

	// A client that leaves after 300 ms: the server's CPU must stop.
	all := "/compare?ids=" + strings.Join(ids, ",")
	ctx, cancel = context.WithTimeout(context.Background(), 300*time.Millisecond)
	get(ctx, s, all)
	cancel()
	time.Sleep(500 * time.Millisecond) // the grace the server has to notice
	sm = s.Sample()
	time.Sleep(3 * time.Second) // the window in which a runaway compare would burn CPU
	u = sm.Stop()
	Attack(t, "3", "/compare of 3 × 100 000 rows, client gone after 300 ms", fmt.Sprintf("server CPU %v in the 3 s after", u.CPU))
	if u.CPU > afterCPU {
		t.Errorf("server spent %v of CPU after the client left, want < %v", u.CPU, afterCPU)
	}

	// Big runs are subsampled, and concurrent compares are bounded.
	sm = s.Sample()
	var wg sync.WaitGroup
	codes := make([]int, 4)
	pages := make([]string, 4)
	retry := make([]string, 4)
	for i := range 4 {
		wg.Go(func() {
			res, b, err := s.DoErr(Request{Path: all})
			if err == nil {
				codes[i], pages[i], retry[i] = res.StatusCode, string(b), res.Header.Get("Retry-After")
			}
		})
	}
	wg.Wait()
	u = sm.Stop()
	ok, busy := 0, 0
	for i, c := range codes {
		switch {
		case c == http.StatusOK && strings.Contains(pages[i], `id="subsampled"`):
			ok++
		case c == http.StatusServiceUnavailable && retry[i] != "":
			busy++
		}
	}
	Attack(t, "3", "4 concurrent /compare of 3 × 100 000 rows", fmt.Sprintf("%d subsampled pages, %d × 503 Retry-After; %s", ok, busy, u))
	if ok < 1 || ok+busy != 4 || busy < 1 {
		t.Errorf("concurrent compares: codes %v; want subsampled 200s and at least one 503 with Retry-After", codes)
	}
	if u.MaxRSS > compareRSS {
		t.Errorf("RSS reached %s, want < %s", mib(u.MaxRSS), mib(compareRSS))
	}
}

// get fetches path until ctx ends; status 0 when the request was cut.
func get(ctx context.Context, s *Server, path string) (int, string) {
	req, _ := http.NewRequestWithContext(ctx, "GET", s.URL+path, nil)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, ""
	}
	defer res.Body.Close()
	var b strings.Builder
	buf := make([]byte, 32<<10)
	for {
		n, err := res.Body.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			break
		}
	}
	return res.StatusCode, b.String()
}
