//go:build !js

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/duplexscope/duplexscope/internal/testkit"
	"github.com/duplexscope/duplexscope/report"
	"github.com/duplexscope/duplexscope/sim"
)

// serveSim serves a fresh simulator on its routes (as serve mounts them)
// until the test ends.
func serveSim(t *testing.T) (*sim.Server, *httptest.Server) {
	t.Helper()
	s, err := sim.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	for _, p := range sim.Routes() {
		mux.Handle(p, s)
	}
	return s, testkit.Serve(t, mux, s)
}

// startSim is serveSim with the realtime endpoint's ws:// URL.
func startSim(t *testing.T) (*httptest.Server, string) {
	t.Helper()
	_, ts := serveSim(t)
	return ts, "ws" + strings.TrimPrefix(ts.URL, "http") + "/v1/realtime"
}

func exitCode(err error) int {
	if err == nil {
		return 0
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	return 1
}

func TestRunUsage(t *testing.T) {
	t.Parallel()
	full := []string{"--url", "ws://127.0.0.1:1", "--model", "m", "--dataset", "builtin", "--out", t.TempDir()}
	cases := []struct {
		name string
		args []string
	}{
		{"no flags", nil},
		{"missing out", []string{"--url", "ws://127.0.0.1:1", "--model", "m", "--dataset", "builtin"}},
		{"resume and overwrite", append(append([]string{}, full...), "--resume", "--overwrite")},
		{"zero concurrency", append(append([]string{}, full...), "--concurrency", "0")},
		{"bad frame", append(append([]string{}, full...), "--frame-ms", "0")},
		{"bad shard", append(append([]string{}, full...), "--run-id", "r", "--shard", "3/2")},
		{"shard without run id", append(append([]string{}, full...), "--shard", "1/2")},
		{"bad run id", append(append([]string{}, full...), "--run-id", "a b")},
		{"bad turn detection", append(append([]string{}, full...), "--turn-detection", "semantic")},
		{"zero handshake timeout", append(append([]string{}, full...), "--handshake-timeout", "0s")},
		{"handshake timeout over an hour", append(append([]string{}, full...), "--handshake-timeout", "2h")},
		{"stray argument", append(append([]string{}, full...), "extra")},
		{"unknown dataset dir", []string{"--url", "ws://127.0.0.1:1", "--model", "m", "--dataset", filepath.Join(t.TempDir(), "nope"), "--out", t.TempDir()}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var out, errb bytes.Buffer
			if code := exitCode(runCmd(context.Background(), tc.args, &out, &errb)); code != 2 {
				t.Errorf("exit %d, want 2 (stderr %q)", code, errb.String())
			}
		})
	}
}

// TestRunResumeCorruptMetrics: a corrupt duplex_metrics.json is refused
// (exit 2) before any session runs.
func TestRunResumeCorruptMetrics(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "duplex_metrics.json"), []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := runCmd(context.Background(), []string{"--url", "ws://127.0.0.1:1", "--model", "m", "--dataset", "builtin", "--out", dir, "--resume", "--progress=false"}, &bytes.Buffer{}, &bytes.Buffer{})
	if exitCode(err) != 2 || !strings.Contains(err.Error(), "duplex_metrics.json") {
		t.Fatalf("err = %v (exit %d), want exit 2 naming duplex_metrics.json", err, exitCode(err))
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "traces", "*")); len(m) != 0 {
		t.Errorf("sessions ran despite the refusal: %v", m)
	}
}

func TestRunRefusesNonEmptyOut(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "report.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := runCmd(context.Background(), []string{"--url", "ws://127.0.0.1:1", "--model", "m", "--dataset", "builtin", "--out", dir, "--progress=false"}, &bytes.Buffer{}, &bytes.Buffer{})
	if exitCode(err) != 2 || !strings.Contains(err.Error(), "--resume") {
		t.Fatalf("err = %v (exit %d), want exit 2 naming --resume/--overwrite", err, exitCode(err))
	}
}

// dmFile is the part of duplex_metrics.json the resume test reads.
type dmFile struct {
	Requests []json.RawMessage `json:"duplex_request_metrics"`
	Sessions []json.RawMessage `json:"duplex_session_metrics"`
}

func readDM(t *testing.T, dir string) dmFile {
	t.Helper()
	var d dmFile
	readJSON(t, filepath.Join(dir, "duplex_metrics.json"), &d)
	return d
}

