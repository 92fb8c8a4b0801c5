//go:build !js

package server

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/duplexscope/duplexscope/server/archive"
)

// proxyRequest is a /proxy request that arrived on local (the server's
// own address) with Host host.
func proxyRequest(local, host string) *http.Request {
	r := httptest.NewRequest(http.MethodGet, "/proxy", nil)
	r.Host = host
	la, _ := net.ResolveTCPAddr("tcp", local)
	return r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, la))
}

func testProxyServer(t *testing.T, allow ...string) *Server {
	t.Helper()
	s, err := New(Config{Store: archive.NewMemory(), Sim: http.NotFoundHandler(), ProxyAllow: allow})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestPlanProxy: which targets pass before anything is dialled.
func TestPlanProxy(t *testing.T) {
	s := testProxyServer(t, "gpu-box:8000", "10.1.2.3", "localhost:8099")
	r := proxyRequest("127.0.0.1:8080", "127.0.0.1:8080")
	cases := []struct {
		target string
		ok     bool
	}{
		{"ws://127.0.0.1:8080/v1/realtime?duplex=1", true},
		{"ws://localhost:8080/v1/realtime", true},
		{"ws://[::1]:8080/v1/realtime", true},
		{"ws://0.0.0.0:8080/v1/realtime", true},
		{"ws://127.0.0.1:8080/proxy?target=x", false},
		{"ws://127.0.0.1:8080/./v1/realtime", false},
		{"ws://127.0.0.1:8080//v1/realtime", false},
		{"ws://127.0.0.1:8080/v1/realtime/", false},
		{"ws://127.0.0.1:8080/v1%2Frealtime", false},
		{"ws://127.0.0.1:8080/sim/../proxy", false},
		{"ws://127.0.0.1:5432/v1/realtime", false}, // another loopback port
		{"ws://evil.example:8080/v1/realtime", false},
		{"ws://gpu-box:8000/v1/realtime", true},
		{"ws://GPU-BOX.:8000/anything", true},
		{"ws://gpu-box:8001/v1/realtime", false},
		{"wss://10.1.2.3/v1/realtime", true},
		{"ws://localhost:8099/v1/realtime", true},
		{"ws://localhost:8098/v1/realtime", false},
		{"http://gpu-box:8000/", false},
		{"ws://u:p@gpu-box:8000/", false},
	}
	for _, tc := range cases {
		u, err := url.Parse(tc.target)
		if err != nil {
			t.Fatal(err)
		}
		_, err = s.planProxy(r, u)
		if (err == nil) != tc.ok {
			t.Errorf("%s: err %v, want allowed=%v", tc.target, err, tc.ok)
		}
	}
}

// TestProxyControl: the dialled address is checked after DNS, so an
// allowed name resolving to loopback, a metadata address or this server
// gains nothing.
func TestProxyControl(t *testing.T) {
	s := testProxyServer(t, "gpu-box:8000", "10.1.2.3:9000", "localhost:8099", "169.254.169.254")
	r := proxyRequest("127.0.0.1:8080", "127.0.0.1:8080")
	cases := []struct {
		target, dialled string
		ok              bool
	}{
		{"ws://gpu-box:8000/v1/realtime", "10.9.9.9:8000", true},
		{"ws://gpu-box:8000/v1/realtime", "127.0.0.1:8000", false}, // rebinding to loopback
		{"ws://gpu-box:8000/v1/realtime", "0.0.0.0:8000", false},
		{"ws://gpu-box:8000/v1/realtime", "[::1]:8000", false},
		{"ws://gpu-box:8000/v1/realtime", "[::ffff:127.0.0.1]:8000", false},
		{"ws://gpu-box:8000/v1/realtime", "169.254.169.254:8000", false}, // metadata via a name
		{"ws://169.254.169.254/latest", "169.254.169.254:80", true},      // listed by address
		{"ws://10.1.2.3:9000/", "10.1.2.3:9000", true},
		{"ws://localhost:8099/v1/realtime", "127.0.0.1:8099", true},
		{"ws://localhost:8099/v1/realtime", "[::1]:8099", true},
		{"ws://127.0.0.1:8080/v1/realtime", "127.0.0.1:8080", true}, // the embedded simulator
		{"ws://localhost:8080/v1/realtime", "[::1]:8080", true},
		{"ws://127.0.0.1:8080/v1/realtime", "127.0.0.2:8080", true}, // loopback on our port: us, sim path
	}
	for _, tc := range cases {
		u, _ := url.Parse(tc.target)
		p, err := s.planProxy(r, u)
		if err != nil {
			t.Fatalf("%s: plan refused: %v", tc.target, err)
		}
		err = p.control("tcp", tc.dialled, nil)
		if (err == nil) != tc.ok {
			t.Errorf("%s dialled at %s: err %v, want allowed=%v", tc.target, tc.dialled, err, tc.ok)
		}
		if err != nil && !errors.Is(err, errProxyNotAllowed) {
			t.Errorf("%s: err %v, want the one generic refusal", tc.target, err)
		}
	}
	// A listed name that resolves to this server reaches only its simulator.
	s2 := testProxyServer(t, "me.example:8080")
	for _, tc := range []struct {
		target string
		ok     bool
	}{{"ws://me.example:8080/v1/realtime", true}, {"ws://me.example:8080/proxy?target=x", false}, {"ws://me.example:8080/api/reports", false}} {
		u, _ := url.Parse(tc.target)
		p, err := s2.planProxy(r, u)
		if err != nil {
			t.Fatal(err)
		}
		if err := p.control("tcp", "127.0.0.1:8080", nil); (err == nil) != tc.ok {
			t.Errorf("%s resolving to this server: err %v, want allowed=%v", tc.target, err, tc.ok)
		}
	}
}

// TestEnsurePagePolicy: an HTML answer from a handler that set no CSP
// (a future page) leaves with the strict one; other answers untouched.
func TestEnsurePagePolicy(t *testing.T) {
	cases := []struct {
		name    string
		h       http.HandlerFunc
		wantCSP string
	}{
		{"sniffed html", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("<!doctype html><p>x")) }, contentSecurityPolicy},
		{"declared html", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(404)
			w.Write([]byte("x"))
		}, contentSecurityPolicy},
		{"own csp kept", func(w http.ResponseWriter, r *http.Request) { setPageHeaders(w); w.Write([]byte("<p>")) }, contentSecurityPolicy},
		{"json", func(w http.ResponseWriter, r *http.Request) { writeJSON(w, 200, map[string]int{"a": 1}) }, ""},
	}
	for _, tc := range cases {
		rec := httptest.NewRecorder()
		sw := &statusWriter{ResponseWriter: rec, code: http.StatusOK}
		tc.h(sw, httptest.NewRequest("GET", "/", nil))
		if got := rec.Header().Get("Content-Security-Policy"); got != tc.wantCSP {
			t.Errorf("%s: CSP %q, want %q", tc.name, got, tc.wantCSP)
		}
	}
}
