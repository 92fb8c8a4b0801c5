//go:build !js

package server

import (
	"fmt"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
)

// policy applies the Host and Origin rules to every request before the
// routes see it, and answers the request itself (false) when they refuse:
//
//   - Host: this server answers only to its own names — loopback literals
//     and localhost (any port), the address the connection arrived on, and
//     Config.PublicHosts — and says 421 Misdirected Request to any other,
//     so a DNS-rebinding page (evil.example resolving to 127.0.0.1) gets
//     neither the page, its capability nor the API.
//   - Writes (every method but GET, HEAD, OPTIONS) and /proxy refuse a
//     present Origin that is neither this server's own nor listed in
//     Config.AllowOrigins (403). No Origin (the CLI, curl) is fine.
//   - API writes need a Content-Type a cross-site page cannot send without
//     a CORS preflight (which this server never grants): POSTs need
//     application/json, PUT attachments anything but the CORS-simple
//     text/plain, application/x-www-form-urlencoded and multipart/form-data;
//     none or a simple one is 415.
//
// The embedded simulator (/v1/realtime, /sim/) is exempt from all three:
// it holds no user data, and vLLM-Omni's own web demo served from
// anywhere must reach it (the simulator accepts any Origin on purpose,
// AcceptOptions.InsecureSkipVerify in sim/server.go). Its bounds are the
// simulator's own.
func (s *Server) policy(w http.ResponseWriter, r *http.Request) bool {
	if s.isSimRoute(r.URL.Path) {
		return true
	}
	if !s.hostAllowed(r) {
		writeError(w, http.StatusMisdirectedRequest, fmt.Sprintf("this server does not answer to the host name %q: open it by its own address, or start it with --public-host NAME", r.Host), nil)
		return false
	}
	write := r.Method != http.MethodGet && r.Method != http.MethodHead && r.Method != http.MethodOptions
	if (write || r.URL.Path == "/proxy") && !s.originAllowed(r) {
		writeError(w, http.StatusForbidden, foreignOriginMsg(r), nil)
		return false
	}
	if write && strings.HasPrefix(r.URL.Path, "/api/") && r.Method != http.MethodDelete {
		if msg := contentTypeRefusal(r); msg != "" {
			writeError(w, http.StatusUnsupportedMediaType, msg, nil)
			return false
		}
	}
	return true
}

func (s *Server) isSimRoute(p string) bool {
	return s.cfg.Sim != nil && (p == "/v1/realtime" || strings.HasPrefix(p, "/sim/"))
}

// splitHost splits a Host header value into its lower-case name (no
// brackets, no trailing dot) and port ("" when absent).
func splitHost(hostport string) (host, port string) {
	hostport = strings.ToLower(hostport)
	if h, p, err := net.SplitHostPort(hostport); err == nil {
		host, port = h, p
	} else {
		host = strings.Trim(hostport, "[]")
	}
	return strings.TrimSuffix(host, "."), port
}

// hostAllowed reports whether r's Host names this server.
func (s *Server) hostAllowed(r *http.Request) bool {
	if r.Host == "" { // HTTP/1.0 clients; browsers always send a Host
		return true
	}
	host, port := splitHost(r.Host)
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true // browsers resolve these to loopback themselves (RFC 6761)
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		ip = ip.Unmap()
		if ip.IsLoopback() {
			return true
		}
		if la, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok {
			if ap, err := netip.ParseAddrPort(la.String()); err == nil && ap.Addr().Unmap() == ip {
				return true
			}
		}
	}
	for _, p := range s.cfg.PublicHosts {
		ph, pp := splitHost(strings.TrimSpace(p))
		if ph != "" && ph == host && (pp == "" || pp == port) {
			return true
		}
	}
	return false
}

// originAllowed reports whether r's Origin, if any, is this server's own
// (same host and port as the request's allowed Host) or listed in
// Config.AllowOrigins.
func (s *Server) originAllowed(r *http.Request) bool {
	o := r.Header.Get("Origin")
	if o == "" {
		return true
	}
	if s.listedOrigin(o) {
		return true
	}
	// A page served with Referrer-Policy no-referrer sends "Origin: null"
	// on its own POSTs; fetch metadata (set by the browser, not by script)
	// still says the request came from this origin.
	if o == "null" && r.Header.Get("Sec-Fetch-Site") == "same-origin" {
		return true
	}
	u, err := url.Parse(o)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Path != "" {
		return false // "null" (sandboxed frames, file:) and anything odd
	}
	return strings.EqualFold(u.Host, r.Host)
}

// listedOrigin reports whether o is one of Config.AllowOrigins.
func (s *Server) listedOrigin(o string) bool {
	for _, a := range s.cfg.AllowOrigins {
		if strings.EqualFold(strings.TrimRight(strings.TrimSpace(a), "/"), o) {
			return true
		}
	}
	return false
}

func foreignOriginMsg(r *http.Request) string {
	return fmt.Sprintf("requests from the page at %q may not write here or use the proxy: start the server with --allow-origin ORIGIN to allow it", r.Header.Get("Origin"))
}

// contentTypeRefusal returns why an API write's Content-Type is refused,
// or "".
func contentTypeRefusal(r *http.Request) string {
	ct := r.Header.Get("Content-Type")
	mt, _, err := mime.ParseMediaType(ct)
	switch {
	case ct == "":
		return "send a Content-Type: application/json for reports, imports and load runs; the attachment's own type for attachments"
	case err != nil:
		return fmt.Sprintf("Content-Type %q does not parse", ct)
	case mt == "text/plain" || mt == "application/x-www-form-urlencoded" || mt == "multipart/form-data":
		return fmt.Sprintf("Content-Type %s is refused (any web page can send it cross-site): send application/json, or the attachment's own type", mt)
	case r.Method == http.MethodPut:
		return "" // attachments keep their own type (application/json, audio/wav, …)
	case mt != "application/json" && !strings.HasSuffix(mt, "+json"):
		return fmt.Sprintf("Content-Type %s: this endpoint takes application/json", mt)
	}
	return ""
}
