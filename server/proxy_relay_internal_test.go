//go:build !js

package server

import (
	"context"
	"fmt"
	"io"
	"testing"

	"github.com/coder/websocket"
)

// TestRelayCloseCause: a peer's close frame passes on as it came; without
// one the proxy names the side that ended (upstream 1014, client or
// shutdown 1001).
func TestRelayCloseCause(t *testing.T) {
	for _, tc := range []struct {
		name       string
		err        error
		upstream   bool
		wantCode   websocket.StatusCode
		wantReason string
	}{
		{"upstream close frame", fmt.Errorf("read: %w", websocket.CloseError{Code: 4001, Reason: "bye"}), true, 4001, "bye"},
		{"client close frame", websocket.CloseError{Code: websocket.StatusNormalClosure, Reason: "done"}, false, websocket.StatusNormalClosure, "done"},
		{"upstream dropped", io.EOF, true, websocket.StatusBadGateway, "proxy: upstream dropped the connection without a close frame"},
		{"upstream no status", websocket.CloseError{Code: websocket.StatusNoStatusRcvd}, true, websocket.StatusBadGateway, "proxy: upstream dropped the connection without a close frame"},
		{"client dropped", websocket.CloseError{Code: websocket.StatusAbnormalClosure, Reason: "x"}, false, websocket.StatusGoingAway, "proxy: client went away"},
		{"shutdown", fmt.Errorf("read: %w", context.Canceled), true, websocket.StatusGoingAway, "proxy: shutting down"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, reason := relayCloseCause(tc.err, tc.upstream)
			if code != tc.wantCode || reason != tc.wantReason {
				t.Errorf("relayCloseCause(%v, %v) = %v %q, want %v %q", tc.err, tc.upstream, code, reason, tc.wantCode, tc.wantReason)
			}
		})
	}
}

// TestPumpEndSide: a pump's read error is its source side's end; its write
// error is the other side's.
func TestPumpEndSide(t *testing.T) {
	for _, tc := range []struct {
		fromUp, write, want bool
	}{
		{fromUp: true, write: false, want: true},
		{fromUp: true, write: true, want: false},
		{fromUp: false, write: false, want: false},
		{fromUp: false, write: true, want: true},
	} {
		if got := (pumpEnd{fromUp: tc.fromUp, write: tc.write}).upstream(); got != tc.want {
			t.Errorf("pumpEnd{fromUp: %v, write: %v}.upstream() = %v, want %v", tc.fromUp, tc.write, got, tc.want)
		}
	}
}
