//go:build !js

package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/duplexscope/duplexscope/internal/testkit"
	"github.com/duplexscope/duplexscope/metrics/loadcurve"
	"github.com/duplexscope/duplexscope/report"
	"github.com/duplexscope/duplexscope/server/loadrun"
	"github.com/duplexscope/duplexscope/trace"
)

// TestRunLoadCurveShards: two `run --load-curve` processes (shards 1/2 and
// 2/2 of one run id) against one server. Each level starts on both at once
// (runner 2 has no session at N = 1, yet waits for it), the sessions split
// k mod 2, the live view pools them, and the archive's merged run is the
// curve of all their sessions.
func TestRunLoadCurveShards(t *testing.T) {
	t.Parallel()
	e := startFaultEnv(t)
	type out struct {
		dir    string
		stdout string
		err    error
	}
	res := make([]out, 2)
	var wg sync.WaitGroup
	for i := range res {
		res[i].dir = filepath.Join(t.TempDir(), fmt.Sprintf("shard%d", i+1))
		wg.Go(func() {
			var so, se bytes.Buffer
			res[i].err = runCmd(context.Background(), []string{"--url", e.ws + "?sim_profile=test", "--model", "sim", "--dataset", "builtin", "--limit", "2",
				"--out", res[i].dir, "--settle", "500ms", "--progress=false", "--load-curve", "1,3", "--join-after", "300ms",
				"--run-id", "lc-shards", "--run-cap", "shared-secret-of-the-shards", "--shard", fmt.Sprintf("%d/2", i+1), "--upload", e.archive}, &so, &se)
			res[i].stdout = so.String() + se.String()
		})
	}
	wg.Wait()
	var files [2]struct {
		Levels   []loadcurve.Level   `json:"levels"`
		Sessions []loadcurve.Session `json:"sessions"`
	}
	for i, r := range res {
		if r.err != nil {
			t.Fatalf("shard %d: %v\n%s", i+1, r.err, r.stdout)
		}
		readJSON(t, filepath.Join(r.dir, "loadcurve.json"), &files[i])
	}
	slots := func(ss []loadcurve.Session) map[int][]int {
		m := map[int][]int{}
		for _, s := range ss {
			m[s.Level] = append(m[s.Level], s.Index)
		}
		return m
	}
	if got := fmt.Sprint(slots(files[0].Sessions)); got != "map[1:[0 1] 3:[0 2 3]]" {
		t.Errorf("shard 1 ran %s, want level 1: 0 + joiner 1, level 3: 0, 2 + joiner 3", got)
	}
	if got := fmt.Sprint(slots(files[1].Sessions)); got != "map[3:[1]]" {
		t.Errorf("shard 2 ran %s, want level 3: 1", got)
	}
	// The barrier: shard 2's level-3 session streamed only after shard 1's
	// level-1 sessions ended (one process: one session clock).
	lastL1 := 0.0
	for _, n := range []string{"load-1-0", "load-1-1"} {
		tr := mustTrace(t, filepath.Join(res[0].dir, dirTraces, n+".trace.json"))
		lastL1 = max(lastL1, tr.Events[len(tr.Events)-1].TMs)
	}
	tr := mustTrace(t, filepath.Join(res[1].dir, dirTraces, "load-3-1.trace.json"))
	if tr.Session.StreamStartMs == nil || *tr.Session.StreamStartMs < lastL1 {
		t.Errorf("shard 2 started level 3 at %v ms, before level 1 ended at %v ms", tr.Session.StreamStartMs, lastL1)
	}
	// The live view pools both runners.
	var st loadrun.Status
	testkit.GetJSON(t, e.archive+"/api/loadruns/lc-shards", &st)
	if st.Shards != 2 || fmt.Sprint(st.Runners) != "[1 2]" || st.Sessions != 6 || len(st.Levels) != 2 || !st.Levels[0].Complete() || !st.Levels[1].Complete() {
		t.Fatalf("live status %+v", st)
	}
	// The archive's merged run recomputes the curve from both shards' sessions.
	var run struct {
		Report         report.Report `json:"report"`
		ShardsReceived []int         `json:"shards_received"`
		Final          bool          `json:"final"`
	}
	testkit.GetJSON(t, e.archive+"/api/runs/lc-shards", &run)
	lc := run.Report.LoadCurve
	if !run.Final || lc == nil || len(lc.Sessions) != 6 || len(lc.Levels) != 2 {
		t.Fatalf("merged run final %v, load curve %+v", run.Final, lc)
	}
	for i, l := range lc.Levels {
		want := loadcurve.Summarize(l.Sessions, append(append([]loadcurve.Session(nil), files[0].Sessions...), files[1].Sessions...))
		if l.Reported != want.Reported || l.Responses != want.Responses || *l.TTFPP50Ms != *want.TTFPP50Ms || *l.TTFPP99Ms != *want.TTFPP99Ms ||
			l.Failed != 0 || l.JoinTTFPMs == nil || *l.JoinTTFPMs != *want.JoinTTFPMs {
			t.Errorf("merged level %d = %+v, want pooled %+v", i, l, want)
		}
		if st.Levels[i].Responses != l.Responses {
			t.Errorf("live level %d has %d responses, archive %d", i, st.Levels[i].Responses, l.Responses)
		}
	}
	if n := len(run.Report.Metrics.Sessions); n != 6 {
		t.Errorf("merged metrics hold %d sessions, want 6", n)
	}
}

