package loadrun

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/duplexscope/duplexscope/metrics/loadcurve"
	"github.com/duplexscope/duplexscope/report"
)

// tc is the run capability the tests create their runs with.
const tc = "test-run-capability-0123456789"

func fixedNow() time.Time { return time.Date(2026, 12, 3, 8, 0, 0, 0, time.UTC) }

// TestReadyBarrier: a level starts for nobody until every shard is ready,
// then for all of them.
func TestReadyBarrier(t *testing.T) {
	h := NewHub(fixedNow)
	if _, err := h.Create("run1", CreateRequest{Shards: 3, Levels: []int{1, 4}, RunCap: tc}); err != nil {
		t.Fatal(err)
	}
	type res struct {
		r   ReadyResponse
		err error
	}
	first := make(chan res, 1)
	go func() {
		r, err := h.Ready(context.Background(), "run1", ReadyRequest{RunCap: tc, Level: 4, Shard: 1, Shards: 3, Levels: []int{1, 4}})
		first <- res{r, err}
	}()
	// The second shard's wait ends with its context: two of three is not enough.
	ctx, cancel := context.WithCancel(context.Background())
	second := make(chan error, 1)
	go func() {
		_, err := h.Ready(ctx, "run1", ReadyRequest{RunCap: tc, Level: 4, Shard: 2, Shards: 3})
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
	r3, err := h.Ready(context.Background(), "run1", ReadyRequest{RunCap: tc, Level: 4, Shard: 3, Shards: 3})
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
	if _, err := h.Ready(context.Background(), "run1", ReadyRequest{RunCap: tc, Level: 4, Shard: 2, Shards: 3}); err != nil {
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
	_, err := h.Ready(ctx, "r", ReadyRequest{RunCap: tc, Level: 2, Shard: 1, Shards: 2})
	if err == nil || err.Error() != "only 1 of 2 runners reached level 2 of run r: context deadline exceeded" {
		t.Errorf("err = %v", err)
	}
}

func TestBadRequests(t *testing.T) {
	h := NewHub(fixedNow)
	if _, err := h.Report("r", ReportRequest{RunCap: tc, Shard: 1, Shards: 2}); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		err  error
		want error
	}{
		{"shard 0", func() error { _, e := h.Report("r", ReportRequest{RunCap: tc, Shard: 0, Shards: 2}); return e }(), ErrBadRequest},
		{"shard > shards", func() error { _, e := h.Report("r", ReportRequest{RunCap: tc, Shard: 3, Shards: 2}); return e }(), ErrBadRequest},
		{"too many shards", func() error {
			_, e := h.Report("x", ReportRequest{RunCap: tc, Shard: 1, Shards: MaxShards + 1})
			return e
		}(), ErrBadRequest},
		{"shard count changes", func() error { _, e := h.Report("r", ReportRequest{RunCap: tc, Shard: 1, Shards: 3}); return e }(), ErrConflict},
		{"empty run id", func() error { _, e := h.Report("", ReportRequest{RunCap: tc, Shard: 1, Shards: 1}); return e }(), ErrBadRequest},
		{"bad level", func() error {
			_, e := h.Ready(context.Background(), "r", ReadyRequest{RunCap: tc, Level: 0, Shard: 1, Shards: 2})
			return e
		}(), ErrBadRequest},
		{"index past level", func() error {
			_, e := h.Report("r", ReportRequest{RunCap: tc, Shard: 1, Shards: 2, Sessions: []loadcurve.Session{{Level: 2, Index: 3}}})
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
	if _, err := h.Report("r", ReportRequest{RunCap: tc, Shard: 1, Shards: 2, Levels: []int{2}, Sessions: []loadcurve.Session{s(2, 0, 100), s(2, 2, 900)}}); err != nil {
		t.Fatal(err)
	}
	st, err := h.Report("r", ReportRequest{RunCap: tc, Shard: 2, Shards: 2, Sessions: []loadcurve.Session{s(2, 1, 300)}})
	if err != nil {
		t.Fatal(err)
	}
	if st.Sessions != 3 || len(st.Levels) != 1 || st.Levels[0].Reported != 3 || !st.Levels[0].Complete() ||
		*st.Levels[0].TTFPP99Ms != 300 || *st.Levels[0].JoinTTFPMs != 900 {
		t.Fatalf("status %+v", st)
	}
	st, _ = h.Report("r", ReportRequest{RunCap: tc, Shard: 2, Shards: 2, Sessions: []loadcurve.Session{s(2, 1, 500)}})
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
		_, err := h.Ready(context.Background(), "run-0", ReadyRequest{RunCap: tc, Level: 1, Shard: 1, Shards: 2})
		done <- err
	}()
	waitReady(t, h, "run-0", 1, 1)
	for i := 1; i <= MaxRuns; i++ {
		now = now.Add(time.Second)
		if _, err := h.Report(fmt.Sprintf("run-%d", i), ReportRequest{RunCap: tc, Shard: 1, Shards: 1}); err != nil {
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

// TestRunCapability: the creator learns the run's capability; a shard
// without it, or with another, is refused; with it, it joins. A creator
// may bring its own capability.
func TestRunCapability(t *testing.T) {
	h := NewHub(fixedNow)
	st, err := h.Report("r", ReportRequest{Shard: 1, Shards: 3})
	if err != nil {
		t.Fatal(err)
	}
	if !ValidRunCap(st.RunCap) {
		t.Fatalf("creator got capability %q", st.RunCap)
	}
	tests := []struct {
		name string
		cap  string
		want error
	}{
		{"none", "", ErrForbidden},
		{"wrong", NewRunCap(), ErrForbidden},
		{"malformed", "x", ErrBadRequest},
		{"right", st.RunCap, nil},
	}
	for _, c := range tests {
		_, err1 := h.Report("r", ReportRequest{Shard: 2, Shards: 3, RunCap: c.cap})
		ctx, cancel := context.WithCancel(context.Background())
		cancel() // a joined shard would wait at the barrier for shard 3
		_, err2 := h.Ready(ctx, "r", ReadyRequest{Level: 1, Shard: 2, Shards: 3, RunCap: c.cap})
		_, err3 := h.Create("r", CreateRequest{Shards: 3, RunCap: c.cap})
		for i, err := range []error{err1, err2, err3} {
			if (c.want == nil && err != nil && !errors.Is(err, context.Canceled)) || (c.want != nil && !errors.Is(err, c.want)) {
				t.Errorf("%s cap, call %d: %v, want %v", c.name, i, err, c.want)
			}
		}
	}
	if again, _ := h.Report("r", ReportRequest{Shard: 2, Shards: 3, RunCap: st.RunCap}); again.RunCap != "" {
		t.Error("a joining shard was handed the capability again")
	}
	if h.CapOK("r", "") || !h.CapOK("r", st.RunCap) || h.CapOK("other", st.RunCap) {
		t.Error("CapOK disagrees with the hub")
	}
	res, err := h.Create("own", CreateRequest{Shards: 2, RunCap: tc})
	if err != nil || !res.Created || res.RunCap != tc {
		t.Fatalf("create with own capability: %+v %v", res, err)
	}
	if res, err := h.Create("own", CreateRequest{Shards: 2, RunCap: tc}); err != nil || res.Created {
		t.Errorf("repeat create by the holder: %+v %v", res, err)
	}
}

// TestRunExpiry: a run nobody updated for RunTTL is forgotten (and its
// bytes freed); one updated in time is kept.
func TestRunExpiry(t *testing.T) {
	now := fixedNow()
	h := NewHub(func() time.Time { return now })
	sess := []loadcurve.Session{{Level: 1, Index: 0, Responses: []loadcurve.Response{{TTFPMs: 1}}}}
	for _, id := range []string{"old", "fresh"} {
		if _, err := h.Report(id, ReportRequest{RunCap: tc, Shard: 1, Shards: 1, Sessions: sess}); err != nil {
			t.Fatal(err)
		}
	}
	now = now.Add(RunTTL / 2)
	if _, err := h.Report("fresh", ReportRequest{RunCap: tc, Shard: 1, Shards: 1}); err != nil {
		t.Fatal(err)
	}
	now = now.Add(RunTTL/2 + time.Second)
	if _, err := h.Status("old"); !errors.Is(err, ErrNotFound) {
		t.Errorf("idle run after RunTTL: %v, want ErrNotFound", err)
	}
	if _, err := h.Status("fresh"); err != nil {
		t.Errorf("updated run: %v", err)
	}
	if got, want := h.Bytes(), sessionBytes(&sess[0]); got != want {
		t.Errorf("hub holds %d bytes, want %d (the fresh run's)", got, want)
	}
	// The expired run's name is free again, with a new capability.
	if st, err := h.Report("old", ReportRequest{Shard: 1, Shards: 1}); err != nil || st.RunCap == "" || st.RunCap == tc {
		t.Errorf("re-creating an expired run: %+v %v", st, err)
	}
}

// TestRunBudgets: a run past MaxRunBytes is refused; past MaxHubBytes the
// least recently updated runs are forgotten; oversized sessions are refused.
func TestRunBudgets(t *testing.T) {
	now := fixedNow()
	h := NewHub(func() time.Time { return now })
	big := loadcurve.Session{Level: 1, Index: 0, PacingLagMs: make([]float64, MaxPacingLags)}
	per := sessionBytes(&big)
	perRun := int(MaxRunBytes / per) // sessions of this size one run holds
	level := func(n int) []loadcurve.Session {
		out := make([]loadcurve.Session, n)
		for i := range out {
			out[i] = big
			out[i].Level, out[i].Index = loadcurve.MaxLevel, i
		}
		return out
	}
	if _, err := h.Report("a", ReportRequest{RunCap: tc, Shard: 1, Shards: 1, Sessions: level(perRun)}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Report("a", ReportRequest{RunCap: tc, Shard: 1, Shards: 1, Sessions: level(perRun + 1)}); !errors.Is(err, ErrTooLarge) {
		t.Errorf("run past MaxRunBytes: %v, want ErrTooLarge", err)
	}
	runs := int(MaxHubBytes/MaxRunBytes) + 2
	for i := 0; i < runs; i++ {
		now = now.Add(time.Second)
		if _, err := h.Report(fmt.Sprintf("b%d", i), ReportRequest{RunCap: tc, Shard: 1, Shards: 1, Sessions: level(perRun)}); err != nil {
			t.Fatal(err)
		}
		if h.Bytes() > MaxHubBytes {
			t.Fatalf("hub holds %d bytes, over MaxHubBytes", h.Bytes())
		}
	}
	if _, err := h.Status("a"); !errors.Is(err, ErrNotFound) {
		t.Errorf("least recently updated run kept past the hub budget: %v", err)
	}
	if _, err := h.Status(fmt.Sprintf("b%d", runs-1)); err != nil {
		t.Errorf("newest run: %v", err)
	}
	huge := []loadcurve.Session{{Level: 1, Index: 0, Responses: make([]loadcurve.Response, MaxResponsesPerSession+1)}}
	if _, err := h.Report("c", ReportRequest{RunCap: tc, Shard: 1, Shards: 1, Sessions: huge}); !errors.Is(err, ErrBadRequest) {
		t.Errorf("session with too many responses: %v, want ErrBadRequest", err)
	}
}

// TestValidRunCap: 22–128 characters of base64url, nothing else.
func TestValidRunCap(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{NewRunCap(), true},
		{strings.Repeat("a", 21), false},
		{strings.Repeat("a", 22), true},
		{strings.Repeat("Z9_-", 32), true},
		{strings.Repeat("a", 129), false},
		{strings.Repeat("a", 21) + "=", false},
		{strings.Repeat("a", 21) + ".", false},
		{strings.Repeat("a", 21) + "é", false},
		{"", false},
	} {
		if got := ValidRunCap(tc.in); got != tc.want {
			t.Errorf("ValidRunCap(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

// TestValidRunIDIsTheArchives: the hub takes exactly the run ids the
// archive stores (a load run named ".x" used to start and then fail to
// archive).
func TestValidRunIDIsTheArchives(t *testing.T) {
	t.Parallel()
	for _, id := range []string{"a", "run-1.b_c", ".x", "", strings.Repeat("a", 128), strings.Repeat("a", 129), "a/b", "é"} {
		if got, want := ValidRunID(id), report.ValidRunID(id); got != want {
			t.Errorf("ValidRunID(%q) = %v, the archive says %v", id, got, want)
		}
	}
	if ValidRunID(".x") {
		t.Error(`ValidRunID(".x") = true: the archive refuses ids starting with "."`)
	}
}
