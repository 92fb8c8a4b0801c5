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
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/duplexscope/duplexscope/archive"
	"github.com/duplexscope/duplexscope/report"
	"github.com/duplexscope/duplexscope/server"
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
	const durS = 3.2
	data := makeOmniInteract(t, durS)
	simSrv, err := sim.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(server.Config{Store: archive.NewMemory(), Sim: simSrv, UploadRate: -1})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	defer func() {
		ts.Close()
		srv.Close()
		simSrv.Close()
	}()
	resDir := t.TempDir()
	var so, se bytes.Buffer
	err = runCmd(context.Background(), []string{
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
