package loadrun

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/duplexscope/duplexscope/loadcurve"
)

func fixedNow() time.Time { return time.Date(2026, 12, 3, 8, 0, 0, 0, time.UTC) }

// TestReadyBarrier: a level starts for nobody until every shard is ready,
// then for all of them.
func TestReadyBarrier(t *testing.T) {
	h := NewHub(fixedNow)
	type res struct {
		r   ReadyResponse
		err error
	}
	first := make(chan res, 1)
	go func() {
		r, err := h.Ready(context.Background(), "run1", ReadyRequest{Level: 4, Shard: 1, Shards: 3, Levels: []int{1, 4}})
		first <- res{r, err}
	}()
	// The second shard's wait ends with its context: two of three is not enough.
	ctx, cancel := context.WithCancel(context.Background())
	second := make(chan error, 1)
	go func() {
		_, err := h.Ready(ctx, "run1", ReadyRequest{Level: 4, Shard: 2, Shards: 3})
		second <- err
	}()
	waitReady(t, h, "run1", 4, 2)
	select {
	case r := <-first:
		t.Fatalf("level started with 2 of 3 shards: %+v", r)
	default:
	}
	cancel()
	if err := <-second; err == nil || !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled wait: %v, want context.Canceled", err)
	}
	// The third shard (and shard 2 again) complete the barrier.
	r3, err := h.Ready(context.Background(), "run1", ReadyRequest{Level: 4, Shard: 3, Shards: 3})
	if err != nil {
		t.Fatal(err)
	}
	got := <-first
	if got.err != nil {
		t.Fatal(got.err)
	}
	want := ReadyResponse{RunID: "run1", Level: 4, Shards: 3, Ready: []int{1, 2, 3}}
	if !reflect.DeepEqual(got.r, want) || !reflect.DeepEqual(r3, want) {
		t.Errorf("ready = %+v / %+v, want %+v", got.r, r3, want)
	}
	// A late runner at a started level passes at once.
	if _, err := h.Ready(context.Background(), "run1", ReadyRequest{Level: 4, Shard: 2, Shards: 3}); err != nil {
		t.Error(err)
	}
	st, _ := h.Status("run1")
	if !reflect.DeepEqual(st.Requested, []int{1, 4}) || !reflect.DeepEqual(st.Runners, []int{1, 2, 3}) {
		t.Errorf("status %+v", st)
	}
}

// waitReady polls (no sleeps: it yields until the hub has k shards ready).
func waitReady(t *testing.T, h *Hub, id string, level, k int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		h.mu.Lock()
		n := 0
		if r := h.runs[id]; r != nil {
			n = len(r.ready[level])
		}
		h.mu.Unlock()
		if n >= k {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("only %d of %d shards became ready", n, k)
		}
		ch := make(chan struct{})
		go close(ch)
		<-ch
	}
}

func TestReadyTimeoutSaysWho(t *testing.T) {
	h := NewHub(fixedNow)
	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	_, err := h.Ready(ctx, "r", ReadyRequest{Level: 2, Shard: 1, Shards: 2})
	if err == nil || err.Error() != "only 1 of 2 runners reached level 2 of run r: context deadline exceeded" {
		t.Errorf("err = %v", err)
	}
}

