//go:build security && linux

package security

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

func exampleImport(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/web-duplex_metrics.json")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestPolicyForeignHost: a Host the server does not answer to gets 421
// (DNS rebinding: evil.example resolving to 127.0.0.1 gets nothing).
func TestPolicyForeignHost(t *testing.T) {
	s := Start(t, "--public-host", "duplex.example")
	_, port, _ := strings.Cut(s.Addr, ":")
	cases := []struct {
		host string
		want int
	}{
		{"evil.example", http.StatusMisdirectedRequest},
		{"evil.example:" + port, http.StatusMisdirectedRequest},
		{"127.0.0.1.evil.example:" + port, http.StatusMisdirectedRequest},
		{"localhost.evil.example:" + port, http.StatusMisdirectedRequest},
		{s.Addr, http.StatusOK},
		{"localhost:" + port, http.StatusOK},
		{"LOCALHOST:" + port, http.StatusOK},
		{"[::1]:" + port, http.StatusOK},
		{"duplex.example", http.StatusOK},
		{"duplex.example:" + port, http.StatusOK},
	}
	for _, path := range []string{"/", "/api/reports", "/history"} {
		for _, tc := range cases {
			resp, body := s.Do(t, Request{Path: path, Header: map[string]string{"Host": tc.host}})
			if resp.StatusCode != tc.want {
				t.Errorf("GET %s Host %s: %d, want %d", path, tc.host, resp.StatusCode, tc.want)
			}
			if tc.want == http.StatusMisdirectedRequest && strings.Contains(string(body), "upload-capability") {
				t.Errorf("GET %s Host %s: the answer carries the upload capability", path, tc.host)
			}
			if tc.host == "evil.example:"+port {
				Attack(t, "5", "GET "+path+" with Host: evil.example:PORT (DNS rebinding)", resp.Status)
			}
		}
	}
}

// TestPolicyCrossSiteContentType: a cross-site form or fetch without a
// preflight can only send text/plain, form-urlencoded or multipart; API
// writes refuse those (and none) with 415.
func TestPolicyCrossSiteContentType(t *testing.T) {
	s := Start(t)
	body := exampleImport(t)
	id := importReport(t, s)
	for _, ct := range []string{"text/plain", "text/plain;charset=UTF-8", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", ""} {
		for _, req := range []Request{
			{Method: "POST", Path: "/api/import", Body: body},
			{Method: "POST", Path: "/api/reports", Body: []byte(`{}`)},
			{Method: "POST", Path: "/api/loadruns/r1/sessions", Body: []byte(`{"shard":1,"shards":1,"sessions":[]}`)},
			{Method: "PUT", Path: "/api/reports/" + id + "/attachments/wire-log.json", Body: []byte(`{}`)},
		} {
			req.Header = map[string]string{}
			if ct != "" {
				req.Header["Content-Type"] = ct
			}
			resp, b := s.Do(t, req)
			if resp.StatusCode != http.StatusUnsupportedMediaType {
				t.Errorf("%s %s Content-Type %q: %d %s, want 415", req.Method, req.Path, ct, resp.StatusCode, b)
			}
			if req.Path == "/api/import" {
				Attack(t, "5", fmt.Sprintf("cross-site POST /api/import Content-Type %q", ct), resp.Status)
			}
		}
	}
	// What the page and CLI send still works.
	if resp, b := s.Do(t, Request{Method: "POST", Path: "/api/import", Header: map[string]string{"Content-Type": "application/json; charset=utf-8"}, Body: body}); resp.StatusCode != http.StatusCreated {
		t.Errorf("JSON import: %d %s", resp.StatusCode, b)
	}
}

// TestPolicyForeignOrigin: writes from a page on another origin get 403
// unless --allow-origin lists it; same-origin and Origin-less (CLI) pass.
func TestPolicyForeignOrigin(t *testing.T) {
	s := Start(t, "--allow-origin", "https://ci.example")
	body := exampleImport(t)
	cases := []struct {
		origin string
		want   int
	}{
		{"https://evil.example", http.StatusForbidden},
		{"null", http.StatusForbidden},
		{"http://" + s.Addr + ".evil.example", http.StatusForbidden},
		{"https://ci.example", http.StatusCreated},
		{"http://" + s.Addr, http.StatusCreated},
		{"", http.StatusCreated},
	}
	for _, tc := range cases {
		h := map[string]string{"Content-Type": "application/json"}
		if tc.origin != "" {
			h["Origin"] = tc.origin
		}
		resp, b := s.Do(t, Request{Method: "POST", Path: "/api/import", Header: h, Body: body})
		if resp.StatusCode != tc.want {
			t.Errorf("POST /api/import Origin %q: %d %s, want %d", tc.origin, resp.StatusCode, b, tc.want)
		}
		if tc.origin == "https://evil.example" {
			Attack(t, "5", "POST /api/import application/json, Origin: https://evil.example", resp.Status)
		}
	}
	id := importReport(t, s)
	resp, _ := s.Do(t, Request{Method: "DELETE", Path: "/api/reports/" + id, Header: map[string]string{"Origin": "https://evil.example"}})
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("DELETE with a foreign Origin: %d, want 403", resp.StatusCode)
	}
	Attack(t, "5", "DELETE /api/reports/ID, Origin: https://evil.example", resp.Status)
}

// TestPolicySimulatorOpenToAnyOrigin: the embedded simulator holds no user
// data; vLLM's own web demo, served from elsewhere, must reach it.
func TestPolicySimulatorOpenToAnyOrigin(t *testing.T) {
	s := Start(t)
	for _, origin := range []string{"https://vllm-demo.example", "null", "http://localhost:3000"} {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		c, resp, err := websocket.Dial(ctx, "ws://"+s.Addr+"/v1/realtime?duplex=1&model=sim", &websocket.DialOptions{HTTPHeader: http.Header{"Origin": {origin}}})
		cancel()
		result := "101 accepted"
		if err != nil {
			result = fmt.Sprint(err)
			if resp != nil {
				result = resp.Status
			}
			t.Errorf("simulator websocket with Origin %s: %s, want accepted", origin, result)
		} else {
			c.Close(websocket.StatusNormalClosure, "")
		}
		if origin == "https://vllm-demo.example" {
			Attack(t, "5", "simulator websocket, Origin: https://vllm-demo.example (must stay open)", result)
		}
	}
}
