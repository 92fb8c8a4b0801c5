//go:build !js

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/duplexscope/duplexscope/dataset"
	"github.com/duplexscope/duplexscope/metrics"
	"github.com/duplexscope/duplexscope/trace"
)

// wantUsageError fails t unless err is bad usage (exit 2) naming want, or
// nil when want is ""; it reports whether the test goes on (no error).
func wantUsageError(t *testing.T, err error, want string) bool {
	t.Helper()
	switch {
	case want == "" && err != nil:
		t.Fatal(err)
	case want != "" && (exitCode(err) != 2 || !strings.Contains(err.Error(), want)):
		t.Fatalf("err %v (exit %d), want exit 2 naming %q", err, exitCode(err), want)
	}
	return want == ""
}

func sampleIDs(ss []dataset.Sample) []string {
	ids := make([]string, 0, len(ss))
	for _, s := range ss {
		ids = append(ids, s.SampleID)
	}
	return ids
}

func TestShardSamples(t *testing.T) {
	t.Parallel()
	var five []dataset.Sample
	for _, id := range []string{"a", "b", "c", "d", "e"} {
		five = append(five, dataset.Sample{SampleID: id})
	}
	cases := []struct {
		index, count int
		want         []string
	}{
		{1, 1, []string{"a", "b", "c", "d", "e"}},
		{1, 2, []string{"a", "c", "e"}},
		{2, 2, []string{"b", "d"}},
		{3, 3, []string{"c"}},
		{5, 6, []string{"e"}},
		{6, 6, []string{}},
	}
	for _, tc := range cases {
		if got := sampleIDs(shardSamples(five, tc.index, tc.count)); !slices.Equal(got, tc.want) {
			t.Errorf("shard %d/%d = %v, want %v", tc.index, tc.count, got, tc.want)
		}
	}
}

func TestLoadRunInputs(t *testing.T) {
	t.Parallel()
	all, err := dataset.Load(dataset.BuiltinName, nil)
	if err != nil || len(all) < 3 {
		t.Fatalf("builtin dataset: %d samples, %v", len(all), err)
	}
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.jsonl")
	badProbe := filepath.Join(dir, "probe.json")
	goodProbe := filepath.Join(dir, "good-probe.json")
	for name, body := range map[string]string{empty: "", badProbe: `[{"kind":"shout"}]`, goodProbe: `[{"kind":"noise","clip":"noise","offset_s":1,"duration_s":0.1}]`} {
		if err := os.WriteFile(name, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		name        string
		edit        func(o *runOptions)
		wantErr     string // "" = accepted; else exit 2 naming this
		wantSamples []string
		wantLevels  []int
		wantProbes  int
	}{
		{name: "builtin", wantSamples: sampleIDs(all)},
		{name: "limit", edit: func(o *runOptions) { o.Limit = 2 }, wantSamples: sampleIDs(all[:2])},
		{name: "shard 2/2", edit: func(o *runOptions) { o.ShardIndex, o.ShardCount = 2, 2 }, wantSamples: sampleIDs(shardSamples(all, 2, 2))},
		{name: "load curve keeps every sample on a shard", edit: func(o *runOptions) {
			o.ShardIndex, o.ShardCount, o.LoadCurve, o.Upload = 2, 2, "1,2", "http://127.0.0.1:1"
		}, wantSamples: sampleIDs(all), wantLevels: []int{1, 2}},
		{name: "probes", edit: func(o *runOptions) { o.Probe = goodProbe }, wantSamples: sampleIDs(all), wantProbes: 1},
		{name: "missing ref audio", edit: func(o *runOptions) { o.RefAudio = filepath.Join(dir, "nope.wav") }, wantErr: "--ref-audio"},
		{name: "missing dataset", edit: func(o *runOptions) { o.Dataset = filepath.Join(dir, "nope") }, wantErr: "nope"},
		{name: "empty dataset", edit: func(o *runOptions) { o.Dataset = empty }, wantErr: "no samples"},
		{name: "split without samples", edit: func(o *runOptions) { o.Split = "no-such-split" }, wantErr: "no samples"},
		{name: "bad probe", edit: func(o *runOptions) { o.Probe = badProbe }, wantErr: "--probe"},
		{name: "bad levels", edit: func(o *runOptions) { o.LoadCurve = "1,x" }, wantErr: "--load-curve"},
		{name: "sharded load curve without upload", edit: func(o *runOptions) { o.ShardIndex, o.ShardCount, o.LoadCurve = 1, 2, "1" }, wantErr: "--upload"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			o := &runOptions{Dataset: dataset.BuiltinName}
			if tc.edit != nil {
				tc.edit(o)
			}
			in, err := loadRunInputs(o)
			if !wantUsageError(t, err, tc.wantErr) {
				return
			}
			if got := sampleIDs(in.samples); !slices.Equal(got, tc.wantSamples) {
				t.Errorf("samples %v, want %v", got, tc.wantSamples)
			}
			if !slices.Equal(in.levels, tc.wantLevels) || len(in.probes) != tc.wantProbes || in.dopts == nil {
				t.Errorf("levels %v probes %d dopts %v, want %v and %d", in.levels, len(in.probes), in.dopts, tc.wantLevels, tc.wantProbes)
			}
		})
	}
}