func TestBadRequests(t *testing.T) {
	h := NewHub(fixedNow)
	if _, err := h.Report("r", ReportRequest{Shard: 1, Shards: 2}); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		err  error
		want error
	}{
		{"shard 0", func() error { _, e := h.Report("r", ReportRequest{Shard: 0, Shards: 2}); return e }(), ErrBadRequest},
		{"shard > shards", func() error { _, e := h.Report("r", ReportRequest{Shard: 3, Shards: 2}); return e }(), ErrBadRequest},
		{"too many shards", func() error { _, e := h.Report("x", ReportRequest{Shard: 1, Shards: MaxShards + 1}); return e }(), ErrBadRequest},
		{"shard count changes", func() error { _, e := h.Report("r", ReportRequest{Shard: 1, Shards: 3}); return e }(), ErrConflict},
		{"empty run id", func() error { _, e := h.Report("", ReportRequest{Shard: 1, Shards: 1}); return e }(), ErrBadRequest},
		{"bad level", func() error {
			_, e := h.Ready(context.Background(), "r", ReadyRequest{Level: 0, Shard: 1, Shards: 2})
			return e
		}(), ErrBadRequest},
		{"index past level", func() error {
			_, e := h.Report("r", ReportRequest{Shard: 1, Shards: 2, Sessions: []loadcurve.Session{{Level: 2, Index: 3}}})
			return e
		}(), ErrBadRequest},
		{"unknown run", func() error { _, e := h.Status("nope"); return e }(), ErrNotFound},
	}
	for _, c := range cases {
		if !errors.Is(c.err, c.want) {
			t.Errorf("%s: err %v, want %v", c.name, c.err, c.want)
		}
	}
}

// TestReportPools: the status pools every runner's sessions; a session
// reported again (same level and index) replaces the first.
func TestReportPools(t *testing.T) {
	h := NewHub(fixedNow)
	s := func(level, idx int, ttfp float64) loadcurve.Session {
		return loadcurve.Session{Level: level, Index: idx, Joiner: idx == level, Responses: []loadcurve.Response{{TTFPMs: ttfp, TTFPClock: "server"}}}
	}
	if _, err := h.Report("r", ReportRequest{Shard: 1, Shards: 2, Levels: []int{2}, Sessions: []loadcurve.Session{s(2, 0, 100), s(2, 2, 900)}}); err != nil {
		t.Fatal(err)
	}
	st, err := h.Report("r", ReportRequest{Shard: 2, Shards: 2, Sessions: []loadcurve.Session{s(2, 1, 300)}})
	if err != nil {
		t.Fatal(err)
	}
	if st.Sessions != 3 || len(st.Levels) != 1 || st.Levels[0].Reported != 3 || !st.Levels[0].Complete() ||
		*st.Levels[0].TTFPP99Ms != 300 || *st.Levels[0].JoinTTFPMs != 900 {
		t.Fatalf("status %+v", st)
	}
	st, _ = h.Report("r", ReportRequest{Shard: 2, Shards: 2, Sessions: []loadcurve.Session{s(2, 1, 500)}})
	if st.Sessions != 3 || *st.Levels[0].TTFPP99Ms != 500 {
		t.Errorf("re-report: %d sessions, p99 %v; want 3 and the new 500", st.Sessions, *st.Levels[0].TTFPP99Ms)
	}
	if st.UpdatedAt != "2026-12-03T08:00:00Z" || st.Clock != loadcurve.Clock {
		t.Errorf("updated_at %q clock %q", st.UpdatedAt, st.Clock)
	}
}

// TestEviction: past MaxRuns the least recently updated run is forgotten,
// and its waiters are released rather than left hanging.
func TestEviction(t *testing.T) {
	now := fixedNow()
	h := NewHub(func() time.Time { return now })
	done := make(chan error, 1)
	go func() {
		_, err := h.Ready(context.Background(), "run-0", ReadyRequest{Level: 1, Shard: 1, Shards: 2})
		done <- err
	}()
	waitReady(t, h, "run-0", 1, 1)
	for i := 1; i <= MaxRuns; i++ {
		now = now.Add(time.Second)
		if _, err := h.Report(fmt.Sprintf("run-%d", i), ReportRequest{Shard: 1, Shards: 1}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := h.Status("run-0"); !errors.Is(err, ErrNotFound) {
		t.Errorf("oldest run still there: %v", err)
	}
	if _, err := h.Status(fmt.Sprintf("run-%d", MaxRuns)); err != nil {
		t.Error(err)
	}
	if err := <-done; !errors.Is(err, ErrConflict) { // released, not left hanging, and told why
		t.Errorf("evicted waiter: %v, want ErrConflict", err)
	}
}
