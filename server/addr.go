//go:build !js

package server

import (
	"net"
	"net/http"
	"net/netip"
)

// The addresses of a request: the peer's (delete without a token, the rate
// limiters) and the local one it arrived on (badges and the proxy tell this
// server's own simulator by it).

// localAddr is the address r arrived on, IPv4-mapped IPv6 unmapped; ok is
// false when the connection has none (a test's handler call, a unix socket).
func localAddr(r *http.Request) (ap netip.AddrPort, ok bool) {
	la, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok {
		return netip.AddrPort{}, false
	}
	ap, err := netip.ParseAddrPort(la.String())
	if err != nil {
		return netip.AddrPort{}, false
	}
	return netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port()), true
}

// loopbackPeer reports whether the request's peer is on this machine.
func loopbackPeer(r *http.Request) bool {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return false
	}
	a, err := netip.ParseAddr(host)
	return err == nil && a.Unmap().IsLoopback()
}

// clientKey is the rate limiter's key for a request: the IPv4 address, or
// the IPv6 /64 (one host usually owns a whole /64, so keying by address
// would give it 2^64 buckets).
func clientKey(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	return ipKey(host)
}

func ipKey(host string) string {
	a, err := netip.ParseAddr(host)
	if err != nil {
		return host
	}
	a = a.Unmap()
	if a.Is4() {
		return a.String()
	}
	p, _ := a.Prefix(64)
	return p.String()
}
