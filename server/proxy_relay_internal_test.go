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
