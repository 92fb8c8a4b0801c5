//go:build !js

package server

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/coder/websocket"
)

// proxyReadLimit bounds one websocket message through the proxy (audio
// deltas are large; coder/websocket's default of 32 KiB is too small).
const proxyReadLimit = 32 << 20

type proxyConn struct {
	cancel context.CancelFunc
}

// DefaultMaxProxySessions bounds concurrent /proxy sessions (Config.MaxProxySessions):
// a load curve of 32 sessions plus its joiner fits twice.
const DefaultMaxProxySessions = 64

// errProxyNotAllowed is the one answer for every target the proxy may not
// reach, before or at dial time: the same text whether the port is open,
// closed or unroutable, so the proxy is no port scanner.
var errProxyNotAllowed = errors.New("proxy: target not allowed: the proxy reaches this server's embedded simulator (ws://THIS-HOST/v1/realtime) and the targets named with --proxy-allow HOST[:PORT] only")

// allowEntry is one --proxy-allow target.
type allowEntry struct {
	host string     // lower case, no brackets
	port string     // "" = any port
	ip   netip.Addr // valid when host is an IP literal
}

func parseAllowEntry(a string) (allowEntry, bool) {
	a = strings.ToLower(strings.TrimSpace(a))
	if a == "" {
		return allowEntry{}, false
	}
	e := allowEntry{host: a}
	if h, p, err := net.SplitHostPort(a); err == nil {
		e.host, e.port = h, p
	} else {
		e.host = strings.Trim(a, "[]")
	}
	e.host = strings.TrimSuffix(e.host, ".")
	if ip, err := netip.ParseAddr(e.host); err == nil {
		e.ip = ip.Unmap()
	}
	return e, e.host != ""
}

// loopback reports whether the entry names this machine explicitly
// ("localhost" or a loopback literal): only then may it reach loopback.
func (e allowEntry) loopback() bool {
	return e.host == "localhost" || (e.ip.IsValid() && e.ip.IsLoopback())
}

// proxyPlan is the decision for one target: what may be dialled. The
// dialer's Control hook applies it to every address it connects to, so a
// name resolving somewhere else (DNS rebinding, a hosts entry) gains nothing.
type proxyPlan struct {
	u         *url.URL
	matched   []allowEntry   // --proxy-allow entries naming the target
	local     netip.AddrPort // the address this request arrived on
	localOK   bool
	simTarget bool // the path is the embedded simulator's websocket
}

// isSimPath reports whether u's path is exactly the embedded simulator's
// websocket: no dot segments, no doubled or percent-encoded slashes.
func isSimPath(u *url.URL) bool {
	return u.EscapedPath() == "/v1/realtime" && u.Path == "/v1/realtime"
}

// planProxy decides, before anything is dialled, whether target may be
// proxied for request r: ws/wss only, no credentials, and either named by
// --proxy-allow or this server's own simulator.
func (s *Server) planProxy(r *http.Request, u *url.URL) (*proxyPlan, error) {
	if u.Scheme != "ws" && u.Scheme != "wss" {
		return nil, fmt.Errorf("proxy: target scheme must be ws or wss, got %q", u.Scheme)
	}
	if u.User != nil {
		return nil, errors.New("proxy: target must not carry credentials")
	}
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	if host == "" || u.Opaque != "" {
		return nil, errors.New("proxy: target has no host")
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"ws": "80", "wss": "443"}[u.Scheme]
	}
	p := &proxyPlan{u: u, simTarget: s.cfg.Sim != nil && isSimPath(u)}
	p.local, p.localOK = localAddr(r)
	for _, a := range s.cfg.ProxyAllow {
		if e, ok := parseAllowEntry(a); ok && e.host == host && (e.port == "" || e.port == port) {
			p.matched = append(p.matched, e)
		}
	}
	if len(p.matched) > 0 {
		return p, nil
	}
	// Not listed: only this server's own simulator, spelled as the page
	// spells it (its own host, localhost, a loopback or local address).
	if !p.simTarget || !p.localOK || port != strconv.Itoa(int(p.local.Port())) {
		return nil, errProxyNotAllowed
	}
	pageHost := strings.ToLower(r.Host)
	if h, _, err := net.SplitHostPort(pageHost); err == nil {
		pageHost = h
	}
	ip, err := netip.ParseAddr(host)
	switch {
	case host == "localhost", host == strings.Trim(pageHost, "[]"):
	case err == nil && (ip.Unmap().IsLoopback() || ip.Unmap().IsUnspecified() || ip.Unmap() == p.local.Addr()):
	default:
		return nil, errProxyNotAllowed
	}
	return p, nil
}

