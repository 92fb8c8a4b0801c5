//go:build !js

package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/duplexscope/duplexscope/audio"
	"github.com/duplexscope/duplexscope/internal/testkit"
	"github.com/duplexscope/duplexscope/report"
	"github.com/duplexscope/duplexscope/server"
	"github.com/duplexscope/duplexscope/server/archive"
	"github.com/duplexscope/duplexscope/session"
	"github.com/duplexscope/duplexscope/sim"
	"github.com/duplexscope/duplexscope/trace"
)

// faultEnv is an in-process simulator and archive for the fault tests, and
// a one-clip dataset short enough for the simulator's fast "test" profile
// (one turn: 1 s of tone, then 1.2 s of silence).
type faultEnv struct {
	sim     *sim.Server
	ws      string // ws://127.0.0.1:PORT/v1/realtime
	archive string // http://127.0.0.1:PORT (server.Server with a memory store)
	store   *archive.Memory
	archH   http.Handler // the archive server itself (for gateways in front of it)
	dataset string       // dir with manifest.jsonl: one sample, fault/tone
	multi   string       // dir with manifest.jsonl: fault/tone1 … fault/tone4
	simURL  string       // http://127.0.0.1:PORT of the simulator
}

func startFaultEnv(t *testing.T) *faultEnv {
	t.Helper()
	s, simTS := serveSim(t)
	store := archive.NewMemory()
	archTS, arch := startArchive(t, server.Config{Store: store})
	dir := t.TempDir()
	x := make([]float32, 2200*audio.InputRate/1000)
	for k := range 1000 * audio.InputRate / 1000 { // 1 s at −12 dBFS: a turn for the energy VAD
		x[k] = float32(0.25 * math.Sin(2*math.Pi*220*float64(k)/audio.InputRate))
	}
	if err := os.WriteFile(filepath.Join(dir, "tone.wav"), audio.EncodeWAV(x, audio.InputRate), 0o644); err != nil {
		t.Fatal(err)
	}
	manifest := filepath.Join(dir, "manifest.jsonl")
	if err := os.WriteFile(manifest, []byte(`{"sample_id":"tone","split":"fault","audio":"tone.wav","text":"one turn"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A four-sample set of the same clip for concurrent and interrupted runs.
	multi := filepath.Join(dir, "multi")
	if err := os.MkdirAll(multi, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(multi, "tone.wav"), audio.EncodeWAV(x, audio.InputRate), 0o644); err != nil {
		t.Fatal(err)
	}
	var lines []string
	for i := range 4 {
		lines = append(lines, fmt.Sprintf(`{"sample_id":"tone%d","split":"fault","audio":"tone.wav"}`, i+1))
	}
	if err := os.WriteFile(filepath.Join(multi, "manifest.jsonl"), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return &faultEnv{sim: s, ws: "ws" + strings.TrimPrefix(simTS.URL, "http") + "/v1/realtime", archive: archTS.URL, store: store, archH: arch,
		dataset: dir, multi: multi, simURL: simTS.URL}
}

// faultRun is what one `duplexscope run` against a faulty simulator left.
type faultRun struct {
	fault          string
	code           int
	stdout, stderr string
	raw            []byte         // OUT/report.json
	rep            *report.Report // decoded with the archive's validator
	trace          *trace.Session // OUT/traces/fault__tone.trace.json (nil: none written)
	truth          sim.Truth      // the simulator's record of the session (zero: none)
}

// run executes the real CLI (realMain: flags, run, report, upload, exit code)
// with one fault (comma list) on the simulator's fast test profile.
func (e *faultEnv) run(t *testing.T, fault string, upload bool, extra ...string) *faultRun {
	t.Helper()
	out := filepath.Join(t.TempDir(), "out")
	url := e.ws + "?sim_profile=test&sim_fault=" + fault
	args := []string{"run", "--url", url, "--model", "sim", "--dataset", e.dataset, "--out", out,
		"--settle", "300ms", "--timeout", "20s", "--progress=false"}
	if upload {
		args = append(args, "--upload", e.archive)
	}
	args = append(args, extra...)
	var so, se bytes.Buffer
	fr := &faultRun{fault: fault}
	fr.code = realMain(args, &so, &se)
	fr.stdout, fr.stderr = so.String(), se.String()
	var err error
	if fr.raw, err = os.ReadFile(filepath.Join(out, "report.json")); err != nil {
		t.Fatalf("%s: no report.json (exit %d, stderr %q): %v", fault, fr.code, fr.stderr, err)
	}
	if fr.rep, err = report.Decode(fr.raw, report.DefaultLimits); err != nil {
		t.Fatalf("%s: report.json does not validate: %v", fault, err)
	}
	if b, err := os.ReadFile(filepath.Join(out, "traces", traceName("fault", "tone"))); err == nil {
		tr, err := trace.DecodeSession(b)
		if err != nil {
			t.Fatalf("%s: wire log: %v", fault, err)
		}
		fr.trace = &tr
		if tr.Session.SessionID != nil {
			fr.truth, _ = e.sim.Truth(*tr.Session.SessionID)
		}
	}
	return fr
}

// rows returns the report's request rows.
func (fr *faultRun) rows() []report.Row { return fr.rep.Metrics.Requests }

func (fr *faultRun) hasWarning(code string) bool {
	return slices.ContainsFunc(fr.rep.Warnings, func(w report.Warning) bool { return w.Code == code })
}

// receivedAudioMs is the audio of response id the client decoded from the
// wire log (bytes at the 24 kHz output rate), whatever field or name it came in.
func (fr *faultRun) receivedAudioMs(t *testing.T, id string) float64 {
	t.Helper()
	n := 0
	for _, ev := range fr.trace.Events {
		var e struct {
			Type       string `json:"type"`
			ResponseID string `json:"response_id"`
			Delta      string `json:"delta"`
			Audio      string `json:"audio"`
		}
		if ev.Dir != trace.DirRecv || json.Unmarshal(ev.Event, &e) != nil || e.ResponseID != id ||
			(e.Type != "response.output_audio.delta" && e.Type != "response.audio.delta") {
			continue
		}
		p := e.Delta
		if p == "" {
			p = e.Audio
		}
		b, err := base64.StdEncoding.DecodeString(p)
		if err != nil {
			t.Fatalf("audio delta of %s: %v", id, err)
		}
		n += len(b)
	}
	return audio.BytesToMs(n, audio.OutputRate)
}

// audioTimes lists the instants of response id's audio deltas: client
// receive times from the wire log, or the simulator's emit times.
func (fr *faultRun) audioTimes(id string, client bool) []float64 {
	var out []float64
	if !client {
		for _, ev := range fr.truth.Events {
			if ev.ResponseID == id && !ev.Replay && (ev.Type == "response.output_audio.delta" || ev.Type == "response.audio.delta") {
				out = append(out, ev.TMs)
			}
		}
		return out
	}
	for _, ev := range fr.trace.Events {
		var e struct {
			Type       string `json:"type"`
			ResponseID string `json:"response_id"`
		}
		if ev.Dir == trace.DirRecv && json.Unmarshal(ev.Event, &e) == nil && e.ResponseID == id &&
			(e.Type == "response.output_audio.delta" || e.Type == "response.audio.delta") {
			out = append(out, ev.TMs)
		}
	}
	return out
}

// truthOf returns the simulator's truth for response id.
func (fr *faultRun) truthOf(t *testing.T, id string) sim.TruthResponse {
	t.Helper()
	for _, r := range fr.truth.Responses {
		if r.ResponseID == id {
			return r
		}
	}
	t.Fatalf("response %s not in the simulator's truth %+v", id, fr.truth.Responses)
	return sim.TruthResponse{}
}

// faultCase is one row of the fault table: what the run must end with.
type faultCase struct {
	fault string
	// fails: the session is expected to fail (exit 1, report incomplete);
	// stderr must then contain every string in msg (the error naming the fault).
	fails bool
	msg   []string
	// rows: metrics rows from what arrived are expected.
	rows bool
	args []string
	// check asserts the fault's documented recovery or partial metrics.
	check func(t *testing.T, fr *faultRun)
	// alone: the case bounds wall-clock time (a burst's spread, a 3 s
	// completion timeout against a 2.2 s clip), so it runs by itself after
	// the parallel group, on a machine no other case loads.
	alone bool
}

var faultCases = []faultCase{
	// First: the longest case (it waits out the handshake timeout) starts
	// first in TestRunFaults' parallel group, the others run beside it.
	// The simulator holds session.created back for longer than 3 s (see
	// sim's slow_handshake), so the message names the flag's value, not
	// the 20 s default.
	{fault: "slow_handshake", fails: true, args: []string{"--handshake-timeout", "3s"}, msg: []string{"fault/tone", "handshake", "within 3s"}},
	{fault: "none", rows: true, check: func(t *testing.T, fr *faultRun) {
		for _, r := range fr.rows() {
			if r.Source != report.SourceServer {
				t.Errorf("row %s: source %q, want server metrics", deref(r.ResponseID), r.Source)
			}
		}
	}},
	{fault: "no_request_metrics", rows: true, check: func(t *testing.T, fr *faultRun) {
		for _, r := range fr.rows() {
			if r.Source != report.SourceClient || r.TTFPMs == nil || *r.TTFPMs < 0 {
				t.Errorf("row %s: source %q ttfp %v, want the client receive clock fallback (%s)", deref(r.ResponseID), r.Source, r.TTFPMs, report.SourceClient)
			}
		}
		if !fr.hasWarning(report.WarnServerMetricsMissing) {
			t.Errorf("warnings %+v lack %s", fr.rep.Warnings, report.WarnServerMetricsMissing)
		}
	}},
	{fault: "legacy_audio", check: func(t *testing.T, fr *faultRun) {
		// The reference metrics ignore legacy names: no rows by definition;
		// our client still plays the audio (heard TTFP on the playback clock).
		for _, r := range fr.rows() {
			if r.TTFPMs != nil || r.AudioDurationMs != nil || r.Source != "" {
				t.Errorf("row %s has timing (source %q, ttfp %v) from legacy-named audio; the reference metrics ignore legacy names",
					deref(r.ResponseID), r.Source, r.TTFPMs)
			}
		}
		heard := 0
		for _, x := range fr.rep.Responses {
			if x.HeardTTFPMs != nil {
				heard++
				if got, want := fr.receivedAudioMs(t, x.ResponseID), fr.truthOf(t, x.ResponseID).AudioMs; got != want {
					t.Errorf("response %s: client received %.1f ms of legacy audio, server sent %.1f ms", x.ResponseID, got, want)
				}
			}
		}
		if heard == 0 {
			t.Errorf("responses %+v: none was played (heard_ttfp_ms), want legacy audio played", fr.rep.Responses)
		}
		if !fr.hasWarning(report.WarnLegacyEventNames) {
			t.Errorf("warnings %+v lack %s", fr.rep.Warnings, report.WarnLegacyEventNames)
		}
	}},
	{fault: "no_sample_rate", rows: true, check: audioMatchesTruth},
	{fault: "no_audio_duration", rows: true, check: audioMatchesTruth},
	{fault: "audio_field", rows: true, check: audioMatchesTruth},
	{fault: "flat_error", rows: true}, // alone it changes nothing: no error is sent
	{fault: "error_event,flat_error", fails: true, msg: []string{"fault/tone", "server error engine_error"}, rows: true},
	{fault: "error_event", fails: true, msg: []string{"fault/tone", "server error engine_error"}, rows: true},
	{fault: "unexpected_close", fails: true, msg: []string{"fault/tone", "unexpected session.closed: server_shutdown"}, rows: true},
	{fault: "dropped_event", rows: true, check: func(t *testing.T, fr *faultRun) {
		// The server's audio_duration_ms (metadata, what the row reports)
		// counts the dropped delta; the bytes that arrived, which equal what
		// the simulator really sent, are one packet short of it.
		r := fr.rows()[0]
		id := deref(r.ResponseID)
		got, sent := fr.receivedAudioMs(t, id), fr.truthOf(t, id).AudioMs
		if got != sent || r.AudioDurationMs == nil || !(got < *r.AudioDurationMs) {
			t.Errorf("response %s: received %.1f ms of audio, simulator sent %.1f ms, row audio_duration_ms %v: want received = sent < reported",
				id, got, sent, r.AudioDurationMs)
		}
	}},
	{fault: "dropped_done", fails: true, msg: []string{"fault/tone", "without response.done"}, args: []string{"--timeout", "3s"}, rows: true, alone: true},
	{fault: "malformed_json", rows: true, check: func(t *testing.T, fr *faultRun) {
		// The bad frame is kept in the wire log (as a JSON string) and noted.
		var ex session.Extra
		_ = json.Unmarshal(fr.trace.Session.Extra, &ex)
		if !slices.ContainsFunc(ex.Warnings, func(w string) bool { return strings.Contains(w, "not valid JSON") }) {
			t.Errorf("wire log warnings %q lack the invalid frame", ex.Warnings)
		}
		strs := 0
		for _, ev := range fr.trace.Events {
			if ev.Dir == trace.DirRecv && len(ev.Event) > 0 && ev.Event[0] == '"' {
				strs++
			}
		}
		if strs != 1 {
			t.Errorf("%d received frames kept as JSON strings, want the 1 malformed frame", strs)
		}
	}},
	{fault: "delayed_burst", rows: true, alone: true, check: func(t *testing.T, fr *faultRun) {
		// Audio after the first packet is held back and comes in one burst
		// sim.BurstDelay after the last packet's normal time: TTFP is the
		// server's, unchanged; the client's RTF (created → last audio)
		// rises past BurstDelay / audio; the simulated playback underruns.
		audioMatchesTruth(t, fr)
		burst := float64(sim.BurstDelay / time.Millisecond)
		for _, r := range fr.rows() {
			id := deref(r.ResponseID)
			tr := fr.truthOf(t, id)
			if r.TTFPMs == nil || tr.TTFPMs == nil || *r.TTFPMs != *tr.TTFPMs {
				t.Errorf("response %s: ttfp %v, truth %v: server TTFP must be unchanged", id, r.TTFPMs, tr.TTFPMs)
			}
			client, server := fr.audioTimes(id, true), fr.audioTimes(id, false)
			if len(client) < 3 || len(client) != len(server) {
				t.Fatalf("response %s: %d audio deltas received, %d emitted: want ≥ 3, equal", id, len(client), len(server))
			}
			span, gap := client[len(client)-1]-client[1], client[1]-client[0]
			// The burst arrives together: its spread is small against the
			// hold-back gap (loose bound: -race on a loaded 2-core box
			// spread a 3-frame burst over 23 ms).
			if gap < burst-20 || 10*span > gap {
				t.Errorf("response %s: client first→second delta %.1f ms, packets 2…N span %.1f ms: want one burst ≥ %.0f ms late", id, gap, span, burst)
			}
			if r.RTF == nil || r.AudioDurationMs == nil || *r.RTF**r.AudioDurationMs < burst-20 {
				t.Errorf("response %s: client RTF %v over %v ms of audio: want it to include the %.0f ms burst delay", id, r.RTF, r.AudioDurationMs, burst)
			}
		}
		if !fr.hasWarning(report.WarnPlaybackUnderrun) {
			t.Errorf("warnings %+v lack %s (playback waits for the held-back audio)", fr.rep.Warnings, report.WarnPlaybackUnderrun)
		}
	}},
	{fault: "disconnect_mid_response", fails: true, rows: true, msg: []string{"fault/tone", "transport dropped without session.closed"}},
	{fault: "stalled_reader", rows: true},
	{fault: "slow_writer", rows: true, check: audioMatchesTruth},
	{fault: "replayed_events", rows: true, check: func(t *testing.T, fr *faultRun) {
		// The replayed frames are in the wire log (seq seen twice), yet every
		// response is counted once with the server's numbers.
		seqs, dup := map[int64]bool{}, 0
		for _, ev := range fr.trace.Events {
			var e struct {
				Seq *int64 `json:"server_event_seq"`
			}
			if ev.Dir == trace.DirRecv && json.Unmarshal(ev.Event, &e) == nil && e.Seq != nil {
				if seqs[*e.Seq] {
					dup++
				}
				seqs[*e.Seq] = true
			}
		}
		if dup == 0 {
			t.Errorf("no replayed server_event_seq in the wire log: the fault did not happen")
		}
		speak := 0
		for _, r := range fr.truth.Responses {
			if r.Kind == "speak" {
				speak++
			}
		}
		seen := map[string]bool{}
		for _, r := range fr.rows() {
			id := deref(r.ResponseID)
			if seen[id] {
				t.Errorf("response %s counted twice (replayed events not dropped)", id)
			}
			seen[id] = true
			if tr := fr.truthOf(t, id); r.TTFPMs == nil || tr.TTFPMs == nil || *r.TTFPMs != *tr.TTFPMs {
				t.Errorf("response %s: ttfp %v, truth %v", id, r.TTFPMs, tr.TTFPMs)
			}
		}
		if len(fr.rows()) != speak {
			t.Errorf("%d rows, the simulator answered %d times", len(fr.rows()), speak)
		}
	}},
}

// audioMatchesTruth: every row's audio duration equals what the server sent.
func audioMatchesTruth(t *testing.T, fr *faultRun) {
	t.Helper()
	for _, r := range fr.rows() {
		tr := fr.truthOf(t, deref(r.ResponseID))
		if r.AudioDurationMs == nil || math.Abs(*r.AudioDurationMs-tr.AudioMs) > 0.01 {
			t.Errorf("response %s: audio_duration_ms %v, the server sent %.3f ms", deref(r.ResponseID), r.AudioDurationMs, tr.AudioMs)
		}
		if got := fr.receivedAudioMs(t, deref(r.ResponseID)); math.Abs(got-tr.AudioMs) > 0.01 {
			t.Errorf("response %s: client decoded %.3f ms of audio, the server sent %.3f ms", deref(r.ResponseID), got, tr.AudioMs)
		}
	}
}

func deref[T any](p *T) T {
	var z T
	if p == nil {
		return z
	}
	return *p
}

// TestFaultTableCoversSim: every fault the simulator documents has a row.
func TestFaultTableCoversSim(t *testing.T) {
	have := map[string]bool{}
	for _, c := range faultCases {
		for _, f := range strings.Split(c.fault, ",") {
			have[f] = true
		}
	}
	for _, f := range sim.Faults() {
		if !have[f[0]] {
			t.Errorf("sim fault %q (%s) has no case in faultCases", f[0], f[1])
		}
	}
}

// TestRunFaults runs `duplexscope run` once per simulator fault mode. A
// recoverable fault must complete (exit 0, complete report) with the metric
// fallback its documentation names; a fatal one must exit 1 with a message
// naming what went wrong, and still write (and upload) a report flagged
// incomplete with an incomplete_session warning and the metrics of what
// arrived. The cases that bound no wall-clock time run as parallel subtests
// (each has its own session, output dir and report id; the simulator and
// archive serve many sessions); after that group, and after every case
// marked alone, the goroutine count is back at its baseline, so a leak in
// any case still fails the test (the stacks name it).
func TestRunFaults(t *testing.T) {
	e := startFaultEnv(t)
	// Warm up (lazily started runtime/http goroutines), then take the baseline.
	if fr := e.run(t, "none", true); fr.code != 0 {
		t.Fatalf("warm-up run: exit %d: %s", fr.code, fr.stderr)
	}
	// The baseline inside a subtest counts the subtest's own goroutine.
	base := settledGoroutines() + 1
	var (
		mu    sync.Mutex
		table []string
	)
	row := func(tc faultCase, fr *faultRun, outcome, goroutines string, took time.Duration) {
		mu.Lock()
		defer mu.Unlock()
		table = append(table, fmt.Sprintf("| %s | exit %d | complete=%v | %d rows | %s | %s | %.1f s |",
			tc.fault, fr.code, fr.rep.Complete, len(fr.rows()), outcome, goroutines, took.Seconds()))
	}
	t.Run("group", func(t *testing.T) {
		for _, tc := range faultCases {
			if tc.alone {
				continue
			}
			t.Run(tc.fault, func(t *testing.T) {
				t.Parallel()
				start := time.Now()
				fr, outcome := e.checkFault(t, tc)
				row(tc, fr, outcome, "goroutines checked after the group", time.Since(start))
			})
		}
	})
	if n, leak := backToBaseline(base, 10*time.Second); leak != "" {
		t.Errorf("goroutines: %d after the parallel group, baseline %d:\n%s", n, base, leak)
	}
	for _, tc := range faultCases {
		if !tc.alone {
			continue
		}
		t.Run(tc.fault, func(t *testing.T) {
			start := time.Now()
			fr, outcome := e.checkFault(t, tc)
			n, leak := backToBaseline(base, 10*time.Second)
			if leak != "" {
				t.Errorf("goroutines: %d after the run, baseline %d:\n%s", n, base, leak)
			}
			row(tc, fr, outcome, fmt.Sprintf("goroutines %d (baseline %d)", n, base), time.Since(start))
		})
	}
	t.Logf("fault outcomes:\n%s", strings.Join(table, "\n"))
}

// checkFault runs one fault case and checks its exit, messages, report,
// wire log and archived copy; it returns the run and its outcome in words.
func (e *faultEnv) checkFault(t *testing.T, tc faultCase) (*faultRun, string) {
	t.Helper()
	fr := e.run(t, tc.fault, true, tc.args...)
	outcome := "completed"
	wantCode := 0
	if tc.fails {
		wantCode = 1
		outcome = "failed: " + failureLine(fr.stderr)
	}
	if fr.code != wantCode {
		t.Errorf("exit %d, want %d\nstderr: %s", fr.code, wantCode, fr.stderr)
	}
	testkit.Mentions(t, fmt.Sprintf("stderr %q", fr.stderr), fr.stderr, tc.msg, nil)
	if fr.rep.Complete == tc.fails {
		t.Errorf("report complete = %v, want %v", fr.rep.Complete, !tc.fails)
	}
	if fr.hasWarning(report.WarnIncompleteSession) != tc.fails {
		t.Errorf("incomplete_session warning present = %v, want %v (warnings %+v)", !tc.fails, tc.fails, fr.rep.Warnings)
	}
	if len(fr.rep.Sessions) != 1 {
		t.Errorf("report lists %d sessions, want 1 (a failed session stays in the report)", len(fr.rep.Sessions))
	} else if s := fr.rep.Sessions[0]; s.Complete == tc.fails || (tc.fails && s.Error == "") {
		t.Errorf("session entry %+v: want complete=%v and the error when failed", s, !tc.fails)
	}
	if tc.rows && !slices.ContainsFunc(fr.rows(), func(r report.Row) bool { return r.TTFPMs != nil }) {
		t.Errorf("no metrics row with a TTFP among %d rows; want the metrics of what arrived", len(fr.rows()))
	}
	if tc.check != nil && fr.trace != nil {
		tc.check(t, fr)
	} else if tc.check != nil {
		t.Errorf("no wire log written")
	}
	// The upload reached the archive with the same complete flag.
	if ar, meta := e.archived(t, fr.stdout); ar == nil {
		t.Errorf("stdout %q: no upload", fr.stdout)
	} else if meta == nil || meta.Complete != fr.rep.Complete || ar.Complete != fr.rep.Complete ||
		len(ar.Metrics.Requests) != len(fr.rows()) {
		t.Errorf("archived report complete=%v (listing %+v), %d rows; want complete=%v, %d rows",
			ar.Complete, meta, len(ar.Metrics.Requests), fr.rep.Complete, len(fr.rows()))
	}
	return fr, outcome
}

// archived returns the archive's copy of the report a run uploaded (the id
// is the share URL's last element on stdout) and its listing entry.
func (e *faultEnv) archived(t *testing.T, stdout string) (*report.Report, *archive.Meta) {
	t.Helper()
	_, after, ok := strings.Cut(stdout, "uploaded → "+e.archive+"/r/")
	if !ok {
		return nil, nil
	}
	id := strings.TrimSpace(strings.SplitN(after, "\n", 2)[0])
	res, err := http.Get(e.archive + "/api/reports/" + id)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	r, err := report.Decode(b, report.DefaultLimits)
	if err != nil {
		t.Fatalf("GET /api/reports/%s: %v: %.200s", id, err, b)
	}
	var page struct {
		Reports []archive.Meta `json:"reports"`
	}
	testkit.GetJSON(t, e.archive+"/api/reports?limit=500", &page)
	if i := slices.IndexFunc(page.Reports, func(m archive.Meta) bool { return m.ID == id }); i >= 0 {
		return r, &page.Reports[i]
	}
	return r, nil
}

// failureLine is the line of run's failure summary naming the session.
func failureLine(stderr string) string {
	for _, l := range strings.Split(stderr, "\n") {
		if l = strings.TrimSpace(l); strings.HasPrefix(l, "fault/tone:") {
			return l
		}
	}
	return strings.TrimSpace(stderr)
}

// settledGoroutines waits (bounded) for the goroutine count to stop falling
// and returns it.
func settledGoroutines() int {
	http.DefaultClient.CloseIdleConnections()
	n := runtime.NumGoroutine()
	for range 50 {
		time.Sleep(20 * time.Millisecond)
		m := runtime.NumGoroutine()
		if m >= n {
			return min(n, m)
		}
		n = m
	}
	return n
}

// backToBaseline polls until at most base goroutines run (idle HTTP
// keep-alive connections are closed first: they are pooled, not leaked),
// up to d; it returns the count and, on timeout, the stacks.
func backToBaseline(base int, d time.Duration) (int, string) {
	deadline := time.Now().Add(d)
	for {
		http.DefaultClient.CloseIdleConnections()
		n := runtime.NumGoroutine()
		if n <= base {
			return n, ""
		}
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			return n, string(buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestRunFaultsMemory repeats failing runs (disconnect mid-response, error
// event, unexpected close) and checks that the live heap after GC does not
// grow with the number of runs: nothing of a finished session (wire log,
// audio, observers) is retained. No upload: the memory archive would keep
// every report by design. The simulator keeps a bounded truth per session
// (last 1 000), so a small growth per run is allowed; one retained wire log
// per run would exceed it.
func TestRunFaultsMemory(t *testing.T) {
	e := startFaultEnv(t)
	faults := []string{"disconnect_mid_response", "error_event", "unexpected_close"}
	const rounds = 4
	var heaps []uint64
	traceBytes := 0
	for i := range rounds * len(faults) {
		fr := e.run(t, faults[i%len(faults)], false)
		if fr.code != 1 || fr.rep.Complete {
			t.Fatalf("%s: exit %d complete %v, want a failed, incomplete run", fr.fault, fr.code, fr.rep.Complete)
		}
		if fr.trace != nil {
			b, _ := json.Marshal(fr.trace)
			traceBytes = max(traceBytes, len(b))
		}
		heaps = append(heaps, liveHeap())
	}
	// Growth from the end of the first round to the end of the last.
	first, last := heaps[len(faults)-1], heaps[len(heaps)-1]
	runs := (rounds - 1) * len(faults)
	growth := int64(last) - int64(first)
	perRun := float64(growth) / float64(runs)
	t.Logf("live heap after GC per run (bytes): %v; growth over the last %d runs %d B (%.0f B/run); largest wire log %d B",
		heaps, runs, growth, perRun, traceBytes)
	if traceBytes == 0 {
		t.Fatal("no wire log written")
	}
	// Bound: a quarter of one wire log per run (a retained session would
	// cost at least its wire log), plus 256 KiB of slack for runtime noise.
	if limit := float64(traceBytes)/4*float64(runs) + 256<<10; float64(growth) > limit {
		t.Errorf("live heap grew %d B over %d failing runs (%.0f B/run), limit %.0f B: something of finished sessions is retained",
			growth, runs, perRun, limit)
	}
}

// liveHeap is the heap in use after two full GCs.
func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestRunFaultsConcurrent: four sessions at once all hit a fatal fault
// (disconnect mid-response). Every one is named in the failure summary and
// listed incomplete in the report with its partial metrics; no goroutine
// outlives the run.
func TestRunFaultsConcurrent(t *testing.T) {
	e := startFaultEnv(t)
	if fr := e.run(t, "none", false); fr.code != 0 {
		t.Fatalf("warm-up run: exit %d: %s", fr.code, fr.stderr)
	}
	base := settledGoroutines()
	out := filepath.Join(t.TempDir(), "out")
	var so, se bytes.Buffer
	code := realMain([]string{"run", "--url", e.ws + "?sim_profile=test&sim_fault=disconnect_mid_response", "--model", "sim",
		"--dataset", e.multi, "--concurrency", "4", "--out", out, "--settle", "300ms", "--progress=false"}, &so, &se)
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	for i := range 4 {
		if want := fmt.Sprintf("fault/tone%d: transport dropped without session.closed", i+1); !strings.Contains(se.String(), want) {
			t.Errorf("stderr %q lacks %q", se.String(), want)
		}
	}
	raw, err := os.ReadFile(filepath.Join(out, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := report.Decode(raw, report.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Complete || len(rep.Sessions) != 4 || len(rep.Metrics.Requests) < 4 {
		t.Errorf("report complete=%v, %d sessions, %d rows; want incomplete, 4 sessions, ≥ 4 rows", rep.Complete, len(rep.Sessions), len(rep.Metrics.Requests))
	}
	for _, s := range rep.Sessions {
		if s.Complete || !strings.Contains(s.Error, "transport dropped") {
			t.Errorf("session %+v: want incomplete with the transport error", s)
		}
	}
	i := slices.IndexFunc(rep.Warnings, func(w report.Warning) bool { return w.Code == report.WarnIncompleteSession })
	if i < 0 || !strings.Contains(rep.Warnings[i].Message, "4 of 4") {
		t.Errorf("warnings %+v: want %s naming 4 of 4 sessions", rep.Warnings, report.WarnIncompleteSession)
	}
	n, leak := backToBaseline(base, 10*time.Second)
	if leak != "" {
		t.Errorf("goroutines: %d after the run, baseline %d:\n%s", n, base, leak)
	}
	t.Logf("4 concurrent disconnect_mid_response sessions: exit %d, %d rows, goroutines %d (baseline %d)", code, len(rep.Metrics.Requests), n, base)
}

// TestRunInterrupted: the run is cancelled (Ctrl-C) as soon as the
// simulator has finished the first session's first response. The run still
// writes report.json flagged incomplete, listing the interrupted session
// (with what arrived) and the samples that never ran, and exits 1; no
// goroutine outlives it.
func TestRunInterrupted(t *testing.T) {
	e := startFaultEnv(t)
	if fr := e.run(t, "none", false); fr.code != 0 {
		t.Fatalf("warm-up run: exit %d: %s", fr.code, fr.stderr)
	}
	before := map[string]bool{}
	for _, id := range e.simSessions(t) {
		before[id] = true
	}
	base := settledGoroutines()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	watched := make(chan string, 1)
	go func() { // cancel once the new session's first response is done
		defer close(watched)
		deadline := time.Now().Add(30 * time.Second)
		for time.Now().Before(deadline) && ctx.Err() == nil {
			for _, id := range e.simSessions(t) {
				if before[id] {
					continue
				}
				if tr, ok := e.sim.Truth(id); ok && len(tr.Responses) > 0 && tr.Responses[0].DoneMs != nil {
					cancel()
					watched <- id
					return
				}
			}
			time.Sleep(10 * time.Millisecond) // polling the simulator's truth, bounded by the deadline
		}
	}()
	out := filepath.Join(t.TempDir(), "out")
	var so, se bytes.Buffer
	err := runCmd(ctx, []string{"--url", e.ws + "?sim_profile=test", "--model", "sim", "--dataset", e.multi, "--out", out,
		"--settle", "300ms", "--progress=false"}, &so, &se)
	id, ok := <-watched
	if !ok || id == "" {
		t.Fatalf("the first response never finished (run: %v)", err)
	}
	if exitCode(err) != 1 {
		t.Errorf("exit %d (%v), want 1", exitCode(err), err)
	}
	raw, rerr := os.ReadFile(filepath.Join(out, "report.json"))
	if rerr != nil {
		t.Fatalf("no report.json after the interrupt: %v", rerr)
	}
	rep, derr := report.Decode(raw, report.DefaultLimits)
	if derr != nil {
		t.Fatal(derr)
	}
	t.Logf("interrupted run: %v; report complete=%v, %d sessions, %d rows", err, rep.Complete, len(rep.Sessions), len(rep.Metrics.Requests))
	for _, s := range rep.Sessions {
		t.Logf("  %s/%s complete=%v error=%q", s.Split, s.SampleID, s.Complete, s.Error)
	}
	if rep.Complete || len(rep.Metrics.Requests) < 1 {
		t.Errorf("report complete=%v with %d rows, want incomplete with the interrupted session's rows", rep.Complete, len(rep.Metrics.Requests))
	}
	if len(rep.Sessions) != 4 {
		t.Errorf("report lists %d sessions, want all 4 samples (interrupted and never run)", len(rep.Sessions))
	}
	for _, s := range rep.Sessions {
		if s.Complete || s.Error == "" {
			t.Errorf("session %s: complete=%v error %q, want incomplete with a reason", s.SampleID, s.Complete, s.Error)
		}
	}
	n, leak := backToBaseline(base, 10*time.Second)
	if leak != "" {
		t.Errorf("goroutines: %d after the run, baseline %d:\n%s", n, base, leak)
	}
}

// simSessions lists the simulator's kept session ids.
func (e *faultEnv) simSessions(t *testing.T) []string {
	res, err := http.Get(e.simURL + "/sim/sessions")
	if err != nil {
		t.Error(err)
		return nil
	}
	defer res.Body.Close()
	var v struct {
		Sessions []string `json:"sessions"`
	}
	_ = json.NewDecoder(res.Body).Decode(&v)
	return v.Sessions
}

// TestRunUploadLostAck: the archive stores `run --upload`'s report but the
// answer is lost (a gateway answers 503). run must exit non-zero saying
// where the results are; a later `run --resume --upload` of the same OUT
// re-sends it, and the archive must still hold exactly one copy.
func TestRunUploadLostAck(t *testing.T) {
	e := startFaultEnv(t)
	front := testkit.NewLossyGateway(t, e.archH)
	out := filepath.Join(t.TempDir(), "out")
	args := []string{"run", "--url", e.ws + "?sim_profile=test", "--model", "sim", "--dataset", e.dataset, "--out", out,
		"--settle", "300ms", "--progress=false", "--upload", front.URL}
	front.Lose.Store(true)
	var so, se bytes.Buffer
	if code := realMain(args, &so, &se); code == 0 || !strings.Contains(se.String(), "results are in "+out) {
		t.Fatalf("lost answer: exit %d, stderr %q; want non-zero naming %s", code, se.String(), out)
	}
	if _, err := os.Stat(filepath.Join(out, "report.json")); err != nil {
		t.Fatal(err)
	}
	count := func() int {
		page, err := e.store.List(context.Background(), archive.Filter{})
		if err != nil {
			t.Fatal(err)
		}
		return len(page.Items)
	}
	if n := count(); n != 1 {
		t.Fatalf("archive holds %d reports after the lost answer, want 1 (it stored the upload)", n)
	}
	front.Lose.Store(false)
	so.Reset()
	se.Reset()
	if code := realMain(append(args, "--resume"), &so, &se); code != 0 {
		t.Fatalf("resume upload: exit %d: %s", code, se.String())
	}
	var keys []string
	for _, p := range front.Posts() {
		keys = append(keys, p.Key)
	}
	if n := count(); n != 1 {
		t.Errorf("archive holds %d reports after the retry, want 1: the retry's Idempotency-Key %q differs from the first %q",
			n, keys[len(keys)-1], keys[0])
	}
	page, _ := e.store.List(context.Background(), archive.Filter{})
	if len(keys) != 2 || keys[0] != keys[1] || len(page.Items) == 0 || !strings.Contains(so.String(), "/r/"+page.Items[0].ID) {
		t.Errorf("POST keys %q, stdout %q: want the retry to re-send the same key and print the stored report's URL", keys, so.String())
	}
}
