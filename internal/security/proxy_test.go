//go:build security && linux

package security

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// upstream is a local websocket echo server that counts the TCP
// connections it receives: the witness of whether the proxy dialled it.
type upstream struct {
	*httptest.Server
	conns atomic.Int64
	host  string // 127.0.0.1:PORT
}

func newUpstream(t *testing.T, h http.Handler) *upstream {
	t.Helper()
	if h == nil {
		h = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			c, err := websocket.Accept(w, r, &websocket.AcceptOptions{InsecureSkipVerify: true})
			if err != nil {
				return
			}
			defer c.CloseNow()
			for {
				typ, b, err := c.Read(r.Context())
				if err != nil {
					return
				}
				if c.Write(r.Context(), typ, b) != nil {
					return
				}
			}
		})
	}
	u := &upstream{}
	u.Server = httptest.NewUnstartedServer(h)
	u.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			u.conns.Add(1)
		}
	}
	u.Start()
	t.Cleanup(u.Close)
	u.host = strings.TrimPrefix(u.URL, "http://")
	return u
}

// closedPort is a loopback port nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	a := ln.Addr().String()
	ln.Close()
	return a
}

// proxyResult is what a client of /proxy saw.
type proxyResult struct {
	Status int    // 101 when the proxy connected
	Body   string // the error body otherwise
}

func (r proxyResult) String() string {
	if r.Status == http.StatusSwitchingProtocols {
		return "101 connected"
	}
	b := strings.TrimSpace(r.Body)
	if len(b) > 100 {
		b = b[:100] + "…"
	}
	return fmt.Sprintf("%d %s", r.Status, b)
}

// viaProxy opens /proxy?target=… on s as a websocket client would, with
// origin as Origin ("" sends none), and closes it right away.
func viaProxy(t *testing.T, s *Server, target, origin string) proxyResult {
	t.Helper()
	return viaProxyPath(t, s, "/proxy?target="+url.QueryEscape(target), origin)
}

func viaProxyPath(t *testing.T, s *Server, path, origin string) proxyResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	h := http.Header{}
	if origin != "" {
		h.Set("Origin", origin)
	}
	c, resp, err := websocket.Dial(ctx, "ws://"+s.Addr+path, &websocket.DialOptions{HTTPHeader: h,
		HTTPClient: &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}})
	if err == nil {
		c.Close(websocket.StatusNormalClosure, "")
		return proxyResult{Status: http.StatusSwitchingProtocols}
	}
	if resp == nil {
		t.Fatalf("proxy %s: %v", path, err)
	}
	var b []byte
	if resp.Body != nil {
		b, _ = io.ReadAll(resp.Body)
	}
	return proxyResult{Status: resp.StatusCode, Body: string(b)}
}

// TestProxyRefusesLoopbackService: a loopback service that is not the
// embedded simulator and not listed in --proxy-allow is never dialled.
func TestProxyRefusesLoopbackService(t *testing.T) {
	up := newUpstream(t, nil)
	s := Start(t)
	got := viaProxy(t, s, "ws://"+up.host+"/", "")
	if got.Status != http.StatusForbidden || up.conns.Load() != 0 {
		t.Errorf("proxy to an unlisted loopback service: %v, %d connections reached it; want 403 and none", got, up.conns.Load())
	}
	Attack(t, "4", "/proxy?target=ws://127.0.0.1:OTHERPORT/ (no --proxy-allow)", fmt.Sprintf("%v; upstream connections %d", got, up.conns.Load()))

	// The page's own use keeps working: the embedded simulator through
	// the proxy, with the page's Origin.
	sim := viaProxy(t, s, "ws://"+s.Addr+"/v1/realtime?duplex=1&model=sim", "http://"+s.Addr)
	if sim.Status != http.StatusSwitchingProtocols {
		t.Errorf("proxy to the embedded simulator: %v, want 101", sim)
	}
	// Listed, it is reachable.
	s2 := Start(t, "--proxy-allow", up.host)
	if got := viaProxy(t, s2, "ws://"+up.host+"/", ""); got.Status != http.StatusSwitchingProtocols {
		t.Errorf("proxy to a listed target: %v, want 101", got)
	}
}

// TestProxyNoRedirects: a listed target that redirects to an unlisted one
// is not followed.
func TestProxyNoRedirects(t *testing.T) {
	hidden := newUpstream(t, nil)
	redir := newUpstream(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://"+hidden.host+"/", http.StatusFound)
	}))
	s := Start(t, "--proxy-allow", redir.host)
	got := viaProxy(t, s, "ws://"+redir.host+"/", "")
	if got.Status == http.StatusSwitchingProtocols || hidden.conns.Load() != 0 {
		t.Errorf("redirect: %v, %d connections reached the redirect's target; want refused and none", got, hidden.conns.Load())
	}
	if !strings.Contains(got.Body, "302") {
		t.Errorf("redirect from a listed target: %v, want the specific cause (HTTP 302)", got)
	}
	Attack(t, "4", "listed target answers 302 → unlisted loopback service", fmt.Sprintf("%v; redirect target connections %d", got, hidden.conns.Load()))
}

