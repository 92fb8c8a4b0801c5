//go:build !js

package bench

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/duplexscope/duplexscope/sim"
)

// SimChildEnv, when set in the environment, makes the bench binary serve
// the simulator instead of benchmarking (see ServeSimChild).
const SimChildEnv = "DUPLEXSCOPE_BENCH_SIM_CHILD"

// Sim is a running simulator: Base is its http://127.0.0.1:PORT origin.
type Sim struct {
	Base  string
	Pid   int // the child's pid; 0 in process
	close func() error
}

// Close stops the simulator.
func (s *Sim) Close() error { return s.close() }

// WS is the realtime websocket URL with the given simulator query.
func (s *Sim) WS(query string) string {
	u := "ws" + strings.TrimPrefix(s.Base, "http") + "/v1/realtime"
	if query != "" {
		u += "?" + query
	}
	return u
}

// simSection opens a group's section with a simulator from start; when the
// simulator does not start, the section carries the error and s is nil.
func simSection(title string, start func() (*Sim, error)) (sec *Section, s *Sim) {
	sec = &Section{Title: title}
	s, err := start()
	if err != nil {
		sec.Err = err
		return sec, nil
	}
	return sec, s
}

// StartSimInProcess serves sim.New(nil) on 127.0.0.1 in this process.
func StartSimInProcess() (*Sim, error) {
	s, err := sim.New(&sim.Options{MaxSessions: 4096}) // the capacity bench goes past the default session cap
	if err != nil {
		return nil, fmt.Errorf("bench: simulator: %w", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("bench: simulator listen: %w", err)
	}
	mux := http.NewServeMux()
	for _, p := range sim.Routes() {
		mux.Handle(p, s)
	}
	hs := &http.Server{Handler: mux}
	go hs.Serve(ln)
	return &Sim{Base: "http://" + ln.Addr().String(), close: func() error {
		s.Close()
		return hs.Close()
	}}, nil
}

// StartSimProcess re-executes this binary as a simulator child process (so
// the runner's own CPU and memory can be measured without the simulator's).
// The child exits when its stdin closes.
func StartSimProcess() (*Sim, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("bench: simulator child: %w", err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), SimChildEnv+"=1")
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("bench: simulator child: %w", err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		cmd.Process.Kill()
		return nil, fmt.Errorf("bench: simulator child did not report its address: %w", err)
	}
	return &Sim{Base: strings.TrimSpace(line), Pid: cmd.Process.Pid, close: func() error {
		stdin.Close()
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			return err
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			return errors.New("bench: simulator child did not exit; killed")
		}
	}}, nil
}

// ServeSimChild is the child side of StartSimProcess: it serves the
// simulator, prints its origin on stdout and returns when stdin closes.
func ServeSimChild() error {
	s, err := StartSimInProcess()
	if err != nil {
		return err
	}
	fmt.Println(s.Base)
	io.Copy(io.Discard, os.Stdin)
	return s.Close()
}

// GetTruth fetches a session's ground truth from the simulator at base
// (simulator monotonic ms).
func GetTruth(ctx context.Context, base, id string) (sim.Truth, error) {
	var truth sim.Truth
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/sim/sessions/"+url.PathEscape(id)+"/truth", nil)
	if err != nil {
		return truth, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return truth, fmt.Errorf("bench: truth of %s: %w", id, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return truth, fmt.Errorf("bench: truth of %s: %s", id, resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(&truth); err != nil {
		return truth, fmt.Errorf("bench: truth of %s: %w", id, err)
	}
	return truth, nil
}
