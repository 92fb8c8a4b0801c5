//go:build !js

package server_test

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/duplexscope/duplexscope/app"
	"github.com/duplexscope/duplexscope/internal/testkit"
	"github.com/duplexscope/duplexscope/server"
)

func TestPolicyHost(t *testing.T) {
	e := newEnv(t, func(c *server.Config) {
		c.PublicHosts = []string{"duplex.example", "team.example:8443"}
		c.Sim = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusTeapot) })
	})
	port := e.http.URL[strings.LastIndex(e.http.URL, ":")+1:]
	cases := []struct {
		path, host string
		want       int
	}{
		{"/healthz", "127.0.0.1:" + port, 200},
		{"/healthz", "127.0.0.1", 200},
		{"/healthz", "127.9.9.9:1", 200},
		{"/healthz", "localhost:" + port, 200},
		{"/healthz", "LocalHost.:" + port, 200},
		{"/healthz", "app.localhost:" + port, 200},
		{"/healthz", "[::1]:" + port, 200},
		{"/healthz", "duplex.example", 200},
		{"/healthz", "duplex.example:9", 200},
		{"/healthz", "team.example:8443", 200},
		{"/healthz", "team.example:8444", 421},
		{"/healthz", "team.example", 421},
		{"/healthz", "evil.example", 421},
		{"/healthz", "localhost.evil.example", 421},
		{"/healthz", "10.0.0.1:" + port, 421}, // not the address this connection arrived on
		{"/api/reports", "evil.example", 421},
		{"/", "evil.example", 421},
		// The simulator answers any Host (and any Origin): no user data.
		{"/v1/realtime", "evil.example", http.StatusTeapot},
		{"/sim/options", "evil.example", http.StatusTeapot},
	}
	for _, tc := range cases {
		code, _, _ := e.do("GET", tc.path, nil, "Host", tc.host)
		if code != tc.want {
			t.Errorf("GET %s Host %q: %d, want %d", tc.path, tc.host, code, tc.want)
		}
	}
}

func TestPolicyWrites(t *testing.T) {
	e := newEnv(t, func(c *server.Config) { c.AllowOrigins = []string{"https://ci.example"} })
	self := e.http.URL
	host := strings.TrimPrefix(self, "http://")
	body := fixture{model: "m", n: 1, ttfp: 300}.json(t)
	cases := []struct {
		name, method, path, ctype, origin string
		want                              int
	}{
		{"json", "POST", "/api/reports", "application/json", "", 201},
		{"json charset", "POST", "/api/reports", "application/json; charset=utf-8", "", 201},
		{"same origin", "POST", "/api/reports", "application/json", self, 201},
		{"listed origin", "POST", "/api/reports", "application/json", "https://ci.example", 201},
		{"foreign origin", "POST", "/api/reports", "application/json", "https://evil.example", 403},
		{"foreign scheme same host", "POST", "/api/reports", "application/json", "ftp://" + host, 403},
		{"null origin", "POST", "/api/reports", "application/json", "null", 403},
		{"lookalike origin", "POST", "/api/reports", "application/json", self + ".evil.example", 403},
		{"text/plain", "POST", "/api/reports", "text/plain", "", 415},
		{"text/plain charset", "POST", "/api/reports", "Text/Plain; charset=UTF-8", "", 415},
		{"form", "POST", "/api/import", "application/x-www-form-urlencoded", "", 415},
		{"multipart", "POST", "/api/loadruns/r/sessions", "multipart/form-data; boundary=b", "", 415},
		{"none", "POST", "/api/reports", "", "", 415},
		{"octet-stream report", "POST", "/api/reports", "application/octet-stream", "", 415},
		{"unparsable", "POST", "/api/reports", "application/json; ===", "", 415},
		{"attachment text/plain", "PUT", "/api/reports/" + idFor(1) + "/attachments/a.txt", "text/plain", "", 415},
		{"attachment none", "PUT", "/api/reports/" + idFor(1) + "/attachments/a.txt", "", "", 415},
		{"delete foreign origin", "DELETE", "/api/reports/" + idFor(1), "", "https://evil.example", 403},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			hdr := []string{"Content-Type", tc.ctype}
			if tc.origin != "" {
				hdr = append(hdr, "Origin", tc.origin)
			}
			req, _ := http.NewRequest(tc.method, e.http.URL+tc.path, strings.NewReader(string(body)))
			for i := 0; i < len(hdr); i += 2 {
				if hdr[i+1] != "" {
					req.Header.Set(hdr[i], hdr[i+1])
				}
			}
			resp, err := e.http.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tc.want {
				t.Errorf("%s %s (%q, Origin %q): %d, want %d", tc.method, tc.path, tc.ctype, tc.origin, resp.StatusCode, tc.want)
			}
		})
	}
	// What the page and the CLI PUT as attachments still lands.
	types := []string{"application/json", "audio/wav", "application/octet-stream", "application/x-ndjson"}
	attName := func(ct string) string { return strings.NewReplacer("/", "-", ".", "-").Replace(ct) + ".bin" }
	var decl []att
	for _, ct := range types {
		decl = append(decl, att{attName(ct), ct, []byte("{}")})
	}
	_, _, b := e.do("POST", "/api/reports", fixture{model: "m", n: 1, ttfp: 300, edit: declare(decl...)}.json(t))
	id := decode[struct{ ID string }](t, b).ID
	for _, ct := range types {
		name := attName(ct)
		if code, _, b := e.do("PUT", "/api/reports/"+id+"/attachments/"+url.PathEscape(name), []byte("{}"), "Content-Type", ct); code != 201 {
			t.Errorf("PUT attachment as %s: %d %s", ct, code, b)
		}
	}
}

