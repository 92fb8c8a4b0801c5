//go:build !js

package bench

import "testing"

// TestResponsesDone checks the bare client's settle condition: every
// response it saw created has its response.done, whichever way the event
// names the response.
func TestResponsesDone(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		events   []string
		wantType string // type of the last event
		want     bool
	}{
		{"nothing seen", nil, "", true},
		{"created, not done", []string{`{"type":"response.created","response":{"id":"r1"}}`}, "response.created", false},
		{"created then done", []string{`{"type":"response.created","response":{"id":"r1"}}`, `{"type":"response.done","response":{"id":"r1"}}`}, "response.done", true},
		{"top-level response_id", []string{`{"type":"response.created","response_id":"r1"}`, `{"type":"response.done","response_id":"r1"}`}, "response.done", true},
		{"one of two still open", []string{`{"type":"response.created","response_id":"r1"}`, `{"type":"response.created","response_id":"r2"}`, `{"type":"response.done","response_id":"r1"}`}, "response.done", false},
		{"events without identity change nothing", []string{`{"type":"response.created","response_id":"r1"}`, `{"type":"session.closed"}`}, "session.closed", false},
		{"not JSON", []string{`nope`}, "", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m := responsesDone{}
			typ := ""
			for _, e := range tc.events {
				typ = m.observe([]byte(e))
			}
			if typ != tc.wantType {
				t.Errorf("last type = %q, want %q", typ, tc.wantType)
			}
			if got := m.allDone(); got != tc.want {
				t.Errorf("allDone = %v, want %v (%v)", got, tc.want, m)
			}
		})
	}
}
