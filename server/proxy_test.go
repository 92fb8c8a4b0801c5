//go:build !js

package server_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/duplexscope/duplexscope/server"
)

// echoServer is a websocket upstream: it echoes every message, and closes
// with status 4001 when it receives "bye".
func echoServer(t *testing.T) *httptest.Server {
	t.Helper()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		c.SetReadLimit(1 << 22)
		defer c.CloseNow()
		for {
			typ, b, err := c.Read(r.Context())
			if err != nil {
				return
			}
			if string(b) == "bye" {
				c.Close(4001, "upstream says bye")
				return
			}
			if err := c.Write(r.Context(), typ, b); err != nil {
				return
			}
		}
	}))
	t.Cleanup(s.Close)
	return s
}

func proxyURL(e *env, target string) string {
	return "ws" + strings.TrimPrefix(e.http.URL, "http") + "/proxy?target=" + url.QueryEscape(target)
}

func TestProxy(t *testing.T) {
	up := echoServer(t)
	// The proxy is opt-in: a loopback service is reachable once listed.
	e := newEnv(t, func(c *server.Config) { c.ProxyAllow = []string{strings.TrimPrefix(up.URL, "http://")} })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	target := "ws" + strings.TrimPrefix(up.URL, "http") + "/v1/realtime?duplex=1&model=sim"
	c, _, err := websocket.Dial(ctx, proxyURL(e, target), nil)
	if err != nil {
		t.Fatalf("dial through the proxy: %v", err)
	}
	defer c.CloseNow()
	c.SetReadLimit(1 << 22)
	big := bytes.Repeat([]byte("a"), 1<<20) // audio deltas exceed 32 KiB
	for _, m := range []struct {
		typ  websocket.MessageType
		data []byte
	}{{websocket.MessageText, []byte(`{"type":"session.update"}`)}, {websocket.MessageBinary, []byte{0, 1, 2}}, {websocket.MessageText, big}} {
		if err := c.Write(ctx, m.typ, m.data); err != nil {
			t.Fatal(err)
		}
		typ, b, err := c.Read(ctx)
		if err != nil || typ != m.typ || !bytes.Equal(b, m.data) {
			t.Fatalf("echo through the proxy: type %v, %d bytes, err %v", typ, len(b), err)
		}
	}
	// The upstream's close status reaches the client.
	if err := c.Write(ctx, websocket.MessageText, []byte("bye")); err != nil {
		t.Fatal(err)
	}
	_, _, err = c.Read(ctx)
	if got := websocket.CloseStatus(err); got != 4001 {
		t.Errorf("close status through the proxy = %v (%v), want 4001", got, err)
	}
	if !strings.Contains(err.Error(), "upstream says bye") {
		t.Errorf("close through the proxy: %v, want the upstream's reason \"upstream says bye\"", err)
	}
}

func TestProxyDenied(t *testing.T) {
	e := newEnv(t, func(c *server.Config) { c.ProxyAllow = []string{"sim.invalid:9000"} })
	cases := []struct {
		name, target string
		want         int
	}{
		{"not loopback", "ws://example.com/v1/realtime", 403},
		{"private address", "ws://10.0.0.1:8080/v1/realtime", 403},
		{"http scheme", "http://127.0.0.1:1/", 403},
		{"file scheme", "file:///etc/passwd", 403},
		{"credentials", "ws://user:pw@127.0.0.1:1/", 403},
		{"proxy loop", "ws://127.0.0.1:1/proxy?target=x", 403},
		{"allow-list host wrong port", "ws://sim.invalid:9001/", 403},
		{"allow-listed (passes the check, dial fails)", "ws://sim.invalid:9000/", 502},
		{"no target", "", 400},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest("GET", e.http.URL+"/proxy?target="+url.QueryEscape(tc.target), nil)
			req.Header.Set("Connection", "Upgrade")
			req.Header.Set("Upgrade", "websocket")
			req.Header.Set("Sec-WebSocket-Version", "13")
			req.Header.Set("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==")
			resp, err := e.http.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tc.want {
				t.Errorf("status %d, want %d", resp.StatusCode, tc.want)
			}
		})
	}
	// A page on another origin cannot use the proxy.
	up := echoServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, resp, err := websocket.Dial(ctx, proxyURL(e, "ws"+strings.TrimPrefix(up.URL, "http")), &websocket.DialOptions{HTTPHeader: http.Header{"Origin": {"https://evil.example"}}})
	if err == nil || resp == nil || resp.StatusCode != http.StatusForbidden {
		t.Errorf("cross-origin proxy use: err %v status %v, want 403", err, resp)
	}
}

// TestProxyCloseUnderClientWrites: an upstream's close frame reaches the
// client with its code and reason even while the client is still sending.
// The proxy answers the close at once, so the client pump's next write to
// the upstream fails; that write error must not stand for the cause (it
// once did, as "1001 proxy: client went away").
func TestProxyCloseUnderClientWrites(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer c.CloseNow()
		// Close once the client is streaming, so the close frame meets the
		// client pump mid-stream.
		if _, _, err := c.Read(r.Context()); err != nil {
			return
		}
		c.Close(4321, "model not loaded (test)")
	}))
	t.Cleanup(up.Close)
	e := newEnv(t, func(c *server.Config) { c.ProxyAllow = []string{strings.TrimPrefix(up.URL, "http://")} })
	target := "ws" + strings.TrimPrefix(up.URL, "http") + "/v1/realtime"
	const rounds = 30 // each round is one chance for the write to win the race
	for i := range rounds {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		c, _, err := websocket.Dial(ctx, proxyURL(e, target), nil)
		if err != nil {
			cancel()
			t.Fatalf("round %d: dial through the proxy: %v", i, err)
		}
		go func() {
			for c.Write(ctx, websocket.MessageText, []byte(`{"type":"input_audio_buffer.append"}`)) == nil {
			}
		}()
		_, _, err = c.Read(ctx)
		c.CloseNow()
		cancel()
		var ce websocket.CloseError
		if !errors.As(err, &ce) || ce.Code != 4321 || ce.Reason != "model not loaded (test)" {
			t.Fatalf("round %d: the client read %v, want the upstream's close 4321 \"model not loaded (test)\"", i, err)
		}
	}
}