// TestPageCSP: every HTML answer carries a CSP with frame-ancestors
// 'none' — the go-app page (its own, allowing wasm, workers and the
// websockets the user dials), the server-rendered pages, and any HTML
// a page handler writes without setting one.
func TestPageCSP(t *testing.T) {
	assets := fstest.MapFS{
		"app.wasm":       {Data: []byte("\x00asm-fake")},
		"app.css":        {Data: []byte("body{}")},
		"echarts.min.js": {Data: []byte("var echarts={}")},
	}
	page := app.Handler(&app.HandlerOptions{Assets: assets})
	e := newEnv(t, func(c *server.Config) { c.App = page })
	bare := newEnv(t, func(c *server.Config) {
		c.App = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Write([]byte("<!doctype html><html><head></head><body>hi</body></html>"))
		})
	})
	placeholder := newEnv(t, nil)
	appCSP := []string{"script-src 'self' 'wasm-unsafe-eval'", "worker-src 'self'", "connect-src 'self' ws: wss:", "media-src 'self' blob: data:", "object-src 'none'", "base-uri 'none'", "frame-ancestors 'none'", "default-src 'none'"}
	strict := []string{"default-src 'none'", "script-src 'self';", "frame-ancestors 'none'", "object-src 'none'", "base-uri 'none'"}
	// the share page's player (<audio src="/api/reports/{id}/audio/…">) needs media-src 'self'
	share := append(slices.Clone(strict), "media-src 'self'")
	cases := []struct {
		env  *env
		path string
		want []string
	}{
		{e, "/", appCSP},
		{e, "/load?model=%22%3E%3Cscript%3E", appCSP},
		{e, "/r/not-an-id", strict},
		{e, "/r/" + idFor(7), share},
		{e, "/history", strict},
		{e, "/compare?ids=x", strict},
		{e, "/runs/nope", strict},
		{bare, "/", appCSP},
		{placeholder, "/", strict},
	}
	for _, tc := range cases {
		code, hdr, b := tc.env.do("GET", tc.path, nil)
		if !strings.HasPrefix(hdr.Get("Content-Type"), "text/html") {
			t.Errorf("%s: %d %q, want an HTML page", tc.path, code, hdr.Get("Content-Type"))
			continue
		}
		csp := hdr.Get("Content-Security-Policy")
		testkit.Mentions(t, fmt.Sprintf("%s: CSP %q", tc.path, csp), csp, tc.want, nil)
		if d := directive(csp, "script-src"); strings.Contains(d, "'unsafe-inline'") || strings.Contains(d, "'unsafe-eval'") || d == "" {
			t.Errorf("%s: script-src %q lets inline script or eval run (or is missing)", tc.path, d)
		}
		if hdr.Get("X-Frame-Options") != "DENY" {
			t.Errorf("%s: X-Frame-Options %q", tc.path, hdr.Get("X-Frame-Options"))
		}
		// script-src has no hash or nonce, so the page must carry no
		// inline script (go-app v10 bootstraps from /app.js).
		for _, tag := range scriptTag.FindAllString(string(b), -1) {
			if !strings.Contains(tag, " src=") {
				t.Errorf("%s: inline script %s in the page, blocked by its CSP", tc.path, tag)
			}
		}
	}
}

var scriptTag = regexp.MustCompile(`(?i)<script\b[^>]*>`)

// directive returns the value of one CSP directive ("" if absent).
func directive(csp, name string) string {
	for _, d := range strings.Split(csp, ";") {
		if f := strings.Fields(d); len(f) > 0 && f[0] == name {
			return strings.Join(f[1:], " ")
		}
	}
	return ""
}
