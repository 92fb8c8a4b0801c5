//go:build !js

package main

import (
	"bytes"
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/duplexscope/duplexscope/sim"
)

// TestSimGracefulShutdown: cancelling the context ends a live session with
// close 1001 and runSim returns nil.
func TestSimGracefulShutdown(t *testing.T) {
	s, err := sim.New(&sim.Options{Profile: sim.ProfileTest})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var out bytes.Buffer
	done := make(chan error, 1)
	go func() { done <- runSim(ctx, ln, s, &out) }()

	tctx, tcancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer tcancel()
	conn, _, err := websocket.Dial(tctx, "ws://"+ln.Addr().String()+"/v1/realtime?duplex=1&autostart=0&model=m", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := conn.Write(tctx, websocket.MessageText, []byte(`{"type":"session.update","session":{}}`)); err != nil {
		t.Fatal(err)
	}
	if _, b, err := conn.Read(tctx); err != nil || !strings.Contains(string(b), `"session.created"`) {
		t.Fatalf("%s %v", b, err)
	}
	cancel()
	var ce websocket.CloseError
	for {
		if _, _, err = conn.Read(tctx); err != nil {
			break
		}
	}
	if !errors.As(err, &ce) || ce.Code != websocket.StatusGoingAway {
		t.Errorf("close: %v, want 1001", err)
	}
	if err := <-done; err != nil {
		t.Errorf("runSim: %v", err)
	}
	if !strings.Contains(out.String(), "/v1/realtime") {
		t.Errorf("banner %q", out.String())
	}
}

func TestSimBadFlags(t *testing.T) {
	var stderr bytes.Buffer
	err := simCmd(context.Background(), []string{"--sim-profile", "nope"}, &bytes.Buffer{}, &stderr)
	var ee *exitError
	if !errors.As(err, &ee) || ee.code != 2 {
		t.Errorf("err %v", err)
	}
}
