//go:build !js

package server_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/duplexscope/duplexscope/server"
	"github.com/duplexscope/duplexscope/server/loadrun"
)

// TestLoadRunRoutes: the barrier answers only when both shards are ready,
// sessions pool into the live status, and bad input gets words and codes.
func TestLoadRunRoutes(t *testing.T) {
	e := newEnv(t, nil)
	code, _, b := e.do("POST", "/api/loadruns/lr1", []byte(`{"shards":2,"levels":[2]}`))
	if code != http.StatusCreated {
		t.Fatalf("create = %d %s", code, b)
	}
	created := decode[loadrun.CreateResponse](t, b)
	rc := created.RunCap
	if !loadrun.ValidRunCap(rc) || !created.Created || created.Shards != 2 || created.ExpiresAt == "" {
		t.Fatalf("create answered %+v", created)
	}
	if code, _, b := e.do("POST", "/api/loadruns/lr1", []byte(`{"shards":2}`), loadrun.CapHeader, rc); code != 200 || decode[loadrun.CreateResponse](t, b).Created {
		t.Errorf("repeat create with the capability = %d %s, want 200 created false", code, b)
	}
	var wg sync.WaitGroup
	codes := make([]int, 2)
	for i := range 2 {
		wg.Go(func() {
			body, _ := json.Marshal(loadrun.ReadyRequest{Level: 2, Shard: i + 1, Shards: 2, Levels: []int{2}})
			codes[i], _, _ = e.do("POST", "/api/loadruns/lr1/ready?wait_s=30", body, loadrun.CapHeader, rc)
		})
	}
	wg.Wait()
	if codes[0] != 200 || codes[1] != 200 {
		t.Fatalf("ready codes %v, want 200 for both", codes)
	}
	post := `{"shard":2,"shards":2,"sessions":[{"level":2,"index":1,"responses":[{"ttfp_ms":210,"ttfp_clock":"server"}],"underruns":0},` +
		`{"level":2,"index":0,"responses":[{"ttfp_ms":190,"ttfp_clock":"server"}],"underruns":1}]}`
	if code, _, b := e.do("POST", "/api/loadruns/lr1/sessions", []byte(post), loadrun.CapHeader, rc); code != 200 {
		t.Fatalf("sessions = %d %s", code, b)
	}
	code, _, b = e.do("GET", "/api/loadruns/lr1", nil)
	if code != 200 {
		t.Fatalf("status = %d %s", code, b)
	}
	st := decode[loadrun.Status](t, b)
	if st.Sessions != 2 || len(st.Levels) != 1 || st.Levels[0].Reported != 2 || st.Levels[0].Complete() || *st.Levels[0].TTFPP99Ms != 210 || st.Levels[0].Underruns != 1 {
		t.Errorf("status %+v", st)
	}
	huge := `{"shard":1,"shards":2,"sessions":[{"level":1,"index":0,"pacing_lag_ms":[` + strings.Repeat("0,", 2<<20) + `0]}]}`
	bad := []struct {
		name, method, path, body, cap string
		want                          int
	}{
		{"unknown run", "GET", "/api/loadruns/none", "", "", 404},
		{"not json", "POST", "/api/loadruns/lr1/sessions", "{", rc, 400},
		{"shard count changes", "POST", "/api/loadruns/lr1/sessions", `{"shard":1,"shards":3,"sessions":[]}`, rc, 409},
		{"index past level", "POST", "/api/loadruns/lr1/sessions", `{"shard":1,"shards":2,"sessions":[{"level":2,"index":7,"responses":[],"underruns":0}]}`, rc, 400},
		{"bad wait", "POST", "/api/loadruns/lr1/ready?wait_s=-1", `{"level":2,"shard":1,"shards":2}`, rc, 400},
		{"nobody else comes", "POST", "/api/loadruns/lr2/ready?wait_s=0.001", `{"level":1,"shard":1,"shards":2}`, "", 504},
		{"shard without the capability", "POST", "/api/loadruns/lr1/sessions", `{"shard":2,"shards":2,"sessions":[]}`, "", 403},
		{"shard with another capability", "POST", "/api/loadruns/lr1/ready", `{"level":2,"shard":2,"shards":2}`, loadrun.NewRunCap(), 403},
		{"create taken run", "POST", "/api/loadruns/lr1", `{"shards":2}`, "", 403},
		{"body over the limit", "POST", "/api/loadruns/lr1/sessions", huge, rc, 413},
	}
	for _, c := range bad {
		var hdr []string
		if c.cap != "" {
			hdr = []string{loadrun.CapHeader, c.cap}
		}
		code, _, b := e.do(c.method, c.path, []byte(c.body), hdr...)
		var eb struct {
			Error string `json:"error"`
		}
		if code != c.want || json.Unmarshal(b, &eb) != nil || eb.Error == "" {
			t.Errorf("%s: %d %s, want %d with an error message", c.name, code, b, c.want)
		}
	}
}

// TestLoadRunNeedsWriteToken: the load-run writes are writes (the token or
// a signed-in page); watching is open.
func TestLoadRunNeedsWriteToken(t *testing.T) {
	e := newEnv(t, func(c *server.Config) { c.WriteToken = "tok" })
	body := []byte(`{"shard":1,"shards":1,"sessions":[]}`)
	if code, _, _ := e.do("POST", "/api/loadruns/w/sessions", body); code != http.StatusUnauthorized {
		t.Errorf("no token: %d, want 401", code)
	}
	if code, _, _ := e.do("POST", "/api/loadruns/w/sessions", body, "Authorization", "Bearer tok"); code != 200 {
		t.Errorf("token: %d, want 200", code)
	}
	if code, _, _ := e.do("GET", "/api/loadruns/w", nil); code != 200 {
		t.Errorf("watching: %d, want 200", code)
	}
	// Creating needs write rights; a shard holding the run capability joins without them.
	if code, _, _ := e.do("POST", "/api/loadruns/w2", []byte(`{"shards":2}`)); code != http.StatusUnauthorized {
		t.Errorf("create without token: %d, want 401", code)
	}
	code, _, b := e.do("POST", "/api/loadruns/w2", []byte(`{"shards":2}`), "Authorization", "Bearer tok")
	if code != http.StatusCreated {
		t.Fatalf("create with token: %d %s", code, b)
	}
	rc := decode[loadrun.CreateResponse](t, b).RunCap
	join := []byte(`{"shard":2,"shards":2,"sessions":[]}`)
	if code, _, _ := e.do("POST", "/api/loadruns/w2/sessions", join, loadrun.CapHeader, rc); code != 200 {
		t.Errorf("shard with the run capability: %d, want 200", code)
	}
	if code, _, _ := e.do("POST", "/api/loadruns/w2/sessions", join, loadrun.CapHeader, loadrun.NewRunCap()); code != http.StatusUnauthorized {
		t.Errorf("shard with a wrong capability and no token: %d, want 401", code)
	}
	if code, _, _ := e.do("POST", "/api/loadruns/w2/sessions", join, "Authorization", "Bearer tok"); code != http.StatusForbidden {
		t.Errorf("token but no run capability: %d, want 403", code)
	}
}