// TestRunLoadCurveShardNeedsServer: sharding a load curve without a
// server to start the levels is refused (exit 2) before anything runs.
func TestRunLoadCurveShardNeedsServer(t *testing.T) {
	var so, se bytes.Buffer
	err := runCmd(context.Background(), []string{"--url", "ws://127.0.0.1:1/v1/realtime", "--model", "sim", "--dataset", "builtin",
		"--out", t.TempDir(), "--load-curve", "1,2", "--run-id", "x", "--shard", "1/2"}, &so, &se)
	if exitCode(err) != 2 {
		t.Errorf("exit %d (%v), want 2", exitCode(err), err)
	}
}

// TestRunLoadCurveShardNeedsCap: a shard joining someone's run without its
// capability is refused (exit 2, saying what to pass) before any session;
// the creator prints the capability for the other shards.
func TestRunLoadCurveShardNeedsCap(t *testing.T) {
	t.Parallel()
	e := startFaultEnv(t)
	creator := &loadrun.Client{Base: e.archive, RunID: "taken", Shard: 1, Shards: 2}
	if _, err := creator.Create(context.Background()); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, cap string
		wantExit  int
	}{
		{"no capability", "", 2},
		{"another capability", loadrun.NewRunCap(), 2},
	}
	for _, tc := range tests {
		var so, se bytes.Buffer
		args := []string{"--url", e.ws + "?sim_profile=test", "--model", "sim", "--dataset", "builtin", "--limit", "1",
			"--out", t.TempDir(), "--progress=false", "--load-curve", "1", "--run-id", "taken", "--shard", "2/2", "--upload", e.archive}
		if tc.cap != "" {
			args = append(args, "--run-cap", tc.cap)
		}
		err := runCmd(context.Background(), args, &so, &se)
		if exitCode(err) != tc.wantExit || err == nil || !strings.Contains(err.Error(), "--run-cap") {
			t.Errorf("%s: exit %d (%v), want %d naming --run-cap", tc.name, exitCode(err), err, tc.wantExit)
		}
	}
	// A fresh multi-shard run: its creator prints the capability to pass on.
	var so, se bytes.Buffer
	done := make(chan error, 1)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		done <- runCmd(ctx, []string{"--url", e.ws + "?sim_profile=test", "--model", "sim", "--dataset", "builtin", "--limit", "1",
			"--out", t.TempDir(), "--progress=false", "--load-curve", "1", "--run-id", "fresh", "--shard", "1/2", "--upload", e.archive}, &so, &se)
	}()
	for deadline := time.Now().Add(30 * time.Second); ; {
		res, err := http.Get(e.archive + "/api/loadruns/fresh")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("the creator never created its run")
		}
		time.Sleep(20 * time.Millisecond) // polling another goroutine's progress
	}
	cancel() // it waits at the barrier for shard 2
	<-done
	if out := so.String(); !strings.Contains(out, "--run-cap ") {
		t.Errorf("creator's output lacks the capability to pass on: %q", out)
	}
}

func mustTrace(t *testing.T, path string) *trace.Session {
	t.Helper()
	s, err := readTrace(path)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
