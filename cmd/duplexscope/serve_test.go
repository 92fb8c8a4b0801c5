//go:build !js

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/duplexscope/duplexscope/internal/testkit"
	"github.com/duplexscope/duplexscope/report"
	"github.com/duplexscope/duplexscope/server"
	"github.com/duplexscope/duplexscope/server/archive"
	"github.com/duplexscope/duplexscope/sim"
)

// helperEnv makes the test binary act as `duplexscope serve` (the os/exec
// helper-process pattern): TestHelperServe runs realMain with the
// arguments in the variable and never returns while serving.
const helperEnv = "DUPLEXSCOPE_HELPER_SERVE_ARGS"

// TestHelperServe is not a test: it is the child process of TestServeCrash
// (only when helperEnv is set); otherwise it checks that the helper
// refuses to run without arguments.
func TestHelperServe(t *testing.T) {
	args := os.Getenv(helperEnv)
	if args == "" {
		if code := realMain([]string{"serve", "--db", "mysql://x"}, io.Discard, io.Discard); code != 2 {
			t.Errorf("serve with a non-postgres --db exits %d, want 2", code)
		}
		return
	}
	os.Exit(realMain(strings.Split(args, "\x1f"), os.Stdout, os.Stderr))
}

type child struct {
	cmd  *exec.Cmd
	base string
}

// startServe starts `duplexscope serve` on dataDir in a child process and
// returns its base URL.
func startServe(t *testing.T, dataDir string) *child {
	t.Helper()
	args := []string{"serve", "--addr", "127.0.0.1:0", "--data", dataDir, "--upload-rate", "-1"}
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperServe$")
	cmd.Env = append(os.Environ(), helperEnv+"="+strings.Join(args, "\x1f"))
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if l := sc.Text(); strings.HasPrefix(l, "duplexscope: serving ") {
				lines <- l
			}
		}
		close(lines)
	}()
	select {
	case l, ok := <-lines:
		if !ok {
			cmd.Wait()
			t.Fatalf("serve exited without serving: %s", stderr.String())
		}
		u := strings.Fields(strings.TrimPrefix(l, "duplexscope: serving "))[0]
		return &child{cmd: cmd, base: strings.TrimSuffix(u, "/")}
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("serve did not start within 60 s: %s", stderr.String())
	}
	return nil
}

