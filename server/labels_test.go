//go:build !js

package server_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/duplexscope/duplexscope/report"
	"github.com/duplexscope/duplexscope/server"
	"github.com/duplexscope/duplexscope/server/archive"
	"github.com/duplexscope/duplexscope/server/archive/sqlite"
)

// patch sends PATCH /api/reports/{id} with a JSON body and extra headers.
func (e *env) patch(id, body string, hdr ...string) (int, []byte) {
	e.t.Helper()
	code, _, b := e.do("PATCH", "/api/reports/"+id, []byte(body), append([]string{"Content-Type", "application/json"}, hdr...)...)
	return code, b
}

// storedRun reads report id back from the archive.
func (e *env) storedRun(id string) report.Run {
	e.t.Helper()
	code, _, b := e.do("GET", "/api/reports/"+id, nil)
	if code != 200 {
		e.t.Fatalf("GET %s = %d %s", id, code, b)
	}
	return decode[report.Report](e.t, b).Run
}

// TestPatchLabelsAuth: with a write token, PATCH needs the token, a
// same-origin sign-in, or the capability of that very report; a foreign
// page's Origin is 403 whatever it carries.
func TestPatchLabelsAuth(t *testing.T) {
	e := newEnv(t, func(c *server.Config) { c.WriteToken = "tok" })
	upload := func(key string) (string, string) {
		t.Helper()
		code, _, b := e.do("POST", "/api/capabilities", nil, "Authorization", "Bearer tok", "Idempotency-Key", key)
		if code != 200 {
			t.Fatalf("mint = %d %s", code, b)
		}
		c := decode[server.CapabilityResponse](t, b)
		code, _, b = e.do("POST", "/api/reports", fixture{model: "m-" + key, n: 2, ttfp: 300}.json(t), "Authorization", "Bearer "+c.Capability, "Idempotency-Key", key)
		if code != 201 {
			t.Fatalf("upload = %d %s", code, b)
		}
		return c.ID, "Bearer " + c.Capability
	}
	idA, capA := upload("a")
	idB, _ := upload("b")
	self := e.http.URL
	cookie := "duplexscope_session=" + sessionOf(e.signIn("tok", self)).Value
	cases := []struct {
		name, id string
		hdr      []string
		want     int
	}{
		{"anonymous", idA, nil, 401},
		{"wrong token", idA, []string{"Authorization", "Bearer nope"}, 401},
		{"sign-in cookie from a foreign page", idA, []string{"Cookie", cookie, "Origin", "http://evil.example"}, 403},
		{"token from a foreign page", idA, []string{"Authorization", "Bearer tok", "Origin", "http://evil.example"}, 403},
		{"A's capability on B", idB, []string{"Authorization", capA}, 403},
		{"A's capability on A", idA, []string{"Authorization", capA}, 200},
		{"the token on B", idB, []string{"Authorization", "Bearer tok"}, 200},
		{"same-origin sign-in on B", idB, []string{"Cookie", cookie, "Origin", self}, 200},
		{"the token on an unknown id", archive.NewID(), []string{"Authorization", "Bearer tok"}, 404},
	}
	for _, tc := range cases {
		code, b := e.patch(tc.id, `{"name":"`+tc.name+`"}`, tc.hdr...)
		if code != tc.want {
			t.Errorf("%s: PATCH = %d %s, want %d", tc.name, code, b, tc.want)
		}
		if tc.id == idA || tc.id == idB {
			got := e.storedRun(tc.id).Name
			if changed := got == tc.name; changed != (tc.want == 200) {
				t.Errorf("%s: stored name %q after %d", tc.name, got, code)
			}
		}
	}
}