// isSelf reports whether ip:port may be this server: its own address, or
// any loopback, unspecified or local-interface address on its port.
func (p *proxyPlan) isSelf(ap netip.AddrPort) bool {
	if !p.localOK || ap.Port() != p.local.Port() {
		return false
	}
	ip := ap.Addr()
	if ip == p.local.Addr() || ip.IsLoopback() || ip.IsUnspecified() {
		return true
	}
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return true // cannot tell: treat as self (sim path only)
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok {
			if x, ok := netip.AddrFromSlice(n.IP); ok && x.Unmap() == ip {
				return true
			}
		}
	}
	return false
}

// control is the dialer's Control hook: it checks the address actually
// dialled (after DNS) against the plan.
func (p *proxyPlan) control(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return errProxyNotAllowed
	}
	ap = netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port())
	ip := ap.Addr()
	if p.isSelf(ap) {
		// This server itself: its simulator, never /proxy or anything else.
		if p.simTarget {
			return nil
		}
		return errProxyNotAllowed
	}
	for _, e := range p.matched {
		switch {
		case e.ip.IsValid():
			if e.ip == ip {
				return nil
			}
		case ip.IsLoopback() || ip.IsUnspecified():
			if e.loopback() {
				return nil
			}
		case ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() || ip.IsMulticast():
			// Metadata services (169.254.169.254) only when listed by address.
		default:
			return nil
		}
	}
	return errProxyNotAllowed
}

