//go:build !js

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/duplexscope/duplexscope/dataset"
	"github.com/duplexscope/duplexscope/metrics"
	"github.com/duplexscope/duplexscope/report"
	"github.com/duplexscope/duplexscope/session/probe"
)

func TestTallyOutcomes(t *testing.T) {
	t.Parallel()
	a, b := dataset.Sample{Split: "s", SampleID: "a"}, dataset.Sample{Split: "s", SampleID: "b"}
	logOf := func(s dataset.Sample) outcome {
		w := wireLog(s.Split, s.SampleID, true)
		return outcome{sample: s, trace: &w, ran: true}
	}
	failed := func(oc outcome, err string) outcome { oc.err = errors.New(err); return oc }
	interrupted, stop := context.WithCancelCause(context.Background())
	stop(errors.New("interrupted"))
	twoProbes := []probe.Probe{{Kind: "noise", Clip: "noise", OffsetS: 1}, {Kind: "interruption", Clip: "noise", OffsetS: 2}}
	cases := []struct {
		name        string
		ctx         context.Context
		outcomes    []outcome
		probes      []probe.Probe
		wantRan     int
		wantFailed  []string // split/sample_id: error
		wantResults int
		wantProbes  int
	}{
		{name: "all complete", outcomes: []outcome{logOf(a), logOf(b)}, wantRan: 2, wantResults: 2},
		{name: "a failure keeps its wire log's metrics", outcomes: []outcome{failed(logOf(a), "server closed"), logOf(b)},
			wantRan: 2, wantFailed: []string{"s/a: server closed"}, wantResults: 2},
		{name: "a session that never opened", outcomes: []outcome{logOf(a), {sample: b, ran: true, err: errors.New("handshake: 404")}},
			wantRan: 2, wantFailed: []string{"s/b: handshake: 404"}, wantResults: 1},
		{name: "the interrupt kept one from running", ctx: interrupted, outcomes: []outcome{logOf(a), {}},
			wantRan: 2, wantFailed: []string{"s/b: not run: interrupted"}, wantResults: 1},
		{name: "every probe of every wire log", outcomes: []outcome{logOf(a), {sample: b, ran: true, err: errors.New("x")}}, probes: twoProbes,
			wantRan: 2, wantFailed: []string{"s/b: x"}, wantResults: 1, wantProbes: 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := tc.ctx
			if ctx == nil {
				ctx = context.Background()
			}
			got := tallyOutcomes(ctx, tc.outcomes, []dataset.Sample{a, b}, tc.probes)
			var failures []string
			for _, f := range got.summary.Failed {
				failures = append(failures, f.Split+"/"+f.SampleID+": "+f.Error)
			}
			if got.summary.Ran != tc.wantRan || !slices.Equal(failures, tc.wantFailed) || len(got.results) != tc.wantResults || len(got.probes) != tc.wantProbes {
				t.Errorf("ran %d failed %q results %d probes %d; want %d %q %d %d",
					got.summary.Ran, failures, len(got.results), len(got.probes), tc.wantRan, tc.wantFailed, tc.wantResults, tc.wantProbes)
			}
		})
	}
}

// sessionSamples are the sample ids of duplex_metrics.json's session entries.
func sessionSamples(dm metrics.Report) []string {
	var ids []string
	for _, e := range dm.Sessions {
		id, _ := e.Get("sample_id")
		s, _ := id.(string)
		ids = append(ids, s)
	}
	return ids
}

func TestRunMetrics(t *testing.T) {
	t.Parallel()
	score := func(ids ...string) []metrics.SessionResult {
		var rs []metrics.SessionResult
		for _, id := range ids {
			rs = append(rs, metrics.ScoreSession(wireLog("s", id, true)))
		}
		return rs
	}
	earlier, err := metrics.ParseReport(metrics.BuildReport(score("old", "again")).File())
	if err != nil {
		t.Fatal(err)
	}
	plan := &resumePlan{earlier: earlier, recovered: score("recovered")}
	cases := []struct {
		name   string
		resume bool
		want   []string
	}{
		{"a fresh run holds only its own sessions", false, []string{"new", "again"}},
		{"resume keeps earlier rows, replaces rerun samples, adds recovered ones", true, []string{"old", "recovered", "new", "again"}},
	}
	for _, tc := range cases {
		if got := sessionSamples(runMetrics(tc.resume, plan, score("new", "again"))); !slices.Equal(got, tc.want) {
			t.Errorf("%s: sessions %v, want %v", tc.name, got, tc.want)
		}
	}
}