func crashReport(t *testing.T, worker, i int) []byte {
	t.Helper()
	rows := make([]string, 20)
	for k := range rows {
		rows[k] = fmt.Sprintf(`{"session_id":"w%d-%d","request_index":%d,"response_id":"r%d","source":"client_monotonic_receive","ttft_ms":%d.5,"ttfp_ms":%d.25,"audio_generation_ms":900.0,"audio_duration_ms":1000.0,"rtf":0.9,"client_ttft_ms":1.0,"client_ttfp_ms":2.0}`, worker, i, k, k, 100+k+i, 200+k+worker)
	}
	r, err := report.New(report.Run{Model: fmt.Sprintf("crash-w%d-i%d", worker, i), Client: report.ClientCLI, FrameMs: 200,
		Source: report.Source{Kind: report.SourceMic}}, []byte(`{"duplex_request_metrics":[`+strings.Join(rows, ",")+`],"duplex_session_metrics":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	b, err := report.MarshalIndent(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

type upload struct {
	key  string
	body []byte
	id   string // set when the server answered 201
}

func post(client *http.Client, base string, u *upload) (int, string, error) {
	req, _ := http.NewRequest("POST", base+"/api/reports", bytes.NewReader(u.body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", u.key)
	resp, err := client.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	var v struct{ ID string }
	b, _ := io.ReadAll(resp.Body)
	json.Unmarshal(b, &v)
	return resp.StatusCode, v.ID, nil
}

// TestServeCrash SIGKILLs `duplexscope serve` during a burst of concurrent
// uploads; after a restart on the same data directory every upload that got
// a 201 is there and intact, and retrying the others with their
// idempotency keys stores each exactly once.
func TestServeCrash(t *testing.T) {
	dir := t.TempDir()
	c := startServe(t, dir)
	client := &http.Client{Timeout: 20 * time.Second}

	const workers = 8
	var mu sync.Mutex
	var all []*upload
	acked := 0
	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Go(func() {
			for i := 0; ctx.Err() == nil; i++ {
				u := &upload{key: fmt.Sprintf("crash-%d-%d", w, i), body: crashReport(t, w, i)}
				mu.Lock()
				all = append(all, u)
				mu.Unlock()
				code, id, err := post(client, c.base, u)
				if err != nil {
					return // the server died under us
				}
				if code == 201 {
					mu.Lock()
					u.id = id
					acked++
					mu.Unlock()
				}
			}
		})
	}
	// Kill once enough uploads were acknowledged, with more in flight.
	deadline := time.Now().Add(60 * time.Second)
	for {
		mu.Lock()
		n := acked
		mu.Unlock()
		if n >= 40 || time.Now().After(deadline) {
			break
		}
		time.Sleep(5 * time.Millisecond) // polling the counter, not hiding a race
	}
	if err := c.cmd.Process.Kill(); err != nil { // SIGKILL
		t.Fatal(err)
	}
	c.cmd.Wait()
	stop()
	wg.Wait()
	if acked < 40 {
		t.Fatalf("only %d uploads acknowledged before the deadline", acked)
	}

	c2 := startServe(t, dir)
	defer func() {
		c2.cmd.Process.Signal(os.Interrupt)
		c2.cmd.Wait()
	}()
	lost, checked := 0, 0
	for _, u := range all {
		if u.id == "" {
			continue
		}
		checked++
		resp, err := client.Get(c2.base + "/api/reports/" + u.id)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			lost++
			t.Errorf("acknowledged upload %s (%s) lost after SIGKILL: %d", u.id, u.key, resp.StatusCode)
			continue
		}
		got, err := report.Decode(b, report.DefaultLimits)
		if err != nil {
			t.Errorf("upload %s corrupt after restart: %v", u.id, err)
			continue
		}
		want, _ := report.Decode(u.body, report.DefaultLimits)
		if got.Run.Model != want.Run.Model || len(got.Metrics.Requests) != len(want.Metrics.Requests) {
			t.Errorf("upload %s changed: model %q rows %d, want %q %d", u.id, got.Run.Model, len(got.Metrics.Requests), want.Run.Model, len(want.Metrics.Requests))
		}
		for i := range want.Metrics.Requests {
			var a, b bytes.Buffer
			json.Compact(&a, want.Metrics.Requests[i].Raw())
			json.Compact(&b, got.Metrics.Requests[i].Raw())
			if a.String() != b.String() {
				t.Errorf("upload %s row %d changed", u.id, i)
				break
			}
		}
	}
	// Retrying everything with the same keys (what a client's pending
	// queue does) never duplicates and returns the acknowledged ids.
	for _, u := range all {
		code, id, err := post(client, c2.base, u)
		if err != nil || code != 201 {
			t.Fatalf("retry %s: %d %v", u.key, code, err)
		}
		if u.id != "" && id != u.id {
			t.Errorf("retry of acknowledged %s got id %s, want %s", u.key, id, u.id)
		}
	}
	resp, err := client.Get(c2.base + "/api/reports?limit=500")
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		Reports []json.RawMessage `json:"reports"`
		Next    *string           `json:"next"`
	}
	json.NewDecoder(resp.Body).Decode(&list)
	resp.Body.Close()
	if list.Next == nil && len(list.Reports) != len(all) {
		t.Errorf("%d reports stored after retries, want exactly %d (one per key)", len(list.Reports), len(all))
	}
	t.Logf("SIGKILL during a burst: %d uploads attempted, %d acknowledged, %d lost", len(all), checked, lost)
}

// TestServeGracefulShutdown: an upload in flight when SIGTERM arrives
// still gets its 201, and serve then exits 0.
func TestServeGracefulShutdown(t *testing.T) {
	dir := t.TempDir()
	c := startServe(t, dir)
	body := crashReport(t, 0, 0)
	pr, pw := io.Pipe()
	req, _ := http.NewRequest("POST", c.base+"/api/reports", pr)
	req.Header.Set("Content-Type", "application/json")
	req.ContentLength = int64(len(body))
	type result struct {
		code int
		err  error
	}
	done := make(chan result, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			done <- result{0, err}
			return
		}
		resp.Body.Close()
		done <- result{resp.StatusCode, nil}
	}()
	if _, err := pw.Write(body[:len(body)/2]); err != nil {
		t.Fatal(err)
	}
	// Wait until the server is handling the upload (in flight: it and the
	// /metrics request asking), so the signal cannot race the accept.
	for start := time.Now(); ; {
		resp, err := http.Get(c.base + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if strings.Contains(string(b), "\nduplexscope_http_requests_in_flight 2\n") {
			break
		}
		if time.Since(start) > 30*time.Second {
			t.Fatalf("upload never became in flight:\n%s", b)
		}
		time.Sleep(10 * time.Millisecond) // polling, not hiding a race
	}
	if err := c.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- c.cmd.Wait() }()
	select {
	case err := <-exited:
		t.Fatalf("serve exited with an upload in flight: %v", err)
	case <-time.After(300 * time.Millisecond): // serve must still be draining
	}
	pw.Write(body[len(body)/2:])
	pw.Close()
	if r := <-done; r.err != nil || r.code != 201 {
		t.Fatalf("in-flight upload during shutdown = %d %v, want 201", r.code, r.err)
	}
	if err := <-exited; err != nil {
		t.Errorf("serve exit after graceful shutdown: %v", err)
	}
}

// startArchive serves cfg without an upload rate limit (an in-memory
// archive when cfg.Store is nil) until the test ends.
func startArchive(t *testing.T, cfg server.Config) (*httptest.Server, *server.Server) {
	t.Helper()
	if cfg.Store == nil {
		cfg.Store = archive.NewMemory()
	}
	cfg.UploadRate = -1
	srv, err := server.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return testkit.Serve(t, srv, srv), srv
}

// startArchiveSim serves an in-memory archive and the embedded simulator,
// mounted as serve mounts them.
func startArchiveSim(t *testing.T) *httptest.Server {
	t.Helper()
	simSrv, err := sim.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { simSrv.Close() }) // after the server (cleanups run last first)
	ts, _ := startArchive(t, server.Config{Sim: simSrv})
	return ts
}

// TestShardedRunUpload: two `duplexscope run --run-id R --shard i/2
// --upload` processes report to one server (archive + embedded simulator,
// mounted as serve mounts them); the server merges them into one run whose
// run-level statistics are recomputed from the pooled per-response rows.
func TestShardedRunUpload(t *testing.T) {
	t.Parallel()
	ts := startArchiveSim(t)
	ws := "ws" + strings.TrimPrefix(ts.URL, "http") + "/v1/realtime"
	outs := make([]string, 2)
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i := range 2 {
		outs[i] = t.TempDir() + "/out"
		wg.Go(func() {
			var so, se bytes.Buffer
			errs[i] = runCmd(context.Background(), []string{"--url", ws, "--model", "sim", "--dataset", "builtin", "--limit", "2",
				"--out", outs[i], "--settle", "500ms", "--progress=false", "--upload", ts.URL, "--run-id", "nightly", "--shard", fmt.Sprintf("%d/2", i+1)}, &so, &se)
			if errs[i] != nil {
				errs[i] = fmt.Errorf("%v\n%s", errs[i], se.String())
			}
		})
	}
	wg.Wait()
	var pooled []float64
	rows := 0
	for i, err := range errs {
		if err != nil {
			t.Fatalf("shard %d: %v", i+1, err)
		}
		b, err := os.ReadFile(outs[i] + "/report.json")
		if err != nil {
			t.Fatal(err)
		}
		r, err := report.Decode(b, report.DefaultLimits)
		if err != nil {
			t.Fatal(err)
		}
		rows += len(r.Metrics.Requests)
		pooled = append(pooled, report.Values(r.Metrics.Requests, "ttfp_ms")...)
	}
	resp, err := http.Get(ts.URL + "/api/runs/nightly")
	if err != nil {
		t.Fatal(err)
	}
	var run server.RunResponse
	json.NewDecoder(resp.Body).Decode(&run)
	resp.Body.Close()
	if !run.Final || run.ShardCount != 2 || len(run.ShardsReceived) != 2 || len(run.Report.Metrics.Requests) != rows || rows < 2 {
		t.Fatalf("merged run: final %v count %d received %v rows %d (want %d ≥ 2)", run.Final, run.ShardCount, run.ShardsReceived, len(run.Report.Metrics.Requests), rows)
	}
	want := report.Summarize(pooled, 3)
	m := run.Report.Metrics
	if m.NumResponseTTFP == nil || *m.NumResponseTTFP != want.Count || *m.MeanResponseTTFP != want.Mean || *m.P99ResponseTTFP != want.P99 {
		t.Errorf("merged TTFP keys %v/%v/%v, want pooled %+v", m.NumResponseTTFP, m.MeanResponseTTFP, m.P99ResponseTTFP, want)
	}
	resp, err = http.Get(ts.URL + "/runs/nightly")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(page), "Shards received: 2 of 2 — final") {
		t.Errorf("run page = %d, lacks the final shard status", resp.StatusCode)
	}
	// The two shard uploads compare (same model, frame and dataset: comparable).
	resp, err = http.Get(ts.URL + "/compare?ids=" + run.ShardIDs[0] + "," + run.ShardIDs[1])
	if err != nil {
		t.Fatal(err)
	}
	page, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || strings.Contains(string(page), `id="incomparable"`) {
		t.Errorf("compare of the shards = %d (incomparable banner: %v)", resp.StatusCode, strings.Contains(string(page), `id="incomparable"`))
	}
}
