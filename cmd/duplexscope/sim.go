//go:build !js

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/duplexscope/duplexscope/sim"
)

const simUsage = `duplexscope sim [--addr 127.0.0.1:8081] [--sim-profile NAME] [--sim-fault NAME[,NAME]]
                [--sim-event-names current|legacy] [--sim-scenario FILE] [--sim-seed N] [--sim-rtf X]
                [--sim-behavior NAME[,NAME]] [--sim-max-sessions N]

Runs the protocol-faithful duplex simulator alone:
  ws://ADDR/v1/realtime?duplex=1&model=NAME   the vLLM-Omni full-duplex websocket
  GET http://ADDR/sim/sessions/{id}/truth     ground truth of a session (server-monotonic ms)
  GET http://ADDR/sim/sessions                ids of the sessions whose truth is kept (last 1000)

Per-session websocket query parameters override the flags: sim_profile, sim_fault,
sim_event_names, sim_seed, sim_rtf, sim_behavior, sim_ttfp_ms, sim_response_ms, sim_packet_ms,
sim_turns_ms, sim_video_frame_ms (cost of one video frame, --sim-video-frame-ms).

Profiles: minicpmo (default), personaplex, test, periodic. Faults and behaviours: go doc ./sim.

Examples:
  duplexscope sim --addr 127.0.0.1:8081
  duplexscope sim --sim-profile personaplex --sim-fault no_request_metrics,slow_writer
  duplexscope sim --sim-scenario scenario.json`

func simCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("sim", simUsage, stderr)
	addr := fs.String("addr", "127.0.0.1:8081", "listen address")
	opts := sim.RegisterFlags(fs)
	if err := fs.Parse(args); err != nil {
		return flagError(err)
	}
	if fs.NArg() > 0 {
		return &exitError{code: 2, err: fmt.Errorf("sim: unexpected arguments %q", fs.Args())}
	}
	s, err := sim.New(opts)
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		_ = s.Close()
		return fmt.Errorf("sim: listen: %w", err)
	}
	return runSim(ctx, ln, s, stdout)
}

// runSim serves s on ln until ctx ends, then shuts down gracefully: live
// sessions get a 1001 close, in-flight HTTP requests finish.
func runSim(ctx context.Context, ln net.Listener, s *sim.Server, stdout io.Writer) error {
	mux := http.NewServeMux()
	for _, p := range sim.Routes() {
		mux.Handle(p, s)
	}
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(stdout, "duplexscope sim: ws://%s/v1/realtime?duplex=1  truth: http://%s/sim/sessions/{id}/truth\n", ln.Addr(), ln.Addr())
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		_ = s.Close()
		return fmt.Errorf("sim: serve: %w", err)
	case <-ctx.Done():
	}
	_ = s.Close() // ends websocket sessions (hijacked conns are not tracked by Shutdown)
	shCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(shCtx); err != nil {
		return fmt.Errorf("sim: shutdown: %w", err)
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("sim: serve: %w", err)
	}
	return nil
}