// TestProxyNoSelfChaining: /proxy cannot reach itself by any path form or
// Host spelling, so it cannot be chained to reach an unlisted service.
func TestProxyNoSelfChaining(t *testing.T) {
	hidden := newUpstream(t, nil)
	s := Start(t)
	_, port, _ := net.SplitHostPort(s.Addr)
	inner := url.QueryEscape("ws://" + hidden.host + "/")
	var bad []string
	for _, host := range []string{"127.0.0.1:" + port, "localhost:" + port, "0.0.0.0:" + port, "[::1]:" + port, "127.0.0.2:" + port, "[::ffff:127.0.0.1]:" + port} {
		for _, p := range []string{"/proxy", "/./proxy", "//proxy", "/proxy/", "/%70roxy", "/v1/../proxy", "/sim/../proxy", "/v1/realtime/../../proxy", "/PROXY"} {
			target := "ws://" + host + p + "?target=" + inner
			got := viaProxy(t, s, target, "")
			if got.Status == http.StatusSwitchingProtocols || hidden.conns.Load() != 0 {
				bad = append(bad, fmt.Sprintf("%s → %v", target, got))
				hidden.conns.Store(0)
			}
		}
	}
	for _, b := range bad {
		t.Errorf("self-chained: %s", b)
	}
	result := "all refused, unlisted service never reached"
	if len(bad) > 0 {
		result = fmt.Sprintf("%d of 54 CHAINED through the proxy (e.g. %s)", len(bad), bad[0])
	}
	Attack(t, "4", "/proxy?target=ws://SELF/./proxy?target=… (9 path forms × 6 Host spellings)", result)
}

// TestProxyOriginBeforeDial: a foreign page's proxy request is refused
// before the proxy connects anywhere, even to a listed target.
func TestProxyOriginBeforeDial(t *testing.T) {
	up := newUpstream(t, nil)
	s := Start(t, "--proxy-allow", up.host)
	got := viaProxy(t, s, "ws://"+up.host+"/", "https://evil.example")
	if got.Status != http.StatusForbidden || up.conns.Load() != 0 {
		t.Errorf("foreign Origin: %v, %d connections reached the target; want 403 and none", got, up.conns.Load())
	}
	Attack(t, "4", "Origin: https://evil.example, listed target", fmt.Sprintf("%v; upstream connections %d", got, up.conns.Load()))
	if got := viaProxy(t, s, "ws://"+up.host+"/", "http://"+s.Addr); got.Status != http.StatusSwitchingProtocols {
		t.Errorf("same-origin page: %v, want 101", got)
	}
}

// TestProxyNoPortScanOracle: open and closed ports of targets that are
// not allowed get the same answer; allowed ones get the specific cause.
func TestProxyNoPortScanOracle(t *testing.T) {
	open := newUpstream(t, http.NotFoundHandler())
	closed := closedPort(t)
	s := Start(t)
	a := viaProxy(t, s, "ws://"+open.host+"/", "")
	b := viaProxy(t, s, "ws://"+closed+"/", "")
	c := viaProxy(t, s, "ws://10.255.255.1:9/", "")
	if a.Status != b.Status || a.Body != b.Body || a.Body != c.Body || a.Status != http.StatusForbidden {
		t.Errorf("not-allowed targets answer differently: open %v / closed %v / unroutable %v; want one generic 403", a, b, c)
	}
	Attack(t, "4", "unlisted open vs closed port", fmt.Sprintf("open: %v | closed: %v", a, b))

	s2 := Start(t, "--proxy-allow", open.host+","+closed)
	ao := viaProxy(t, s2, "ws://"+open.host+"/", "")
	ac := viaProxy(t, s2, "ws://"+closed+"/", "")
	if !strings.Contains(ao.Body, "404") || !strings.Contains(ac.Body, "refused") {
		t.Errorf("allowed targets: open %v, closed %v; want the HTTP status and \"refused\"", ao, ac)
	}
}

// TestProxySessionCap: concurrent proxy sessions are capped (64).
func TestProxySessionCap(t *testing.T) {
	const maxSessions = 64 // server.DefaultMaxProxySessions
	up := newUpstream(t, nil)
	s := Start(t, "--proxy-allow", up.host)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	u := "ws://" + s.Addr + "/proxy?target=" + url.QueryEscape("ws://"+up.host+"/")
	var conns []*websocket.Conn
	defer func() {
		for _, c := range conns {
			c.CloseNow()
		}
	}()
	opened := 0
	var last string
	for range maxSessions + 1 {
		c, resp, err := websocket.Dial(ctx, u, nil)
		if err != nil {
			if resp != nil {
				last = resp.Status
			} else {
				last = err.Error()
			}
			break
		}
		conns = append(conns, c)
		opened++
	}
	if opened != maxSessions {
		t.Errorf("opened %d proxy sessions at once (then %q), want exactly %d", opened, last, maxSessions)
	}
	Attack(t, "4", fmt.Sprintf("%d concurrent proxy sessions", maxSessions+1), fmt.Sprintf("%d opened, then %s", opened, last))
}