// testClock is a wall clock that reads start, then advances by step on
// every read.
func testClock(start time.Time, step time.Duration) func() time.Time {
	now := start
	return func() time.Time {
		now = now.Add(step)
		return now
	}
}

// TestRunOutputsFiles: the files a dataset run writes and the summary it
// prints, on an injected clock: run times and duration come from it, a
// failure is listed, and a --resume run with nothing to run keeps an equal
// report.json byte for byte (same upload Idempotency-Key).
func TestRunOutputsFiles(t *testing.T) {
	t.Parallel()
	a, b := dataset.Sample{Split: "s", SampleID: "a"}, dataset.Sample{Split: "s", SampleID: "b"}
	started := time.Date(2026, 12, 4, 21, 0, 0, 0, time.UTC)
	cases := []struct {
		name     string
		resume   bool   // the second run resumes (with nothing to run)
		rename   string // the second run's --name ("" = the same as the first)
		wantKept bool   // report.json keeps the first run's bytes
	}{
		{name: "resume with nothing to run keeps an equal report", resume: true, wantKept: true},
		{name: "resume with a changed report writes it", resume: true, rename: "renamed"},
		{name: "a run that is not resumed writes its own report", resume: false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			o := &runOptions{URL: "ws://sim/v1/realtime?sim_profile=test", Model: "m", Dataset: "d", FrameMs: 200, Concurrency: 2, Name: "first", Out: t.TempDir()}
			if err := os.MkdirAll(filepath.Join(o.Out, dirTraces), 0o755); err != nil {
				t.Fatal(err)
			}
			logA, logB := wireLog(a.Split, a.SampleID, true), wireLog(b.Split, b.SampleID, false)
			writeJSON(t, filepath.Join(o.Out, dirTraces, traceName(a.Split, a.SampleID)), logA)
			writeJSON(t, filepath.Join(o.Out, dirTraces, traceName(b.Split, b.SampleID)), logB)
			in := &runInputs{samples: []dataset.Sample{a, b}}
			var stdout bytes.Buffer
			first := &runOutputs{o: o, in: in, plan: &resumePlan{todo: in.samples}, started: started, now: testClock(started, 45*time.Second), stdout: &stdout}
			sum, err := first.finish(context.Background(), []outcome{{sample: a, trace: &logA, ran: true}, {sample: b, trace: &logB, ran: true, err: errors.New("server closed")}}, &liveStats{})
			if err != nil {
				t.Fatal(err)
			}
			if sum.Ran != 2 || len(sum.Failed) != 1 || sum.Report == nil || !strings.Contains(stdout.String(), "run: 2 sessions (0 skipped, 1 failed) → "+o.Out) {
				t.Errorf("summary %+v, stdout %q", sum, stdout.String())
			}
			rb := readFile(t, filepath.Join(o.Out, fileReport))
			rep, err := report.Decode(rb, report.DefaultLimits)
			if err != nil {
				t.Fatal(err)
			}
			// The report's end is the first read of the clock (+45 s), result.json's duration the second (+90 s).
			if rep.Run.StartedAt != "2026-12-04T21:00:00Z" || rep.Run.EndedAt != "2026-12-04T21:00:45Z" || rep.Run.Profile != "test" ||
				len(rep.Sessions) != 2 || !rep.Sessions[0].Complete || rep.Sessions[1].Complete || rep.Sessions[1].WireLog == "" || len(rep.Attachments) != 2 {
				t.Errorf("report run %+v sessions %+v attachments %d", rep.Run, rep.Sessions, len(rep.Attachments))
			}
			var result struct {
				DurationS float64      `json:"duration_s"`
				Completed int          `json:"completed"`
				Failed    int          `json:"failed"`
				Failures  []runFailure `json:"failures"`
				LagMeanS  float64      `json:"pacing_mean_lag_s"`
				LagMaxS   float64      `json:"pacing_max_lag_s"`
			}
			if err := json.Unmarshal(readFile(t, filepath.Join(o.Out, fileResult)), &result); err != nil {
				t.Fatal(err)
			}
			if result.DurationS != 90 || result.Completed != 1 || result.Failed != 1 || len(result.Failures) != 1 || result.Failures[0].SampleID != "b" {
				t.Errorf("result.json %+v", result)
			}
			// Pacing over both wire logs: the mean weighted by frames
			// ((10·4 + 5·10) / 15 = 6 ms), the max of the two (30 ms), as
			// the report's sessions say.
			var reportMax float64
			for _, s := range rep.Sessions {
				if s.PacingLagMax != nil {
					reportMax = max(reportMax, *s.PacingLagMax)
				}
			}
			if result.LagMeanS != 0.006 || result.LagMaxS != 0.030 || reportMax != 30 {
				t.Errorf("result.json pacing mean %v s, max %v s (report's sessions: max %v ms); want 0.006 s and 0.030 s", result.LagMeanS, result.LagMaxS, reportMax)
			}
			if n := len(readDM(t, o.Out).Sessions); n != 2 {
				t.Errorf("duplex_metrics.json: %d sessions, want 2", n)
			}

			// The second run, an hour later, with both wire logs on disk and
			// nothing to run.
			second := *o
			second.Resume = tc.resume
			if tc.rename != "" {
				second.Name = tc.rename
			}
			earlier, err := metrics.ParseReport(readFile(t, filepath.Join(o.Out, fileMetrics)))
			if err != nil {
				t.Fatal(err)
			}
			later := started.Add(time.Hour)
			again := &runOutputs{o: &second, in: in, plan: &resumePlan{skipped: 1, earlier: earlier}, started: later, now: testClock(later, time.Second), stdout: &stdout}
			if _, err := again.finish(context.Background(), nil, &liveStats{}); err != nil {
				t.Fatal(err)
			}
			if kept := bytes.Equal(readFile(t, filepath.Join(o.Out, fileReport)), rb); kept != tc.wantKept {
				t.Errorf("report.json kept %v, want %v", kept, tc.wantKept)
			}
		})
	}
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// mustRun runs `duplexscope run` in-process with args and returns its
// stdout; a failed run fails the test with its stderr.
func mustRun(t *testing.T, args ...string) string {
	t.Helper()
	var so, se bytes.Buffer
	if err := runCmd(context.Background(), args, &so, &se); err != nil {
		t.Fatalf("run: %v\n%s", err, se.String())
	}
	return so.String()
}