// dial connects to the plan's target: the address checked in the dialer,
// no redirects followed, no HTTP_PROXY from the environment.
func (p *proxyPlan) dial(ctx context.Context) (*websocket.Conn, *http.Response, error) {
	d := &net.Dialer{Timeout: 10 * time.Second, Control: p.control}
	transport := &http.Transport{DialContext: d.DialContext, TLSHandshakeTimeout: 10 * time.Second}
	defer transport.CloseIdleConnections()
	hc := &http.Client{Transport: transport, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return websocket.Dial(ctx, p.u.String(), &websocket.DialOptions{HTTPClient: hc, CompressionMode: websocket.CompressionDisabled})
}

// proxyDialError turns a failed dial of an allowed target into the
// status and the words that tell the user what to fix.
func proxyDialError(u *url.URL, resp *http.Response, err error) (int, string) {
	var dnsErr *net.DNSError
	switch {
	case errors.Is(err, errProxyNotAllowed):
		return http.StatusForbidden, errProxyNotAllowed.Error()
	case resp != nil && resp.StatusCode >= 300 && resp.StatusCode < 400:
		return http.StatusBadGateway, fmt.Sprintf("proxy: %s answered HTTP %d (a redirect to %q), not a websocket upgrade; the proxy follows no redirects: use the final URL", u.Host, resp.StatusCode, resp.Header.Get("Location"))
	case resp != nil && resp.StatusCode != http.StatusSwitchingProtocols:
		return http.StatusBadGateway, fmt.Sprintf("proxy: %s answered HTTP %d, not a websocket upgrade: check the path (a vLLM-Omni server listens at /v1/realtime)", u.Host, resp.StatusCode)
	case errors.Is(err, syscall.ECONNREFUSED):
		return http.StatusBadGateway, fmt.Sprintf("proxy: %s refused the connection: nothing listens on that port", u.Host)
	case errors.As(err, &dnsErr):
		return http.StatusBadGateway, fmt.Sprintf("proxy: cannot resolve %s: %v", u.Hostname(), dnsErr.Err)
	case errors.Is(err, context.DeadlineExceeded) || isTimeout(err):
		return http.StatusGatewayTimeout, fmt.Sprintf("proxy: %s did not answer within 10 s", u.Host)
	}
	return http.StatusBadGateway, "proxy: dialing the target failed: " + err.Error()
}

// Close codes of a failed dial of an allowed target (close_errors=1):
// 4000 + the HTTP status the target answered instead of upgrading (4404:
// not a websocket endpoint there), CloseRefused, CloseUnreachable,
// CloseDialTimeout.
const (
	CloseRefused     websocket.StatusCode = 4502 // connection refused / cannot resolve
	CloseDialTimeout websocket.StatusCode = 4504 // no answer within 10 s
)

// proxyCloseError is proxyDialError as a websocket close: a code and a
// reason of at most 123 bytes (the protocol's limit) saying what failed.
// The reason starts with "proxy: ", which tells the page these codes from
// the same codes an upstream sends (passed on as they come).
func proxyCloseError(u *url.URL, resp *http.Response, err error) (websocket.StatusCode, string) {
	where := u.Host + u.EscapedPath()
	var dnsErr *net.DNSError
	switch {
	case resp != nil && resp.StatusCode >= 300 && resp.StatusCode < 600 && resp.StatusCode != http.StatusSwitchingProtocols:
		what := "not a websocket endpoint"
		if resp.StatusCode < 400 {
			what = "a redirect, not followed"
		}
		return websocket.StatusCode(4000 + resp.StatusCode), closeReason(fmt.Sprintf("%d %s at %%s: %s", resp.StatusCode, http.StatusText(resp.StatusCode), what), where)
	case resp != nil && resp.StatusCode != http.StatusSwitchingProtocols:
		return websocket.StatusInternalError, closeReason(fmt.Sprintf("HTTP %d at %%s: not a websocket upgrade", resp.StatusCode), where)
	case errors.Is(err, syscall.ECONNREFUSED):
		return CloseRefused, closeReason("connection refused at %s: nothing listens there", u.Host)
	case errors.As(err, &dnsErr):
		return CloseRefused, closeReason("cannot resolve %s", u.Hostname())
	case errors.Is(err, context.DeadlineExceeded) || isTimeout(err):
		return CloseDialTimeout, closeReason("no answer from %s within 10 s", u.Host)
	}
	return websocket.StatusInternalError, closeReason("dialing %s failed", u.Host)
}

// closeReason fills format's %s with where, shortened so the whole
// reason fits a close frame (123 bytes) on a UTF-8 boundary.
func closeReason(format, where string) string {
	const maxReason = 123
	format = "proxy: " + format
	room := maxReason - (len(format) - 2)
	if len(where) > room {
		cut := max(room-len("…"), 0)
		for cut > 0 && !utf8.RuneStart(where[cut]) {
			cut--
		}
		where = where[:cut] + "…"
	}
	r := fmt.Sprintf(format, where)
	if len(r) > maxReason { // cannot happen with this file's formats; never exceed the limit
		cut := maxReason
		for cut > 0 && !utf8.RuneStart(r[cut]) {
			cut--
		}
		r = r[:cut]
	}
	return r
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

func (s *Server) handleProxy(w http.ResponseWriter, r *http.Request) {
	// The Origin is checked before anything else (a cross-site page must
	// not make this server connect anywhere); policy() checked it too.
	if !s.originAllowed(r) {
		writeError(w, http.StatusForbidden, foreignOriginMsg(r), nil)
		return
	}
	raw := r.URL.Query().Get("target")
	u, err := url.Parse(raw)
	if raw == "" || err != nil {
		writeError(w, http.StatusBadRequest, "proxy needs ?target=ws://host:port/path (percent-encoded)", nil)
		return
	}
	plan, err := s.planProxy(r, u)
	if err != nil {
		writeError(w, http.StatusForbidden, err.Error(), nil)
		return
	}
	if !strings.EqualFold(r.Header.Get("Upgrade"), "websocket") {
		writeError(w, http.StatusBadRequest, "proxy: expected a websocket upgrade", nil)
		return
	}
	ctx, cancel, release, ok := s.reserveProxy(w, r)
	if !ok {
		return
	}
	defer release()

	dialCtx, dialCancel := context.WithTimeout(ctx, 10*time.Second)
	up, resp, err := plan.dial(dialCtx)
	dialCancel()
	if resp != nil && resp.Body != nil {
		resp.Body.Close()
	}
	if err != nil {
		s.metrics.errors.WithLabelValues("proxy dial").Inc()
		refuseDial(w, r, u, resp, err)
		return
	}
	// The Origin was checked above, against this server's Host policy and
	// --allow-origin; coder/websocket's own same-host check would refuse
	// the origins --allow-origin lists.
	client, err := websocket.Accept(w, r, &websocket.AcceptOptions{CompressionMode: websocket.CompressionDisabled, InsecureSkipVerify: true})
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
	code, reason := relay(ctx, cancel, client, up)
	s.log.Info("proxy closed", "target", u.Redacted(), "status", code.String(), "reason", reason)
}

// reserveProxy counts a proxy session against MaxProxySessions and the
// shutdown wait; release gives the slot back. ok=false means an error was
// written (shutting down, or every slot taken).
func (s *Server) reserveProxy(w http.ResponseWriter, r *http.Request) (ctx context.Context, cancel context.CancelFunc, release func(), ok bool) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		writeError(w, http.StatusServiceUnavailable, "server is shutting down", nil)
		return nil, nil, nil, false
	}
	if len(s.proxies) >= s.cfg.MaxProxySessions {
		s.mu.Unlock()
		w.Header().Set("Retry-After", "5")
		writeError(w, http.StatusServiceUnavailable, fmt.Sprintf("proxy: %d sessions are open, the most this server proxies at once; try again when one ends", s.cfg.MaxProxySessions), nil)
		return nil, nil, nil, false
	}
	ctx, cancel = context.WithCancel(r.Context())
	p := &proxyConn{cancel: cancel}
	s.proxies[p] = struct{}{}
	s.wg.Add(1)
	s.mu.Unlock()
	release = func() {
		cancel()
		s.mu.Lock()
		delete(s.proxies, p)
		s.mu.Unlock()
		s.wg.Done()
	}
	return ctx, cancel, release, true
}

