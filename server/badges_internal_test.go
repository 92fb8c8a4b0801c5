//go:build !js

package server

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestTargetBadge pins the documented rule: the built-in simulator is this
// server's own simulator path, reached by the request's Host name, a
// loopback name or address, or the address the connection arrived on, on
// the request's port; anything else is a real server.
func TestTargetBadge(t *testing.T) {
	withSim := &Server{cfg: Config{Sim: http.NotFoundHandler()}}
	noSim := &Server{}
	req := func(host, local string) *http.Request {
		r := httptest.NewRequest("GET", "/r/x", nil)
		r.Host = host
		if local != "" {
			addr, _ := net.ResolveTCPAddr("tcp", local)
			r = r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, addr))
		}
		return r
	}
	cases := []struct {
		name   string
		s      *Server
		r      *http.Request
		target string
		want   string // "" = no badge
	}{
		{"same host and port", withSim, req("bench.example:8080", "10.0.0.5:8080"), "ws://bench.example:8080/v1/realtime?sim_profile=test", targetSim},
		{"loopback on the arrival port", withSim, req("bench.example:8080", "10.0.0.5:8080"), "ws://127.0.0.1:8080/v1/realtime", targetSim},
		{"localhost on the Host port", withSim, req("localhost:8080", "127.0.0.1:8080"), "ws://localhost:8080/v1/realtime", targetSim},
		{"the arrival address", withSim, req("bench.example:8080", "10.0.0.5:8080"), "ws://10.0.0.5:8080/v1/realtime", targetSim},
		{"simulator truth path", withSim, req("bench.example:8080", ""), "http://bench.example:8080/sim/options", targetSim},
		{"default ports", withSim, req("bench.example", "10.0.0.5:80"), "ws://bench.example/v1/realtime", targetSim},
		{"loopback on another port", withSim, req("bench.example:8080", "10.0.0.5:8080"), "ws://127.0.0.1:8081/v1/realtime", targetServer},
		{"another host", withSim, req("bench.example:8080", "10.0.0.5:8080"), "ws://gpu-box:8080/v1/realtime", targetServer},
		{"same host, other path", withSim, req("bench.example:8080", "10.0.0.5:8080"), "ws://bench.example:8080/proxy", targetServer},
		{"no embedded simulator", noSim, req("localhost:8080", "127.0.0.1:8080"), "ws://localhost:8080/v1/realtime", targetServer},
		{"unparsable target", withSim, req("localhost:8080", ""), "::not a url", targetServer},
		{"import without a target", withSim, req("localhost:8080", ""), "", ""},
	}
	for _, tc := range cases {
		b, ok := tc.s.targetBadge(tc.r, tc.target)
		if got := map[bool]string{true: b.Value}[ok]; got != tc.want {
			t.Errorf("%s: target badge %q (%+v), want %q", tc.name, got, b, tc.want)
		}
	}
}