// readJSON decodes the JSON file at path into v.
func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	if err := json.Unmarshal(readFile(t, path), v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// readReport decodes the report.json at path strictly (report.Decode).
func readReport(t *testing.T, path string) *report.Report {
	t.Helper()
	r, err := report.Decode(readFile(t, path), report.DefaultLimits)
	if err != nil {
		t.Fatalf("%s does not decode: %v", path, err)
	}
	return r
}

// TestSessionReportWarnings: the run's warnings count what the wire logs'
// session extras say, against each session's own append size.
func TestSessionReportWarnings(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		extras []string // one wire log's duplexscope member each
		want   []string // warning codes, in order
	}{
		{"a clean run", []string{`{"pacing":{"frames":10,"max_ms":12}}`}, nil},
		{"a frame late by more than the default frame", []string{`{"pacing":{"frames":10,"max_ms":250}}`}, []string{report.WarnPacingLag}},
		{"late against the default but not the session's tick", []string{`{"frame_ms":400,"pacing":{"frames":10,"max_ms":250}}`}, nil},
		{"legacy names and a frame-tick warning", []string{`{"warnings":["legacy event names"]}`, `{"warnings":["frame size 200 ms, tick 80 ms"]}`},
			[]string{report.WarnLegacyEventNames, report.WarnFrameTick}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			out := t.TempDir()
			if err := os.MkdirAll(filepath.Join(out, dirTraces), 0o755); err != nil {
				t.Fatal(err)
			}
			r := &sessionReport{rep: &report.Report{}, out: out, failedBy: map[string]string{"s\x00never": "handshake: 404"}, turnTaking: &ttCollector{}}
			for i, extra := range tc.extras {
				id := fmt.Sprint("sample", i)
				w := wireLog("s", id, true)
				w.Session.Extra = json.RawMessage(extra)
				writeJSON(t, filepath.Join(out, dirTraces, traceName("s", id)), w)
				r.add(dataset.Sample{Split: "s", SampleID: id}, 200)
			}
			r.add(dataset.Sample{Split: "s", SampleID: "never"}, 200)
			var codes []string
			for _, w := range r.warnings(200) {
				codes = append(codes, w.Code)
			}
			if !slices.Equal(codes, tc.want) {
				t.Errorf("warnings %v, want %v", codes, tc.want)
			}
			last := r.rep.Sessions[len(r.rep.Sessions)-1]
			if len(r.rep.Sessions) != len(tc.extras)+1 || len(r.rep.Attachments) != len(tc.extras) || last.Error != "handshake: 404" || last.WireLog != "" {
				t.Errorf("sessions %+v, %d attachments; want one per wire log and the failure without one", r.rep.Sessions, len(r.rep.Attachments))
			}
		})
	}
}
