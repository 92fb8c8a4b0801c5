//go:build security && linux

package security

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// binary is the duplexscope binary built once by TestMain.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "duplexscope-security-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "duplexscope")
	build := exec.Command("go", "build", "-o", binary, "./cmd/duplexscope")
	build.Dir = filepath.Join("..", "..")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "security: building duplexscope:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// Server is one `duplexscope serve` subprocess.
type Server struct {
	URL  string // http://127.0.0.1:PORT (no trailing slash)
	Addr string // 127.0.0.1:PORT
	Data string // its --data directory
	cmd  *exec.Cmd
	log  *syncBuffer
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// Start runs `duplexscope serve --addr 127.0.0.1:0 --data TMP args...` and
// waits until it serves /healthz. Pass --addr or --data in args to override
// (later flags win). The process is killed at the end of the test.
func Start(t testing.TB, args ...string) *Server {
	t.Helper()
	s, err := start(t, args...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// StartErr runs serve and returns the error (with its stderr) when the
// process exits before serving, e.g. a refused listen address.
func StartErr(t testing.TB, args ...string) (*Server, error) {
	t.Helper()
	return start(t, args...)
}

func start(t testing.TB, args ...string) (*Server, error) {
	data := t.TempDir()
	full := append([]string{"serve", "--addr", "127.0.0.1:0", "--data", data, "--upload-rate", "-1"}, args...)
	cmd := exec.Command(binary, full...)
	cmd.Env = append(os.Environ(), "DUPLEXSCOPE_WRITE_TOKEN=")
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	logs := &syncBuffer{}
	cmd.Stderr = logs
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &Server{Data: data, cmd: cmd, log: logs}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-exited
		if t.Failed() {
			t.Logf("server log:\n%s", tail(logs.String(), 4000))
		}
	})
	lines := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
		io.Copy(io.Discard, out)
	}()
	deadline := time.After(60 * time.Second)
	for s.URL == "" {
		select {
		case l, ok := <-lines:
			if !ok {
				err := <-exited
				exited <- err
				return nil, fmt.Errorf("serve %q exited before serving (%v): %s", args, err, logs.String())
			}
			if i := strings.Index(l, "serving http://"); i >= 0 {
				u := strings.Fields(l[i+len("serving "):])[0]
				s.URL = strings.TrimSuffix(u, "/")
				s.Addr = strings.TrimPrefix(s.URL, "http://")
			}
		case <-deadline:
			return nil, fmt.Errorf("serve %q printed no URL in 60 s: %s", args, logs.String())
		}
	}
	go func() {
		for range lines {
		}
	}()
	for i := 0; ; i++ {
		resp, err := http.Get(s.URL + "/healthz")
		if err == nil {
			resp.Body.Close()
			break
		}
		if i > 200 {
			return nil, fmt.Errorf("healthz never answered: %v", err)
		}
		time.Sleep(50 * time.Millisecond) // polling a subprocess start, not hiding a race
	}
	return s, nil
}

// Log is what the server wrote to stderr so far.
func (s *Server) Log() string { return s.log.String() }

// Pid is the server's process id.
func (s *Server) Pid() int { return s.cmd.Process.Pid }

// RSS is the server's resident set size in bytes now (VmRSS).
func (s *Server) RSS() int64 { return procStatusKB(s.Pid(), "VmRSS") * 1024 }

// PeakRSS is the server's peak resident set size in bytes (VmHWM).
func (s *Server) PeakRSS() int64 { return procStatusKB(s.Pid(), "VmHWM") * 1024 }

// CPU is the server's user+system CPU time so far.
func (s *Server) CPU() time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", s.Pid()))
	if err != nil {
		return 0
	}
	// Fields after the ")" that ends comm: state is field 3, utime 14, stime 15.
	rest := string(b[bytes.LastIndexByte(b, ')')+2:])
	f := strings.Fields(rest)
	if len(f) < 13 {
		return 0
	}
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * time.Second / 100 // USER_HZ is 100 on Linux
}

func procStatusKB(pid int, key string) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, key+":"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n
		}
	}
	return 0
}

// Sampler records the server's peak RSS and its CPU time over an attack.
type Sampler struct {
	s       *Server
	stop    chan struct{}
	done    chan struct{}
	cpu0    time.Duration
	mu      sync.Mutex
	maxRSS  int64
	started time.Time
}

// Sample starts sampling RSS every 20 ms until Stop.
func (s *Server) Sample() *Sampler {
	sm := &Sampler{s: s, stop: make(chan struct{}), done: make(chan struct{}), cpu0: s.CPU(), started: time.Now()}
	go func() {
		defer close(sm.done)
		tk := time.NewTicker(20 * time.Millisecond)
		defer tk.Stop()
		for {
			r := s.RSS()
			sm.mu.Lock()
			sm.maxRSS = max(sm.maxRSS, r)
			sm.mu.Unlock()
			select {
			case <-sm.stop:
				return
			case <-tk.C:
			}
		}
	}()
	return sm
}

// Usage is what a Sampler saw.
type Usage struct {
	MaxRSS int64         // bytes
	CPU    time.Duration // server CPU time spent while sampling
	Wall   time.Duration
}

func (u Usage) String() string {
	return fmt.Sprintf("max RSS %.1f MiB, CPU %v over %v", float64(u.MaxRSS)/(1<<20), u.CPU.Round(time.Millisecond), u.Wall.Round(time.Millisecond))
}

// Stop ends sampling and returns what it saw.
func (sm *Sampler) Stop() Usage {
	close(sm.stop)
	<-sm.done
	sm.mu.Lock()
	defer sm.mu.Unlock()
	return Usage{MaxRSS: max(sm.maxRSS, sm.s.RSS()), CPU: sm.s.CPU() - sm.cpu0, Wall: time.Since(sm.started)}
}

// Request is one HTTP request; Header values are set as given (Host too).
type Request struct {
	Method string
	Path   string // appended to s.URL; may hold a query
	Header map[string]string
	Body   []byte
}

// Do sends req and returns the response with its body read (at most 64 MiB).
func (s *Server) Do(t testing.TB, req Request) (*http.Response, []byte) {
	t.Helper()
	resp, body, err := s.DoErr(req)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.Path, err)
	}
	return resp, body
}

// DoErr is Do that returns transport errors instead of failing.
func (s *Server) DoErr(req Request) (*http.Response, []byte, error) {
	if req.Method == "" {
		req.Method = http.MethodGet
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var body io.Reader
	if req.Body != nil {
		body = bytes.NewReader(req.Body)
	}
	r, err := http.NewRequestWithContext(ctx, req.Method, s.URL+req.Path, body)
	if err != nil {
		return nil, nil, err
	}
	for k, v := range req.Header {
		if strings.EqualFold(k, "Host") {
			r.Host = v
			continue
		}
		r.Header.Set(k, v)
	}
	resp, err := noRedirect.Do(r)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	return resp, b, err
}

var noRedirect = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// Attack logs one row of the attack table: `ATTACK item | what | result`.
// `make security` greps these rows into the closing-note table.
func Attack(t testing.TB, item, what, result string) {
	t.Helper()
	t.Logf("ATTACK %s | %s | %s", item, what, result)
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}