// wireLog is a minimal wire log of a sample; complete says whether the
// session finished cleanly. Its pacing differs by complete (10 frames,
// mean 4 ms, max 30 ms; 5 frames, mean 10 ms, max 12 ms), all within a
// frame, so result.json's run-wide figures have two sessions to combine.
func wireLog(split, id string, complete bool) trace.Session {
	extra := `{"incomplete":false,"pacing":{"frames":10,"mean_ms":4,"p50_ms":3,"p99_ms":30,"max_ms":30}}`
	if !complete {
		extra = `{"incomplete":true,"pacing":{"frames":5,"mean_ms":10,"p50_ms":10,"p99_ms":12,"max_ms":12}}`
	}
	return trace.Session{Format: trace.Format, Kind: trace.KindSession, Events: []trace.Event{},
		Session: trace.SessionMeta{SampleID: &id, Split: &split, Extra: json.RawMessage(extra)}}
}

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestPlanResume(t *testing.T) {
	t.Parallel()
	samples := []dataset.Sample{
		{Split: "s", SampleID: "complete"},
		{Split: "s", SampleID: "incomplete"},
		{Split: "s", SampleID: "corrupt"},
		{Split: "s", SampleID: "missing"},
		{Split: "s", SampleID: "also complete"}, // an unsafe name: traceName hashes it
	}
	metricsOf := func(split string, ids ...string) []byte {
		var rs []metrics.SessionResult
		for _, id := range ids {
			rs = append(rs, metrics.ScoreSession(wireLog(split, id, true)))
		}
		return metrics.BuildReport(rs).File()
	}
	cases := []struct {
		name          string
		resume        bool
		metricsFile   []byte // nil: none
		wantErr       string // "" = none; else exit 2 naming this
		wantTodo      []string
		wantSkipped   int
		wantRecovered []string
		wantEarlier   bool
	}{
		{name: "no resume runs everything", metricsFile: metricsOf("s", "complete"),
			wantTodo: sampleIDs(samples)},
		{name: "resume without duplex_metrics.json recovers every skipped sample", resume: true,
			wantTodo: []string{"incomplete", "corrupt", "missing"}, wantSkipped: 2, wantRecovered: []string{"complete", "also complete"}},
		{name: "resume keeps the rows duplex_metrics.json holds", resume: true, metricsFile: metricsOf("s", "complete"),
			wantTodo: []string{"incomplete", "corrupt", "missing"}, wantSkipped: 2, wantRecovered: []string{"also complete"}, wantEarlier: true},
		{name: "a row of another split is not this sample's", resume: true, metricsFile: metricsOf("other", "complete", "also complete"),
			wantTodo: []string{"incomplete", "corrupt", "missing"}, wantSkipped: 2, wantRecovered: []string{"complete", "also complete"}, wantEarlier: true},
		{name: "corrupt duplex_metrics.json is refused", resume: true, metricsFile: []byte("{not json"), wantErr: "duplex_metrics.json"},
		{name: "duplex_metrics.json of the wrong shape is refused", resume: true, metricsFile: []byte("[]"), wantErr: "duplex_metrics.json"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			out := t.TempDir()
			traces := filepath.Join(out, dirTraces)
			if err := os.MkdirAll(traces, 0o755); err != nil {
				t.Fatal(err)
			}
			writeJSON(t, filepath.Join(traces, traceName("s", "complete")), wireLog("s", "complete", true))
			writeJSON(t, filepath.Join(traces, traceName("s", "also complete")), wireLog("s", "also complete", true))
			writeJSON(t, filepath.Join(traces, traceName("s", "incomplete")), wireLog("s", "incomplete", false))
			if err := os.WriteFile(filepath.Join(traces, traceName("s", "corrupt")), []byte(`{"format":`), 0o644); err != nil {
				t.Fatal(err)
			}
			if tc.metricsFile != nil {
				if err := os.WriteFile(filepath.Join(out, fileMetrics), tc.metricsFile, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			p, err := planResume(&runOptions{Out: out, Resume: tc.resume}, samples)
			if !wantUsageError(t, err, tc.wantErr) {
				return
			}
			if got := sampleIDs(p.todo); !slices.Equal(got, tc.wantTodo) {
				t.Errorf("todo %v, want %v", got, tc.wantTodo)
			}
			var recovered []string
			for _, r := range p.recovered {
				if r.Summary.SampleID == nil {
					t.Fatalf("recovered result without a sample id: %+v", r)
				}
				recovered = append(recovered, *r.Summary.SampleID)
			}
			if p.skipped != tc.wantSkipped || !slices.Equal(recovered, tc.wantRecovered) || (p.earlier != nil) != tc.wantEarlier {
				t.Errorf("skipped %d recovered %v earlier %v, want %d %v %v", p.skipped, recovered, p.earlier != nil, tc.wantSkipped, tc.wantRecovered, tc.wantEarlier)
			}
		})
	}
}
