//go:build !js

package server

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/coder/websocket"
)

// proxyReadLimit bounds one websocket message through the proxy (audio
// deltas are large; coder/websocket's default of 32 KiB is too small).
const proxyReadLimit = 32 << 20

type proxyConn struct {
	cancel context.CancelFunc
}

// proxyAllowed reports whether the websocket proxy may dial u: ws/wss
// only; loopback hosts always (the embedded simulator); other hosts only
// when Config.ProxyAllow lists "host" or "host:port". Never the proxy itself.
func (s *Server) proxyAllowed(u *url.URL) error {
	if u.Scheme != "ws" && u.Scheme != "wss" {
		return fmt.Errorf("target scheme must be ws or wss, got %q", u.Scheme)
	}
	if u.User != nil {
		return errors.New("target must not carry credentials")
	}
	host := strings.ToLower(u.Hostname())
	if host == "" {
		return errors.New("target has no host")
	}
	if strings.HasPrefix(u.Path, "/proxy") {
		return errors.New("target must not be the proxy itself")
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"ws": "80", "wss": "443"}[u.Scheme]
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	for _, a := range s.cfg.ProxyAllow {
		a = strings.ToLower(strings.TrimSpace(a))
		if a == host || a == net.JoinHostPort(host, port) {
			return nil
		}
	}
	return fmt.Errorf("target host %q is not allowed (loopback only; add it with --proxy-allow %s:%s)", host, host, port)
}

func (s *Server) handleProxy(w http.ResponseWriter, r *http.Request) {
	raw := r.URL.Query().Get("target")
	u, err := url.Parse(raw)
	if raw == "" || err != nil {
		writeError(w, http.StatusBadRequest, "proxy needs ?target=ws://host:port/path (percent-encoded)", nil)
		return
	}
	if err := s.proxyAllowed(u); err != nil {
		writeError(w, http.StatusForbidden, "proxy: "+err.Error(), nil)
		return
	}
	if !strings.EqualFold(r.Header.Get("Upgrade"), "websocket") {
		writeError(w, http.StatusBadRequest, "proxy: expected a websocket upgrade", nil)
		return
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		writeError(w, http.StatusServiceUnavailable, "server is shutting down", nil)
		return
	}
	ctx, cancel := context.WithCancel(r.Context())
	p := &proxyConn{cancel: cancel}
	s.proxies[p] = struct{}{}
	s.wg.Add(1)
	s.mu.Unlock()
	defer func() {
		cancel()
		s.mu.Lock()
		delete(s.proxies, p)
		s.mu.Unlock()
		s.wg.Done()
	}()

	dialCtx, dialCancel := context.WithTimeout(ctx, 10*time.Second)
	up, resp, err := websocket.Dial(dialCtx, u.String(), &websocket.DialOptions{CompressionMode: websocket.CompressionDisabled})
	dialCancel()
	if resp != nil && resp.Body != nil {
		resp.Body.Close()
	}
	if err != nil {
		s.metrics.errors.WithLabelValues("proxy dial").Inc()
		writeError(w, http.StatusBadGateway, "proxy: dialing the target failed: "+err.Error(), nil)
		return
	}
	client, err := websocket.Accept(w, r, &websocket.AcceptOptions{CompressionMode: websocket.CompressionDisabled})
	if err != nil {
		up.Close(websocket.StatusInternalError, "client upgrade failed")
		return
	}
	up.SetReadLimit(proxyReadLimit)
	client.SetReadLimit(proxyReadLimit)
	s.metrics.sessions.WithLabelValues("proxy").Inc()
	g := s.metrics.active.WithLabelValues("proxy")
	g.Inc()
	defer g.Dec()
	s.log.Info("proxy open", "target", u.Redacted(), "remote", r.RemoteAddr)

	type ended struct {
		upstream bool // the upstream side (read from up) ended first
		err      error
	}
	errc := make(chan ended, 2)
	go func() { errc <- ended{true, pump(ctx, client, up)} }()
	go func() { errc <- ended{false, pump(ctx, up, client)} }()
	first := <-errc
	code := websocket.CloseStatus(first.err)
	reason := ""
	if code == -1 || code == websocket.StatusNoStatusRcvd || code == websocket.StatusAbnormalClosure {
		// No close frame: tell the client what happened, so its error names
		// the fault (an upstream that dropped the TCP connection).
		switch {
		case errors.Is(first.err, context.Canceled):
			code, reason = websocket.StatusGoingAway, "proxy: shutting down"
		case first.upstream:
			code, reason = websocket.StatusBadGateway, "proxy: upstream dropped the connection without a close frame"
		default:
			code, reason = websocket.StatusGoingAway, "proxy: client went away"
		}
	}
	closeBoth := make(chan struct{})
	go func() {
		defer close(closeBoth)
		client.Close(code, reason)
		up.Close(code, reason)
	}()
	select {
	case <-closeBoth:
	case <-time.After(6 * time.Second):
	}
	cancel()
	<-errc
	<-closeBoth
	s.log.Info("proxy closed", "target", u.Redacted(), "status", code.String(), "reason", reason)
}

// pump copies messages from src to dst until either fails.
func pump(ctx context.Context, dst, src *websocket.Conn) error {
	for {
		typ, b, err := src.Read(ctx)
		if err != nil {
			return err
		}
		if err := dst.Write(ctx, typ, b); err != nil {
			return err
		}
	}
}
