package app

import (
	"net/url"
	"strings"
	"testing"
)

// TestLoadRunCapParam: cap= needs run_id and a capability's shape; the
// runner links of the other shards carry it, the page's own shard not.
func TestLoadRunCapParam(t *testing.T) {
	const rc = "AbCdEfGhIjKlMnOpQrStUv"
	tests := []struct {
		query   string
		wantCap string
		wantErr string
		links   []string // shard values of the runner links
	}{
		{"run_id=R&shard=2/3&cap=" + rc, rc, "", []string{"1/3", "3/3"}},
		{"run_id=R&shard=1/1&cap=" + rc, rc, "", nil},
		{"run_id=R&shard=1/2", "", "", nil},
		{"cap=" + rc, "", "cap needs run_id", nil},
		{"run_id=R&cap=short", "", "not a run capability", nil},
	}
	for _, tc := range tests {
		q, _ := url.ParseQuery(tc.query)
		s, errs := ParseLoadSettings(q, DefaultLoadSettings("127.0.0.1:8080", false))
		var msgs []string
		for _, e := range errs {
			msgs = append(msgs, e.Error())
		}
		if got := strings.Join(msgs, "; "); (tc.wantErr == "") != (got == "") || !strings.Contains(got, tc.wantErr) {
			t.Errorf("%s: errors %q, want %q", tc.query, got, tc.wantErr)
		}
		if s.RunCap != tc.wantCap {
			t.Errorf("%s: cap %q, want %q", tc.query, s.RunCap, tc.wantCap)
		}
		links := s.runnerLinks()
		if len(links) != len(tc.links) {
			t.Fatalf("%s: links %v, want shards %v", tc.query, links, tc.links)
		}
		for i, l := range links {
			u, _ := url.Parse(l)
			if u.Path != "/load" || u.Query().Get("shard") != tc.links[i] || u.Query().Get("cap") != rc || u.Query().Get("run_id") != "R" {
				t.Errorf("%s: link %s, want shard %s with run_id and cap", tc.query, l, tc.links[i])
			}
		}
	}
}
