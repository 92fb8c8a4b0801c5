//go:build !js

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/duplexscope/duplexscope/dataset"
	"github.com/duplexscope/duplexscope/report"
	"github.com/duplexscope/duplexscope/sim"
)

// makeOmniInteract writes a one-case OmniInteract directory (the reference
// layout, data/1q1a/video_json_map.json) whose video is durS seconds of
// ffmpeg's test pattern with a tone soundtrack.
func makeOmniInteract(t *testing.T, durS float64) string {
	t.Helper()
	if _, err := exec.LookPath("ffmpeg"); err != nil {
		t.Fatal("ffmpeg is required (Debian: apt-get install ffmpeg)")
	}
	root := t.TempDir()
	dir := filepath.Join(root, "data", "1q1a")
	for _, d := range []string{"videos", "annotations"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("ffmpeg", "-nostdin", "-v", "error", "-f", "lavfi", "-i", fmt.Sprintf("testsrc2=size=160x120:rate=4:duration=%g", durS),
		"-f", "lavfi", "-i", fmt.Sprintf("sine=frequency=300:sample_rate=16000:duration=%g", durS),
		"-c:v", "libx264", "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest", filepath.Join(dir, "videos", "case.mp4"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("ffmpeg: %v: %s", err, out)
	}
	os.WriteFile(filepath.Join(dir, "annotations", "case.json"), []byte(`{}`), 0o644)
	os.WriteFile(filepath.Join(dir, "video_json_map.json"), []byte(`{"entries":[{"video":"videos/case.mp4","annotation":"annotations/case.json","scene_type":"single_turn"}]}`), 0o644)
	return root
}

// TestRunOmniInteractVideo is issue 19's "done when": a vLLM command line
// (--dataset-name omniinteract --dataset-path DIR --save-result …) against
// the simulator sends the video's frames at OmniInteract's boundaries
// (checked against the simulator's truth), writes a result file with
// vLLM's top-level keys and the reference session id, and the file imports
// into a share page.
func TestRunOmniInteractVideo(t *testing.T) {
	t.Parallel()
	const durS = 3.2
	data := makeOmniInteract(t, durS)
	ts := startArchiveSim(t)
	resDir := t.TempDir()
	var so, se bytes.Buffer
	err := runCmd(context.Background(), []string{
		"--base-url", "ws" + strings.TrimPrefix(ts.URL, "http"), "--endpoint", "/v1/realtime?sim_turns_ms=1500",
		"--model", "openbmb/MiniCPM-o-4_5", "--backend", "openai-realtime-duplex",
		"--dataset-name", "omniinteract", "--dataset-path", data, "--num-prompts", "1", "--max-concurrency", "1",
		"--save-result", "--result-dir", resDir, "--result-filename", "omni.json",
		"--settle", "300ms", "--progress=false"}, &so, &se)
	if err != nil {
		t.Fatalf("run: %v\n%s\n%s", err, so.String(), se.String())
	}
	if !strings.Contains(so.String(), "Duplex Per-Response Latency") {
		t.Errorf("stdout lacks the reference's console block:\n%s", so.String())
	}

	// The result file: vLLM's keys, in vLLM's order, then "duplexscope".
	b, err := os.ReadFile(filepath.Join(resDir, "omni.json"))
	if err != nil {
		t.Fatal(err)
	}
	keys := topKeys(t, b)
	var want []string
	for _, k := range report.SaveResultKeys {
		if contains(keys, k) || !report.SaveResultConditional[k] {
			want = append(want, k)
		}
	}
	want = append(want, "duplexscope")
	if strings.Join(keys, " ") != strings.Join(want, " ") {
		t.Errorf("result keys\n got %v\nwant %v", keys, want)
	}
	for _, k := range []string{"duplex_request_metrics", "duplex_session_metrics", "omniinteract"} {
		if !contains(keys, k) {
			t.Errorf("result lacks %s", k)
		}
	}
	var res struct {
		Completed int `json:"completed"`
		Sessions  []struct {
			SessionID string `json:"session_id"`
		} `json:"duplex_session_metrics"`
		DS struct {
			PacingMean *float64 `json:"pacing_mean_lag_s"`
			PacingMax  *float64 `json:"pacing_max_lag_s"`
			Out        string   `json:"out"`
			Sessions   []struct {
				SessionID       string   `json:"session_id"`
				ServerSessionID string   `json:"server_session_id"`
				VideoFramesSent int      `json:"video_frames_sent"`
				PacingMean      *float64 `json:"pacing_mean_lag_s"`
			} `json:"sessions"`
		} `json:"duplexscope"`
	}
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	idRE := regexp.MustCompile(`^omniinteract:1q1a:bench-[0-9a-f]{8}-0:[0-9]+$`)
	if res.Completed != 1 || len(res.Sessions) != 1 || !idRE.MatchString(res.Sessions[0].SessionID) || len(res.DS.Sessions) != 1 ||
		res.DS.Sessions[0].SessionID != res.Sessions[0].SessionID || !strings.HasPrefix(res.DS.Sessions[0].ServerSessionID, "duplex-") {
		t.Fatalf("sessions: %+v / %+v", res.Sessions, res.DS.Sessions)
	}
	if res.DS.PacingMean == nil || res.DS.PacingMax == nil || *res.DS.PacingMax < *res.DS.PacingMean || res.DS.Sessions[0].PacingMean == nil {
		t.Errorf("pacing figures missing: %+v", res.DS)
	}

	// The frames rode the appends OmniInteract's rule names: frame k on
	// the first 200 ms append whose end_ms ≥ (k+0.5)·1000, as the
	// simulator saw them. Of ceil(3.2 s) = 4 slots the video has a frame
	// at t ≥ k+0.5 s only for k < 2.7: the empty 4th slot is skipped, as the
	// reference skips it.
	var wantTruth []sim.TruthVideoFrame
	frames := 0
	for k := 0; k < int(math.Ceil(durS)) && float64(k)+0.5 < durS; k++ {
		frames++
		idx := int(math.Ceil((float64(k)+0.5)*1000/200)) - 1
		wantTruth = append(wantTruth, sim.TruthVideoFrame{AppendIndex: idx, AudioEndMs: int64(idx+1) * 200})
	}
	resp, err := http.Get(ts.URL + "/sim/sessions/" + res.DS.Sessions[0].ServerSessionID + "/truth")
	if err != nil {
		t.Fatal(err)
	}
	tb, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var truth sim.Truth
	if err := json.Unmarshal(tb, &truth); err != nil {
		t.Fatalf("truth: %v: %s", err, tb)
	}
	gw, _ := json.Marshal(wantTruth)
	gt, _ := json.Marshal(truth.VideoFrames)
	if string(gw) != string(gt) || truth.VideoFramesReceived != frames || res.DS.Sessions[0].VideoFramesSent != frames {
		t.Errorf("frames: truth %s (%d received), sent %d; want %s", gt, truth.VideoFramesReceived, res.DS.Sessions[0].VideoFramesSent, gw)
	}

	// report.json counts them too; the wire log keeps digests, not bytes.
	rb, _ := os.ReadFile(filepath.Join(res.DS.Out, "report.json"))
	r, err := report.Decode(rb, report.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Sessions) != 1 || r.Sessions[0].VideoFramesSent != frames || r.Sessions[0].SessionID != res.Sessions[0].SessionID {
		t.Errorf("report sessions %+v", r.Sessions)
	}
	wl, _ := os.ReadFile(filepath.Join(res.DS.Out, "traces", r.Sessions[0].WireLog))
	if !bytes.Contains(wl, []byte(`"video_frames":[{"bytes":`)) || bytes.Contains(wl, []byte(`"video_frames":["`)) {
		t.Errorf("wire log does not replace the frame bytes by digests")
	}

	// replay re-scores the wire log into the archived rows (the reference
	// session id included).
	var rpb, rpe bytes.Buffer
	if err := replayCmd(context.Background(), []string{"--run", filepath.Join(res.DS.Out, "traces")}, &rpb, &rpe); err != nil {
		t.Fatal(err)
	}
	replayed := readDMBytes(t, rpb.Bytes())
	archivedDM := readDM(t, res.DS.Out)
	if len(replayed.Requests) == 0 || len(replayed.Requests) != len(archivedDM.Requests) {
		t.Fatalf("replay gives %d rows, duplex_metrics.json %d", len(replayed.Requests), len(archivedDM.Requests))
	}
	for i := range replayed.Requests {
		if compact(replayed.Requests[i]) != compact(archivedDM.Requests[i]) || !strings.Contains(compact(replayed.Requests[i]), res.Sessions[0].SessionID) {
			t.Errorf("replayed row %s\n archived %s", replayed.Requests[i], archivedDM.Requests[i])
		}
	}

	// The result file imports into a share page.
	ir, err := http.Post(ts.URL+"/api/import", "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	ib, _ := io.ReadAll(ir.Body)
	ir.Body.Close()
	var created struct{ ID, URL string }
	if ir.StatusCode != http.StatusCreated || json.Unmarshal(ib, &created) != nil || created.URL == "" {
		t.Fatalf("import = %d %s", ir.StatusCode, ib)
	}
	pg, err := http.Get(ts.URL + created.URL)
	if err != nil {
		t.Fatal(err)
	}
	pg.Body.Close()
	if pg.StatusCode != http.StatusOK {
		t.Errorf("share page %s = %d", created.URL, pg.StatusCode)
	}
	gb, _ := http.Get(ts.URL + "/api/reports/" + created.ID)
	ab, _ := io.ReadAll(gb.Body)
	gb.Body.Close()
	ir2, err := report.Decode(ab, report.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	if ir2.Imported == nil || ir2.Imported.Format != report.FormatSaveResult || ir2.Run.Model != "openbmb/MiniCPM-o-4_5" || len(ir2.Metrics.Sessions) != 1 {
		t.Errorf("imported %+v model %q sessions %d", ir2.Imported, ir2.Run.Model, len(ir2.Metrics.Sessions))
	}
	// format=vllm-result exports it back: the same keys in the same order
	// (the duplex lists as rows the archive re-serialises).
	eb, err := http.Get(ts.URL + "/api/reports/" + created.ID + "/export?format=vllm-result")
	if err != nil {
		t.Fatal(err)
	}
	xb, _ := io.ReadAll(eb.Body)
	eb.Body.Close()
	if eb.StatusCode != http.StatusOK {
		t.Fatalf("export = %d %s", eb.StatusCode, xb)
	}
	if got := topKeys(t, xb); strings.Join(got, " ") != strings.Join(keys, " ") {
		t.Errorf("exported keys\n got %v\nwant %v", got, keys)
	}
	var orig, back map[string]any
	json.Unmarshal(b, &orig)
	json.Unmarshal(xb, &back)
	for _, k := range []string{"date", "model_id", "completed", "duration", "duplex_stream_ttfp_ms", "omniinteract", "duplexscope"} {
		ob, _ := json.Marshal(orig[k])
		bb, _ := json.Marshal(back[k])
		if string(ob) != string(bb) {
			t.Errorf("export %s = %s, imported %s", k, bb, ob)
		}
	}
}

func topKeys(t *testing.T, b []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not an object: %v", err)
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestRunVLLMFlags: vLLM's spellings map onto run's own options.
func TestRunVLLMFlags(t *testing.T) {
	t.Parallel()
	base := []string{"--model", "m"}
	tests := []struct {
		name  string
		args  []string
		check func(o *runOptions) bool
		err   string
	}{
		{"base url and endpoint", []string{"--base-url", "http://gpu:8000/", "--endpoint", "/v1/realtime", "--dataset", "builtin", "--out", "o"},
			func(o *runOptions) bool { return o.URL == "http://gpu:8000/v1/realtime" }, ""},
		{"host and port", []string{"--host", "10.0.0.2", "--port", "9000", "--dataset", "builtin", "--out", "o"},
			func(o *runOptions) bool { return o.URL == "http://10.0.0.2:9000/v1/realtime" }, ""},
		{"num prompts and concurrency", []string{"--url", "ws://h", "--dataset-path", "d", "--num-prompts", "7", "--max-concurrency", "3", "--out", "o"},
			func(o *runOptions) bool { return o.Limit == 7 && o.Concurrency == 3 && o.Dataset == "d" }, ""},
		{"omniinteract default of 3", []string{"--url", "ws://h", "--dataset-name", "omniinteract", "--dataset-path", "d", "--out", "o"},
			func(o *runOptions) bool { return o.Limit == 3 }, ""},
		{"num prompts 0 is all", []string{"--url", "ws://h", "--dataset-name", "omniinteract", "--dataset-path", "d", "--num-prompts", "0", "--out", "o"},
			func(o *runOptions) bool { return o.Limit == 0 }, ""},
		{"save result without --out", []string{"--url", "ws://h", "--dataset", "builtin", "--save-result", "--result-dir", "rd"},
			func(o *runOptions) bool {
				return strings.HasPrefix(o.Out, filepath.Join("rd", "duplexscope-")) && o.vllmSpellings.SaveResult
			}, ""},
		{"request id prefix default", []string{"--url", "ws://h", "--dataset", "builtin", "--out", "o"},
			func(o *runOptions) bool {
				return regexp.MustCompile(`^bench-[0-9a-f]{8}-$`).MatchString(o.vllmSpellings.RequestIDPrefix)
			}, ""},
		{"frame given", []string{"--url", "ws://h", "--dataset", "builtin", "--out", "o", "--frame-ms", "200"},
			func(o *runOptions) bool { return o.FrameGiven }, ""},
		{"frame default", []string{"--url", "ws://h", "--dataset", "builtin", "--out", "o"},
			func(o *runOptions) bool { return !o.FrameGiven && o.FrameMs == 200 }, ""},
		{"bad dataset name", []string{"--url", "ws://h", "--dataset-name", "sharegpt", "--dataset", "d", "--out", "o"}, nil, "--dataset-name"},
		{"omniinteract needs a path", []string{"--url", "ws://h", "--dataset-name", "omniinteract", "--out", "o"}, nil, "--dataset-path"},
		{"zero concurrency", []string{"--url", "ws://h", "--dataset", "builtin", "--out", "o", "--max-concurrency", "0"}, nil, "greater than 0"},
		{"finite request rate", []string{"--url", "ws://h", "--dataset", "builtin", "--out", "o", "--request-rate", "4"}, nil, "only inf"},
		{"other backend", []string{"--url", "ws://h", "--dataset", "builtin", "--out", "o", "--backend", "openai-chat"}, nil, "openai-realtime-duplex"},
		{"bad metadata", []string{"--url", "ws://h", "--dataset", "builtin", "--out", "o", "--metadata", "x"}, nil, "KEY=VALUE"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			o, err := parseRunFlags(append(append([]string(nil), base...), tc.args...), io.Discard)
			switch {
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Fatalf("err %v, want one naming %q", err, tc.err)
			case tc.err == "" && err != nil:
				t.Fatal(err)
			case tc.err == "" && !tc.check(o):
				t.Errorf("options %+v", o)
			}
		})
	}
}

// TestSessionIDFor: the reference's session ids per dataset kind.
func TestSessionIDFor(t *testing.T) {
	t.Parallel()
	o := &runOptions{}
	o.vllmSpellings.RequestIDPrefix = "bench-5eb902d6-"
	tests := []struct {
		s    dataset.Sample
		idx  int
		want string // regexp
	}{
		{dataset.Sample{SampleID: "videos/a.mp4", Split: "1q1a", Kind: dataset.KindOmniInteract}, 0, `^omniinteract:1q1a:bench-5eb902d6-0:[0-9]+$`},
		{dataset.Sample{SampleID: "b.mp4", Split: "1qna", Kind: dataset.KindOmniInteract}, 12, `^omniinteract:1qna:bench-5eb902d6-12:[0-9]+$`},
		{dataset.Sample{SampleID: "560", Split: "RTD_OCR", Kind: dataset.KindDuplexEval}, 3, `^560$`},
		{dataset.Sample{SampleID: "greeting", Split: "builtin"}, 0, `^$`}, // the server's id stays
	}
	for _, tc := range tests {
		if got := sessionIDFor(o, &tc.s, tc.idx); !regexp.MustCompile(tc.want).MatchString(got) {
			t.Errorf("%s/%s: %q, want %s", tc.s.Split, tc.s.SampleID, got, tc.want)
		}
	}
	a := sessionIDFor(o, &tests[0].s, 0)
	b := sessionIDFor(o, &tests[0].s, 0)
	if a == b {
		t.Errorf("two sessions got the same monotonic_ns id %q", a)
	}
}

// TestRunTickAwareFraming: with no --frame-ms the PersonaPlex profile's
// 80 ms tick becomes the append size; a given 200 ms disagrees with it and
// is warned about in the console and the report.
func TestRunTickAwareFraming(t *testing.T) {
	t.Parallel()
	_, ws := startSim(t)
	tests := []struct {
		name      string
		extra     []string
		wantFrame int
		wantWarn  bool
	}{
		{"tick replaces the default", nil, 80, false},
		{"given size disagrees", []string{"--frame-ms", "200"}, 200, true},
		{"given size agrees", []string{"--frame-ms", "160"}, 160, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			out := filepath.Join(t.TempDir(), "out")
			stdout := mustRun(t, append([]string{"--url", ws + "?sim_profile=personaplex&sim_response_ms=1000", "--model", "sim", "--dataset", "builtin", "--limit", "1",
				"--out", out, "--settle", "300ms", "--progress=false"}, tc.extra...)...)
			r := readReport(t, filepath.Join(out, "report.json"))
			warned := false
			for _, w := range r.Warnings {
				warned = warned || w.Code == report.WarnFrameTick
			}
			tb, _ := os.ReadFile(filepath.Join(out, "traces", r.Sessions[0].WireLog))
			var tr struct {
				Session struct {
					DS struct {
						FrameMs int `json:"frame_ms"`
					} `json:"duplexscope"`
				} `json:"session"`
			}
			json.Unmarshal(tb, &tr)
			if tr.Session.DS.FrameMs != tc.wantFrame || warned != tc.wantWarn || strings.Contains(stdout, "run: warning: The frame size") != tc.wantWarn {
				t.Errorf("frame %d, report warning %v, stdout:\n%s", tr.Session.DS.FrameMs, warned, stdout)
			}
		})
	}
}

// TestRunDuplexEvalVideo: an Omni-DuplexEval record with a video streams
// 1 000 ms units, frame k (the picture at t = k s) on the append that first
// reaches 1030 + 1000·k ms, and the session id is the sample id.
func TestRunDuplexEvalVideo(t *testing.T) {
	t.Parallel()
	root := makeOmniInteract(t, 3.2) // reuse its clip
	video := filepath.Join(root, "data", "1q1a", "videos", "case.mp4")
	recs := filepath.Join(t.TempDir(), "duplexeval.jsonl")
	os.WriteFile(recs, []byte(`{"sample_id":"560","split":"RTD_OCR","video":"`+video+`"}`+"\n"), 0o644)
	ts, ws := startSim(t)
	out := filepath.Join(t.TempDir(), "out")
	mustRun(t, "--url", ws+"?sim_turns_ms=1500", "--model", "sim",
		"--dataset-name", "omni-duplex-eval", "--dataset-path", recs, "--out", out, "--settle", "300ms", "--progress=false")
	r := readReport(t, filepath.Join(out, "report.json"))
	if len(r.Sessions) != 1 || r.Sessions[0].SessionID != "560" || r.Sessions[0].ServerSessionID == "" {
		t.Fatalf("sessions %+v", r.Sessions)
	}
	// 4 s of padded soundtrack in 1 000 ms units, the last one a sample
	// short (the final-commit tail rule): appends end at 1000, 2000, 3000, 3999 ms.
	ends := []int64{1000, 2000, 3000, 3999}
	var want []sim.TruthVideoFrame
	for k := 0; k < 4; k++ {
		for i, e := range ends {
			if float64(e) >= 1030+1000*float64(k) {
				want = append(want, sim.TruthVideoFrame{AppendIndex: i, AudioEndMs: e})
				break
			}
		}
	}
	resp, err := http.Get(ts.URL + "/sim/sessions/" + r.Sessions[0].ServerSessionID + "/truth")
	if err != nil {
		t.Fatal(err)
	}
	var truth sim.Truth
	json.NewDecoder(resp.Body).Decode(&truth)
	resp.Body.Close()
	gw, _ := json.Marshal(want)
	gt, _ := json.Marshal(truth.VideoFrames)
	if string(gw) != string(gt) || r.Sessions[0].VideoFramesSent != len(want) {
		t.Errorf("frames: truth %s, sent %d; want %s", gt, r.Sessions[0].VideoFramesSent, gw)
	}
}

func readDMBytes(t *testing.T, b []byte) dmFile {
	t.Helper()
	var d dmFile
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	return d
}