// TestPatchLabelsBodies: any subset of the keys changes only those keys;
// null clears one; bad bodies are 400 naming the field, oversize 413,
// a non-JSON Content-Type 415.
func TestPatchLabelsBodies(t *testing.T) {
	e := newEnv(t, nil)
	_, _, b := e.do("POST", "/api/reports", fixture{model: "m", n: 2, ttfp: 300}.json(t))
	id := decode[server.UploadResponse](t, b).ID
	steps := []struct {
		body                string
		wantName, wantNotes string
		wantTags            []string
	}{
		{`{"name":"baseline","notes":"fp16\nGPU A","tags":["gpu-a","fp16"]}`, "baseline", "fp16\nGPU A", []string{"gpu-a", "fp16"}},
		{`{"tags":["gpu-b"]}`, "baseline", "fp16\nGPU A", []string{"gpu-b"}},
		{`{"name":"renamed"}`, "renamed", "fp16\nGPU A", []string{"gpu-b"}},
		{`{"notes":null,"tags":[]}`, "renamed", "", nil},
	}
	for i, st := range steps {
		code, b := e.patch(id, st.body)
		if code != 200 {
			t.Fatalf("step %d: PATCH %s = %d %s", i, st.body, code, b)
		}
		resp := decode[server.LabelsResponse](t, b)
		run := e.storedRun(id)
		if run.Name != st.wantName || run.Notes != st.wantNotes || strings.Join(run.Tags, ",") != strings.Join(st.wantTags, ",") || resp.Name != st.wantName {
			t.Errorf("step %d: stored %q %q %q (answer %+v), want %q %q %q", i, run.Name, run.Notes, run.Tags, resp, st.wantName, st.wantNotes, st.wantTags)
		}
		if run.Model != "m" {
			t.Errorf("step %d: the rest of the report changed: model %q", i, run.Model)
		}
	}
	bad := []struct{ body, field string }{
		{`{"name":"a\u0000b"}`, "name"},
		{`{"name":"` + strings.Repeat("x", report.MaxNameChars+1) + `"}`, "name"},
		{`{"name":"line\nbreak"}`, "name"},
		{`{"notes":"` + strings.Repeat("x", report.MaxNotesChars+1) + `"}`, "notes"},
		{`{"tags":["a","a"]}`, "tags[1]"},
		{`{"tags":"a,b"}`, "tags"},
		{`{"tags":[1]}`, "tags"},
		{`{"name":7}`, "name"},
		{`{"nmae":"typo"}`, "nmae"},
		{`{"name":"a","Name":"b"}`, "Name"},
		{`{}`, ""},
		{`[]`, ""},
		{`{"name":"a"} {"name":"b"}`, ""},
		{`not json`, ""},
	}
	for _, tc := range bad {
		code, b := e.patch(id, tc.body)
		if code != 400 {
			t.Errorf("PATCH %.60s = %d %s, want 400", tc.body, code, b)
			continue
		}
		if tc.field != "" && !strings.Contains(string(b), `"path":"`+tc.field+`"`) {
			t.Errorf("PATCH %.60s: %s does not name the field %s", tc.body, b, tc.field)
		}
	}
	if got := e.storedRun(id).Name; got != "renamed" {
		t.Errorf("a refused PATCH changed the name to %q", got)
	}
	if code, b := e.patch(id, `{"notes":"`+strings.Repeat("x", server.MaxLabelsBody)+`"}`); code != 413 {
		t.Errorf("oversize PATCH = %d %s, want 413", code, b)
	}
	if code, _, b := e.do("PATCH", "/api/reports/"+id, []byte(`{"name":"x"}`), "Content-Type", "text/plain"); code != 415 {
		t.Errorf("PATCH as text/plain = %d %s, want 415", code, b)
	}
	if code, b := e.patch("not-a-report-id", `{"name":"x"}`); code != 400 {
		t.Errorf("PATCH of a malformed id = %d %s, want 400", code, b)
	}
	// The share page shows the new name at once (no stale cache).
	if code, _, page := e.do("GET", "/r/"+id, nil); code != 200 || !strings.Contains(string(page), "renamed") {
		t.Errorf("share page after PATCH = %d, does not show the new name", code)
	}
}

// TestPatchLabelsPersist: a relabel in the SQLite archive survives a
// restart of the server and its store.
func TestPatchLabelsPersist(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	start := func() (*env, *sqlite.Store) {
		st, err := sqlite.Open(ctx, dir)
		if err != nil {
			t.Fatal(err)
		}
		e := &env{t: t, clock: newFakeClock()}
		s, err := server.New(server.Config{Store: st, Now: e.clock.Now, UploadRate: -1, Version: "test", Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		e.srv, e.http = s, httptest.NewServer(s)
		return e, st
	}
	e, st := start()
	_, _, b := e.do("POST", "/api/reports", fixture{model: "m", n: 2, ttfp: 300}.json(t))
	id := decode[server.UploadResponse](t, b).ID
	if code, b := e.patch(id, `{"name":"kept","notes":"across restarts","tags":["sqlite"]}`); code != 200 {
		t.Fatalf("PATCH = %d %s", code, b)
	}
	e.http.Close()
	e.srv.Close()
	st.Close()
	e, st = start()
	defer func() { e.http.Close(); e.srv.Close(); st.Close() }()
	run := e.storedRun(id)
	if run.Name != "kept" || run.Notes != "across restarts" || len(run.Tags) != 1 || run.Tags[0] != "sqlite" {
		t.Errorf("after restart: %q %q %q", run.Name, run.Notes, run.Tags)
	}
	code, _, list := e.do("GET", "/api/reports?q=sqlite", nil)
	if code != 200 || !strings.Contains(string(list), `"name":"kept"`) {
		t.Errorf("list by tag after restart = %d %s", code, list)
	}
}