// compact is raw without insignificant whitespace (duplex_metrics.json is
// indented, replay prints compact JSON).
func compact(raw json.RawMessage) string {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return string(raw)
	}
	return b.String()
}

func sampleOf(raw json.RawMessage) string {
	var v struct {
		SampleID string `json:"sample_id"`
		Split    string `json:"split"`
	}
	_ = json.Unmarshal(raw, &v)
	return v.Split + "/" + v.SampleID
}

// TestRunResume: a run of 2 samples, an interrupted --resume run of 4, then
// a --resume run that finishes: every sample ends with exactly one session
// entry, the first run's rows survive byte for byte, and replay of the wire
// logs gives the rows of duplex_metrics.json.
func TestRunResume(t *testing.T) {
	t.Parallel()
	_, ws := startSim(t)
	out := filepath.Join(t.TempDir(), "out")
	base := []string{"--url", ws, "--model", "sim", "--dataset", "builtin", "--out", out, "--concurrency", "2", "--settle", "500ms", "--progress=false"}
	args := func(extra ...string) []string { return append(append([]string{}, base...), extra...) }

	var so, se bytes.Buffer
	if err := runCmd(context.Background(), args("--limit", "2"), &so, &se); err != nil {
		t.Fatalf("run 1: %v\n%s", err, se.String())
	}
	for _, f := range []string{"report.json", "duplex_metrics.json", "result.json"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Fatal(err)
		}
	}
	rb0, err := os.ReadFile(filepath.Join(out, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := report.Decode(rb0, report.DefaultLimits); err != nil {
		t.Errorf("report.json does not validate: %v", err)
	}
	first := readDM(t, out)
	if len(first.Sessions) != 2 || len(first.Requests) == 0 {
		t.Fatalf("run 1: %d session entries, %d rows; want 2 and > 0", len(first.Sessions), len(first.Requests))
	}

	// A run killed before it wrote duplex_metrics.json leaves only wire
	// logs: resume recovers their metrics from them.
	if err := os.Remove(filepath.Join(out, "duplex_metrics.json")); err != nil {
		t.Fatal(err)
	}

	// Run 2 is interrupted once one new wire log is written.
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		defer cancel()
		for ctx.Err() == nil {
			m, _ := filepath.Glob(filepath.Join(out, "traces", "*.trace.json"))
			if len(m) >= 3 {
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	err = runCmd(ctx, args("--limit", "4", "--resume"), &so, &se)
	cancel()
	if code := exitCode(err); code != 1 && code != 0 {
		t.Fatalf("interrupted run: exit %d: %v", code, err)
	}

	if err := runCmd(context.Background(), args("--limit", "4", "--resume"), &so, &se); err != nil {
		t.Fatalf("run 3: %v\n%s", err, se.String())
	}
	final := readDM(t, out)
	seen := map[string]int{}
	for _, s := range final.Sessions {
		seen[sampleOf(s)]++
	}
	if len(seen) != 4 {
		t.Errorf("final session keys %v, want 4 distinct samples", seen)
	}
	for k, n := range seen {
		if n != 1 {
			t.Errorf("sample %s has %d session entries, want 1", k, n)
		}
	}
	finalRows := map[string]bool{}
	for _, r := range final.Requests {
		finalRows[compact(r)] = true
	}
	for _, r := range first.Requests {
		if !finalRows[compact(r)] {
			t.Errorf("a run-1 row was lost or changed by resume: %s", r)
		}
	}

	// replay --run over the wire logs gives the same rows.
	var rb bytes.Buffer
	if err := replayCmd(context.Background(), []string{"--run", filepath.Join(out, "traces")}, &rb, &se); err != nil {
		t.Fatal(err)
	}
	var rep dmFile
	if err := json.Unmarshal(rb.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Requests) != len(final.Requests) {
		t.Errorf("replay gives %d rows, duplex_metrics.json %d", len(rep.Requests), len(final.Requests))
	}
	for _, r := range rep.Requests {
		if !finalRows[compact(r)] {
			t.Errorf("replayed row not in duplex_metrics.json: %s", r)
		}
	}
}

// TestRunUpload: --upload POSTs report.json to SERVER/api/reports with an
// Idempotency-Key and prints the share URL; --run-id/--shard reach the report.
func TestRunUpload(t *testing.T) {
	t.Parallel()
	_, ws := startSim(t)
	var got []byte
	var key string
	var mu sync.Mutex
	attached := map[string]int{}
	arch := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPut && strings.HasPrefix(r.URL.Path, "/api/reports/abc/attachments/") {
			b, _ := io.ReadAll(r.Body)
			mu.Lock()
			attached[strings.TrimPrefix(r.URL.Path, "/api/reports/abc/attachments/")] = len(b)
			mu.Unlock()
			w.WriteHeader(http.StatusCreated)
			return
		}
		if r.Method != http.MethodPost || r.URL.Path != "/api/reports" {
			http.Error(w, "unexpected "+r.Method+" "+r.URL.Path, http.StatusNotFound)
			return
		}
		key = r.Header.Get("Idempotency-Key")
		got, _ = io.ReadAll(r.Body)
		w.WriteHeader(http.StatusCreated)
		_, _ = w.Write([]byte(`{"id":"abc","url":"/r/abc"}`))
	}))
	defer arch.Close()
	out := filepath.Join(t.TempDir(), "out")
	stdout := mustRun(t, "--url", ws, "--model", "sim", "--dataset", "builtin", "--limit", "2", "--out", out,
		"--settle", "500ms", "--progress=false", "--upload", arch.URL, "--run-id", "r1", "--shard", "2/2",
		"--name", "nightly fp8", "--notes", "driver 550", "--tag", "gpu-a", "--tag", "fp8")
	if !strings.Contains(stdout, arch.URL+"/r/abc") {
		t.Errorf("stdout %q lacks the share URL", stdout)
	}
	file, _ := os.ReadFile(filepath.Join(out, "report.json"))
	if !bytes.Equal(got, file) || key == "" {
		t.Errorf("uploaded body differs from report.json (or no Idempotency-Key %q)", key)
	}
	r, err := report.Decode(got, report.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	if r.Run.Name != "nightly fp8" || r.Run.Notes != "driver 550" || strings.Join(r.Run.Tags, ",") != "gpu-a,fp8" {
		t.Errorf("labels of the uploaded run: %q %q %q", r.Run.Name, r.Run.Notes, r.Run.Tags)
	}
	if r.Run.RunID != "r1" || r.Run.Shard == nil || *r.Run.Shard != (report.Shard{Index: 2, Count: 2}) {
		t.Errorf("run id/shard %q %+v", r.Run.RunID, r.Run.Shard)
	}
	// Shard 2 of 2 of the builtin set's first 2 samples is the second one.
	if len(r.Sessions) != 1 || r.Sessions[0].SampleID != "weather" {
		t.Fatalf("shard sessions %+v, want only the second sample", r.Sessions)
	}
	// Its wire log was uploaded as the attachment the report names.
	trace, _ := os.ReadFile(filepath.Join(out, "traces", r.Sessions[0].WireLog))
	if n, ok := attached[r.Sessions[0].WireLog]; !ok || n != len(trace) || len(r.Attachments) != 1 {
		t.Errorf("attachments uploaded %v, report lists %+v; want %s (%d bytes)", attached, r.Attachments, r.Sessions[0].WireLog, len(trace))
	}
}

// TestRunLoadCurveAndProbe: --load-curve writes one level per N with the
// joiner's TTFP; --probe writes one result per probe per session.
func TestRunLoadCurveAndProbe(t *testing.T) {
	t.Parallel()
	_, ws := startSim(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "lc")
	mustRun(t, "--url", ws, "--model", "sim", "--dataset", "builtin", "--out", out, "--settle", "500ms",
		"--progress=false", "--load-curve", "1,2")
	var lc report.LoadCurve // loadcurve.json: the load_curve keys, plus the run's target
	readJSON(t, filepath.Join(out, "loadcurve.json"), &lc)
	if len(lc.Levels) != 2 || lc.Levels[0].Sessions != 1 || lc.Levels[1].Sessions != 2 {
		t.Fatalf("levels %+v", lc.Levels)
	}
	for _, l := range lc.Levels {
		if l.Failed != 0 || l.Responses < l.Sessions || l.TTFPP50Ms == nil || l.JoinTTFPMs == nil || l.TTFPOrigin != "server clock" {
			t.Errorf("level %+v", l)
		}
	}
	// The curve is also a report (load_curve), archived and shared like any run.
	rep := readReport(t, filepath.Join(out, fileReport))
	if rep.LoadCurve == nil || len(rep.LoadCurve.Levels) != 2 || rep.LoadCurve.Levels[0].Sessions != 1 || rep.LoadCurve.Levels[1].Sessions != 2 ||
		rep.LoadCurve.Levels[1].Responses != lc.Levels[1].Responses || !rep.Complete {
		t.Errorf("report load_curve %+v complete %v, want the 2 levels of loadcurve.json", rep.LoadCurve, rep.Complete)
	}
	// 1 + 2 sessions plus one joiner per level, all in the metrics.
	if n := len(rep.Metrics.Sessions); n != 5 {
		t.Errorf("report has %d session entries, want 5 (1+1 and 2+1 with joiners)", n)
	}

	probeFile := filepath.Join(dir, "probes.json")
	if err := os.WriteFile(probeFile, []byte(`[{"kind":"interruption","clip":"builtin:math","offset_s":3.4},{"kind":"noise","clip":"noise","offset_s":1,"duration_s":0.3}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	out = filepath.Join(dir, "probe")
	mustRun(t, "--url", ws, "--model", "sim", "--dataset", "builtin", "--limit", "2", "--out", out, "--settle", "500ms",
		"--progress=false", "--probe", probeFile)
	var pr struct {
		Probes []struct {
			Kind     string  `json:"kind"`
			SampleID string  `json:"sample_id"`
			OnsetMs  float64 `json:"onset_ms"`
		} `json:"probes"`
	}
	readJSON(t, filepath.Join(out, "probes.json"), &pr)
	if len(pr.Probes) != 4 {
		t.Errorf("%d probe results, want 2 probes × 2 sessions", len(pr.Probes))
	}
	bad := filepath.Join(dir, "bad.json")
	_ = os.WriteFile(bad, []byte(`[{"kind":"shout","clip":"noise","offset_s":1}]`), 0o644)
	var so, se bytes.Buffer
	err := runCmd(context.Background(), []string{"--url", ws, "--model", "sim", "--dataset", "builtin", "--out", filepath.Join(dir, "x"), "--probe", bad}, &so, &se)
	if exitCode(err) != 2 {
		t.Errorf("bad probe kind: exit %d (%v), want 2", exitCode(err), err)
	}
}

// TestRunLabelFlags: --name, --notes and repeatable --tag reach the options
// and are refused (the flag named; runCmd exits 2) past report.CheckLabels.
func TestRunLabelFlags(t *testing.T) {
	t.Parallel()
	base := []string{"--url", "ws://127.0.0.1:1", "--model", "m", "--dataset", "builtin", "--out", t.TempDir()}
	tags17 := strings.Fields(strings.Repeat("--tag t ", 17))
	for i := 1; i < len(tags17); i += 2 {
		tags17[i] += strings.Repeat("x", i) // 17 distinct tags
	}
	cases := []struct {
		name    string
		args    []string
		wantErr string // "" = accepted
	}{
		{"none", nil, ""},
		{"all", []string{"--name", "A/B run", "--notes", "line one\nline two", "--tag", "x", "--tag", "y"}, ""},
		{"long name", []string{"--name", strings.Repeat("n", report.MaxNameChars+1)}, "--name"},
		{"escape sequence in name", []string{"--name", "red\x1b[31m"}, "--name"},
		{"bell in notes", []string{"--notes", "ding\a"}, "--notes"},
		{"duplicate tag", []string{"--tag", "x", "--tag", "x"}, "--tag"},
		{"empty tag", []string{"--tag", ""}, "--tag"},
		{"17 tags", tags17, "--tag"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o, err := parseRunFlags(append(append([]string(nil), base...), tc.args...), io.Discard)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want one naming %s", err, tc.wantErr)
				}
				if code := exitCode(runCmd(context.Background(), append(append([]string(nil), base...), tc.args...), io.Discard, io.Discard)); code != 2 {
					t.Errorf("runCmd exit %d, want 2", code)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tc.name == "all" && (o.Name != "A/B run" || o.Notes != "line one\nline two" || strings.Join(o.Tags, ",") != "x,y") {
				t.Errorf("options %q %q %q", o.Name, o.Notes, o.Tags)
			}
		})
	}
}