// refuseDial answers a failed upstream dial.
func refuseDial(w http.ResponseWriter, r *http.Request, u *url.URL, resp *http.Response, err error) {
	code, msg := proxyDialError(u, resp, err)
	if code != http.StatusForbidden && r.URL.Query().Get("close_errors") == "1" {
		// A browser never sees an HTTP error body of a failed upgrade
		// (only close 1006), so a page that asks gets the cause as a
		// close code and reason instead. A target that is not allowed
		// still gets its one 403: no port-scan oracle.
		if c, aerr := websocket.Accept(w, r, &websocket.AcceptOptions{CompressionMode: websocket.CompressionDisabled, InsecureSkipVerify: true}); aerr == nil {
			cc, reason := proxyCloseError(u, resp, err)
			c.Close(cc, reason)
		}
		return
	}
	writeError(w, code, msg, nil)
}

// relay pumps both ways until one side ends, then closes both with that
// side's code and reason (or one naming the fault) and returns them.
func relay(ctx context.Context, cancel context.CancelFunc, client, up *websocket.Conn) (websocket.StatusCode, string) {
	errc := make(chan pumpEnd, 2)
	go func() { errc <- pump(ctx, true, client, up) }()
	go func() { errc <- pump(ctx, false, up, client) }()
	first, waited := <-errc, 1
	if first.write {
		// The other side ended under this pump's write (a peer's close
		// frame is answered at once, so the next write meets a closed
		// conn). That side's own reader, the other pump, holds its close
		// frame or fault and returns as soon as the conn is closed.
		select {
		case second := <-errc:
			waited++
			if !second.write {
				first = second
			}
		case <-time.After(closeCauseWait):
		}
	}
	code, reason := relayCloseCause(first.err, first.upstream())
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
	for ; waited < 2; waited++ {
		<-errc
	}
	<-closeBoth
	return code, reason
}

// closeCauseWait bounds how long relay waits for the reader of a side a
// write found ended; a closed conn's reader returns in microseconds.
const closeCauseWait = 2 * time.Second

// pumpEnd is how one direction of the relay ended.
type pumpEnd struct {
	fromUp bool // the pump read from the upstream side
	write  bool // it failed writing to the other side, not reading its own
	err    error
}

// upstream reports whether the side that ended is the upstream one: the
// side the pump read from, unless it was its write to the other that failed.
func (e pumpEnd) upstream() bool { return e.fromUp != e.write }

// relayCloseCause is the close code and reason the proxy passes on when
// one side ended with err (upstream: it was the upstream side).
func relayCloseCause(err error, upstream bool) (websocket.StatusCode, string) {
	code := websocket.CloseStatus(err)
	reason := ""
	var ce websocket.CloseError
	if errors.As(err, &ce) {
		reason = ce.Reason // pass the peer's words on with its code
	}
	if code == -1 || code == websocket.StatusNoStatusRcvd || code == websocket.StatusAbnormalClosure {
		// No close frame: tell the client what happened, so its error names
		// the fault (an upstream that dropped the TCP connection).
		switch {
		case errors.Is(err, context.Canceled):
			code, reason = websocket.StatusGoingAway, "proxy: shutting down"
		case upstream:
			code, reason = websocket.StatusBadGateway, "proxy: upstream dropped the connection without a close frame"
		default:
			code, reason = websocket.StatusGoingAway, "proxy: client went away"
		}
	}
	return code, reason
}

// pump copies messages from src to dst until either fails (fromUp: src
// is the upstream side).
func pump(ctx context.Context, fromUp bool, dst, src *websocket.Conn) pumpEnd {
	for {
		typ, b, err := src.Read(ctx)
		if err != nil {
			return pumpEnd{fromUp: fromUp, err: err}
		}
		if err := dst.Write(ctx, typ, b); err != nil {
			return pumpEnd{fromUp: fromUp, write: true, err: err}
		}
	}
}
