//go:build !js

package server_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/duplexscope/duplexscope/server"
)

// TestProxyDialFailureClose: with close_errors=1 (what the page asks for,
// since a browser hides a failed upgrade's HTTP answer), an allowed target
// that cannot be reached is reported as a websocket close whose code and
// reason name the cause; a target that is not allowed still gets the
// generic 403 before any upgrade, and without close_errors the HTTP
// answer is unchanged.
func TestProxyDialFailureClose(t *testing.T) {
	notFound := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(notFound.Close)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().String()
	l.Close() // nothing listens there any more
	open := strings.TrimPrefix(notFound.URL, "http://")
	e := newEnv(t, func(c *server.Config) { c.ProxyAllow = []string{open, closed} })
	cases := []struct {
		name, target, query string
		wantCode            websocket.StatusCode // -1: no upgrade
		wantHTTP            int
		wantReason          []string
	}{
		{"refused", "ws://" + closed + "/v1/realtime", "&close_errors=1", server.CloseRefused, 0, []string{"connection refused", closed}},
		{"wrong path", "ws://" + open + "/nope", "&close_errors=1", 4404, 0, []string{"404 Not Found at " + open + "/nope", "not a websocket endpoint"}},
		{"long path fits a close frame", "ws://" + open + "/" + strings.Repeat("ä", 200), "&close_errors=1", 4404, 0, []string{"404 Not Found at " + open + "/", "…"}},
		{"not allowed stays 403", "ws://127.0.0.1:1/", "&close_errors=1", -1, http.StatusForbidden, nil},
		{"without close_errors: HTTP", "ws://" + closed + "/", "", -1, http.StatusBadGateway, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			c, resp, err := websocket.Dial(ctx, proxyURL(e, tc.target)+tc.query, nil)
			if tc.wantCode == -1 {
				if err == nil {
					c.CloseNow()
					t.Fatalf("upgraded, want HTTP %d", tc.wantHTTP)
				}
				if resp == nil || resp.StatusCode != tc.wantHTTP {
					t.Fatalf("answer %v (%v), want HTTP %d", resp, err, tc.wantHTTP)
				}
				return
			}
			if err != nil {
				t.Fatalf("dial: %v, want an upgrade then a close", err)
			}
			defer c.CloseNow()
			_, _, err = c.Read(ctx)
			var ce websocket.CloseError
			if !errors.As(err, &ce) {
				t.Fatalf("read: %v, want a close frame", err)
			}
			if ce.Code != tc.wantCode {
				t.Errorf("close code %d, want %d (reason %q)", ce.Code, tc.wantCode, ce.Reason)
			}
			if len(ce.Reason) > 123 {
				t.Errorf("reason is %d bytes, over the 123 a close frame holds", len(ce.Reason))
			}
			for _, w := range tc.wantReason {
				if !strings.Contains(ce.Reason, w) {
					t.Errorf("reason %q does not say %q", ce.Reason, w)
				}
			}
		})
	}
}
