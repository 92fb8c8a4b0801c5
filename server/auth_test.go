//go:build !js

package server_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/duplexscope/duplexscope/server"
)

// signIn posts the sign-in form with origin and returns the response
// (redirects not followed).
func (e *env) signIn(token, origin string, hdr ...string) *http.Response {
	e.t.Helper()
	form := url.Values{"token": {token}, "next": {"/history"}}
	req, _ := http.NewRequest("POST", e.http.URL+"/signin", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	resp.Body.Close()
	return resp
}

func sessionOf(resp *http.Response) *http.Cookie {
	for _, c := range resp.Cookies() {
		if c.Name == server.SessionCookie {
			return c
		}
	}
	return nil
}

// TestSignIn: the form sets an HttpOnly SameSite=Strict cookie holding a
// signed session (not the token) only for the right token posted from
// this server's own page; the cookie then authorises same-origin writes
// and listing, and nothing once expired or signed out.
func TestSignIn(t *testing.T) {
	e := newEnv(t, func(c *server.Config) { c.WriteToken = "s3cret" })
	code, hdr, page := e.do("GET", "/signin", nil)
	if code != 200 || !strings.Contains(hdr.Get("Content-Security-Policy"), "frame-ancestors 'none'") || !strings.Contains(string(page), `name="token"`) || hdr.Get("Referrer-Policy") != "same-origin" {
		t.Fatalf("GET /signin = %d csp %q:\n%s", code, hdr.Get("Content-Security-Policy"), page)
	}
	self := e.http.URL
	for _, tc := range []struct {
		name, token, origin string
		want                int
	}{
		{"wrong token", "nope", self, 401},
		{"foreign origin", "s3cret", "http://evil.example", 403},
		{"other port of the same host", "s3cret", strings.Replace(self, "127.0.0.1:", "127.0.0.1:1", 1), 403},
		{"no origin", "s3cret", "", 403},
	} {
		resp := e.signIn(tc.token, tc.origin)
		if resp.StatusCode != tc.want || sessionOf(resp) != nil {
			t.Errorf("%s: %d (cookie %v), want %d and no cookie", tc.name, resp.StatusCode, sessionOf(resp), tc.want)
		}
	}
	resp := e.signIn("s3cret", self)
	c := sessionOf(resp)
	if resp.StatusCode != 303 || resp.Header.Get("Location") != "/history" || c == nil {
		t.Fatalf("sign-in = %d Location %q cookie %v", resp.StatusCode, resp.Header.Get("Location"), c)
	}
	if !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || c.Secure || strings.Contains(c.Value, "s3cret") || c.Path != "/" {
		t.Errorf("cookie %+v: want HttpOnly, SameSite=Strict, not Secure over http, path /, no token inside", c)
	}
	e.clock.Advance(time.Minute) // past the sign-in rate limit
	if sc := sessionOf(e.signIn("s3cret", self, "X-Forwarded-Proto", "https")); sc == nil || !sc.Secure {
		t.Errorf("cookie behind an https proxy = %+v, want Secure", sc)
	}
	cookie := server.SessionCookie + "=" + c.Value
	body := fixture{model: "m", n: 1, ttfp: 300}.json(t)
	for _, tc := range []struct {
		name   string
		hdr    []string
		want   int
		listed int
	}{
		{"cookie from this origin", []string{"Cookie", cookie, "Origin", self}, 201, 200},
		{"cookie, fetch metadata same-origin", []string{"Cookie", cookie, "Sec-Fetch-Site", "same-origin"}, 201, 200},
		{"cookie, Origin null but same-origin fetch", []string{"Cookie", cookie, "Origin", "null", "Sec-Fetch-Site", "same-origin"}, 201, 200},
		{"cookie, Origin null, cross-site fetch", []string{"Cookie", cookie, "Origin", "null", "Sec-Fetch-Site", "cross-site"}, 403, 200},
		{"cookie from another origin", []string{"Cookie", cookie, "Origin", "http://evil.example"}, 403, 200},
		{"cookie from another origin claiming same-origin", []string{"Cookie", cookie, "Origin", "http://evil.example", "Sec-Fetch-Site", "same-origin"}, 403, 200},
		{"cookie without origin", []string{"Cookie", cookie}, 401, 200},
		{"forged cookie", []string{"Cookie", cookie + "x", "Origin", self}, 401, 401},
		{"nothing", []string{"Origin", self}, 401, 401},
	} {
		if code, _, b := e.do("POST", "/api/reports", body, tc.hdr...); code != tc.want {
			t.Errorf("%s: upload = %d %s, want %d", tc.name, code, b, tc.want)
		}
		if code, _, _ := e.do("GET", "/api/reports", nil, tc.hdr...); code != tc.listed {
			t.Errorf("%s: list = %d, want %d", tc.name, code, tc.listed)
		}
	}
	// The page shows the signed-in state; signing out clears the cookie.
	if _, _, p := e.do("GET", "/signin", nil, "Cookie", cookie); !strings.Contains(string(p), `id="signout"`) {
		t.Errorf("signed-in page lacks sign-out:\n%s", p)
	}
	req, _ := http.NewRequest("POST", e.http.URL+"/signout", nil)
	req.Header.Set("Origin", self)
	out, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	out.Body.Close()
	if sc := sessionOf(out); out.StatusCode != 303 || sc == nil || sc.MaxAge >= 0 {
		t.Errorf("sign-out = %d cookie %+v, want 303 clearing it", out.StatusCode, sc)
	}
	e.clock.Advance(server.SessionTTL + time.Minute)
	if code, _, _ := e.do("POST", "/api/reports", body, "Cookie", cookie, "Origin", self); code != 401 {
		t.Errorf("expired session: upload = %d, want 401", code)
	}
}

// TestSignInRateLimited: guessing the token is limited per client.
func TestSignInRateLimited(t *testing.T) {
	e := newEnv(t, func(c *server.Config) { c.WriteToken = "s3cret" })
	var codes []int
	for range 7 {
		codes = append(codes, e.signIn("guess", e.http.URL).StatusCode)
	}
	if codes[0] != 401 || codes[len(codes)-1] != 429 {
		t.Errorf("sign-in attempts = %v, want 401s then 429", codes)
	}
	// Even the right token waits out the limit.
	if c := e.signIn("s3cret", e.http.URL).StatusCode; c != 429 {
		t.Errorf("right token while limited = %d, want 429", c)
	}
	e.clock.Advance(10 * time.Second)
	if c := e.signIn("s3cret", e.http.URL).StatusCode; c != 303 {
		t.Errorf("after waiting = %d, want 303", c)
	}
}

// TestNextIsLocal: the sign-in redirect never leaves the server.
func TestNextIsLocal(t *testing.T) {
	e := newEnv(t, func(c *server.Config) { c.WriteToken = "s3cret" })
	for next, want := range map[string]string{
		"/history?q=x": "/history?q=x", "//evil.example/": "/", "https://evil.example/": "/", "/\\evil.example": "/", "": "/", "javascript:alert(1)": "/",
	} {
		form := url.Values{"token": {"s3cret"}, "next": {next}}
		req, _ := http.NewRequest("POST", e.http.URL+"/signin", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", e.http.URL)
		req.RemoteAddr = "x"
		resp, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if got := resp.Header.Get("Location"); got != want {
			t.Errorf("next %q → Location %q, want %q", next, got, want)
		}
		e.clock.Advance(time.Minute) // past the sign-in rate limit
	}
}

// TestReportCapability: a capability minted for an Idempotency-Key creates
// that one report id and attaches to it, and does nothing else.
func TestReportCapability(t *testing.T) {
	e := newEnv(t, func(c *server.Config) { c.WriteToken = "tok" })
	mint := func(key string, hdr ...string) (int, server.CapabilityResponse) {
		t.Helper()
		if key != "" {
			hdr = append(hdr, "Idempotency-Key", key)
		}
		code, _, b := e.do("POST", "/api/capabilities", nil, hdr...)
		var cr server.CapabilityResponse
		if code == 200 {
			cr = decode[server.CapabilityResponse](t, b)
		}
		return code, cr
	}
	if code, _ := mint("k1"); code != 401 {
		t.Errorf("anonymous mint = %d, want 401", code)
	}
	if code, _ := mint("", "Authorization", "Bearer tok"); code != 400 {
		t.Errorf("mint without Idempotency-Key = %d, want 400", code)
	}
	_, a := mint("k1", "Authorization", "Bearer tok")
	e.clock.Advance(time.Minute)
	_, again := mint("k1", "Authorization", "Bearer tok")
	_, b := mint("k2", "Authorization", "Bearer tok")
	if a.ID == "" || again.ID != a.ID || b.ID == a.ID || again.Capability == a.Capability {
		t.Fatalf("mints: k1 %q, k1 again %q (capability renewed: %v), k2 %q", a.ID, again.ID, again.Capability != a.Capability, b.ID)
	}
	wav := []byte("RIFF-A")
	repA := fixture{model: "a", n: 1, ttfp: 300, edit: declare(att{"wire-log.json", "application/json", wav})}.json(t)
	repOther := fixture{model: "other", n: 1, ttfp: 300}.json(t)
	capA := "Bearer " + a.Capability
	code, _, body := e.do("POST", "/api/reports", repA, "Authorization", capA, "Idempotency-Key", "k1")
	var hdr http.Header
	if code != 201 || decode[server.UploadResponse](t, body).ID != a.ID {
		t.Fatalf("upload with capability = %d %s, want 201 with id %s", code, body, a.ID)
	}
	// A retry with a re-minted capability replays.
	code, hdr, body = e.do("POST", "/api/reports", repA, "Authorization", "Bearer "+again.Capability, "Idempotency-Key", "k1")
	if code != 201 || hdr.Get("Idempotent-Replayed") != "true" || decode[server.UploadResponse](t, body).ID != a.ID {
		t.Errorf("retry = %d replayed %q %s", code, hdr.Get("Idempotent-Replayed"), body)
	}
	// Token-stored report B.
	_, _, body = e.do("POST", "/api/reports", fixture{model: "b", n: 1, ttfp: 300, edit: declare(att{"wire-log.json", "application/json", []byte("B")})}.json(t), "Authorization", "Bearer tok")
	idB := decode[server.UploadResponse](t, body).ID
	cases := []struct {
		name, method, path string
		body               []byte
		hdr                []string
		want               int
	}{
		{"another report over A's id", "POST", "/api/reports", repOther, []string{"Idempotency-Key", "other"}, 409},
		{"another report, no key", "POST", "/api/reports", repOther, nil, 409},
		{"attach to B", "PUT", "/api/reports/" + idB + "/attachments/wire-log.json", []byte("B"), nil, 403},
		{"import", "POST", "/api/import?model=x", readFile(t, "duplex_metrics.example.json"), nil, 401},
		{"delete A", "DELETE", "/api/reports/" + a.ID, nil, nil, 401},
		{"list", "GET", "/api/reports", nil, nil, 401},
		{"mint", "POST", "/api/capabilities", nil, []string{"Idempotency-Key", "k3"}, 401},
		{"load run", "POST", "/api/loadruns/r/sessions", []byte(`{"shard":1,"shards":1,"sessions":[]}`), nil, 401},
		{"attach to A", "PUT", "/api/reports/" + a.ID + "/attachments/wire-log.json", wav, nil, 201},
		{"attach to A again", "PUT", "/api/reports/" + a.ID + "/attachments/wire-log.json", wav, nil, 409},
	}
	for _, tc := range cases {
		if code, _, b := e.do(tc.method, tc.path, tc.body, append([]string{"Authorization", capA}, tc.hdr...)...); code != tc.want {
			t.Errorf("%s with A's capability = %d %s, want %d", tc.name, code, b, tc.want)
		}
	}
	// Expired and forged capabilities are nothing.
	e.clock.Advance(server.ReportCapabilityTTL + time.Hour)
	_, c2 := mint("k2", "Authorization", "Bearer tok")
	for name, auth := range map[string]string{"expired": capA, "forged": "Bearer " + c2.Capability[:len(c2.Capability)-3] + "AAA"} {
		if code, _, _ := e.do("POST", "/api/reports", repOther, "Authorization", auth); code != 401 {
			t.Errorf("%s capability = %d, want 401", name, code)
		}
	}
}

// TestAttachmentRules: only declared names, with their size and sha256,
// once each, within the quotas.
func TestAttachmentRules(t *testing.T) {
	e := newEnv(t, func(c *server.Config) {
		c.AttachmentQuota.PerReport, c.AttachmentQuota.PerReportBytes, c.AttachmentQuota.TotalBytes = 3, 100, 130
	})
	blob := func(c byte, n int) []byte { return bytes.Repeat([]byte{c}, n) }
	declared := declare(att{"a.bin", "", blob('a', 40)}, att{"b.bin", "", blob('b', 40)}, att{"c.bin", "", blob('c', 30)}, att{"d.bin", "", blob('d', 1)}, att{"big.bin", "", blob('x', 70)})
	_, _, body := e.do("POST", "/api/reports", fixture{model: "m", n: 1, ttfp: 300, edit: func(r *reportT) {
		declared(r)
		r.Attachments = append(r.Attachments, attachmentNoSHA("nosha.bin"))
	}}.json(t))
	id := decode[server.UploadResponse](t, body).ID
	_, _, body = e.do("POST", "/api/reports", fixture{model: "n", n: 1, ttfp: 300, edit: declare(att{"e.bin", "", blob('e', 60)}, att{"f.bin", "", blob('f', 40)})}.json(t))
	id2 := decode[server.UploadResponse](t, body).ID
	base := "/api/reports/" + id + "/attachments/"
	steps := []struct {
		name, path string
		body       []byte
		want       int
	}{
		{"undeclared name", base + "evil.bin", blob('z', 5), 403},
		{"declared without sha256", base + "nosha.bin", blob('z', 5), 403},
		{"wrong bytes", base + "a.bin", blob('z', 40), 400},
		{"wrong size", base + "a.bin", blob('a', 41), 400},
		{"declared bytes", base + "a.bin", blob('a', 40), 201},
		{"second PUT, same bytes", base + "a.bin", blob('a', 40), 409},
		{"second PUT, other bytes", base + "a.bin", blob('z', 40), 400},
		{"per-report bytes", base + "big.bin", blob('x', 70), 413},
		{"b", base + "b.bin", blob('b', 40), 201},
		{"per-report bytes (80 + 30 > 100)", base + "c.bin", blob('c', 30), 413},
		{"d", base + "d.bin", blob('d', 1), 201},
		{"per-report count", base + "c.bin", blob('c', 30), 413},
		{"archive bytes (81 + 60 > 130)", "/api/reports/" + id2 + "/attachments/e.bin", blob('e', 60), 507},
		{"archive room left", "/api/reports/" + id2 + "/attachments/f.bin", blob('f', 40), 201},
	}
	for _, st := range steps {
		if code, _, b := e.do("PUT", st.path, st.body); code != st.want {
			t.Errorf("%s: PUT = %d %s, want %d", st.name, code, b, st.want)
		}
	}
	if _, _, got := e.do("GET", base+"a.bin", nil); !bytes.Equal(got, blob('a', 40)) {
		t.Errorf("a.bin after refused overwrites = %q", got)
	}
}

// TestDeleteWithoutToken: an open archive deletes only for loopback peers,
// and at a bounded rate.
func TestDeleteWithoutToken(t *testing.T) {
	e := newEnv(t, nil)
	var ids []string
	for range 25 {
		_, _, b := e.do("POST", "/api/reports", fixture{model: "m", n: 1, ttfp: 300}.json(t))
		ids = append(ids, decode[server.UploadResponse](t, b).ID)
	}
	req := httptest.NewRequest("DELETE", "/api/reports/"+ids[0], nil)
	req.Host = "127.0.0.1" // an allowed Host: the peer, not the name, is remote
	req.RemoteAddr = "192.0.2.7:5555"
	rec := httptest.NewRecorder()
	e.srv.ServeHTTP(rec, req)
	if rec.Code != 403 || !strings.Contains(rec.Body.String(), "loopback") {
		t.Errorf("remote delete = %d %s, want 403 naming loopback", rec.Code, rec.Body)
	}
	var codes []int
	for _, id := range ids {
		c, _, _ := e.do("DELETE", "/api/reports/"+id, nil)
		codes = append(codes, c)
	}
	n204 := 0
	for _, c := range codes {
		if c == 204 {
			n204++
		}
	}
	if n204 != 20 || codes[len(codes)-1] != 429 {
		t.Errorf("loopback deletes = %v, want the burst of 20 then 429", codes)
	}
	e.clock.Advance(time.Second)
	if c, _, _ := e.do("DELETE", "/api/reports/"+ids[20], nil); c != 204 {
		t.Errorf("after a second = %d, want 204", c)
	}
}

// TestListAndHistoryNeedAuth: with a token, ids are listed only to the
// token or a sign-in; a report stays readable by its id.
func TestListAndHistoryNeedAuth(t *testing.T) {
	e := newEnv(t, func(c *server.Config) { c.WriteToken = "tok" })
	_, _, b := e.do("POST", "/api/reports", fixture{model: "m", n: 1, ttfp: 300}.json(t), "Authorization", "Bearer tok")
	id := decode[server.UploadResponse](t, b).ID
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, tc := range []struct {
		path, auth string
		want       int
	}{
		{"/api/reports", "", 401},
		{"/api/reports?q=m", "", 401},
		{"/history", "", 303},
		{"/api/reports", "Bearer tok", 200},
		{"/history", "Bearer tok", 200},
		{"/r/" + id, "", 200},
		{"/api/reports/" + id, "", 200},
	} {
		req, _ := http.NewRequest("GET", e.http.URL+tc.path, nil)
		if tc.auth != "" {
			req.Header.Set("Authorization", tc.auth)
		}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		buf.ReadFrom(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("GET %s (%q) = %d, want %d", tc.path, tc.auth, resp.StatusCode, tc.want)
		}
		if tc.want != 200 && strings.Contains(buf.String(), id) {
			t.Errorf("GET %s without auth shows the id", tc.path)
		}
		if tc.want == 303 && !strings.HasPrefix(resp.Header.Get("Location"), "/signin?next=") {
			t.Errorf("history redirect = %q", resp.Header.Get("Location"))
		}
	}
}

// TestOpenArchiveCapability: without a token the page's flow still works
// (minting is open, and the capability's id is used).
func TestOpenArchiveCapability(t *testing.T) {
	e := newEnv(t, nil)
	code, _, b := e.do("POST", "/api/capabilities", nil, "Idempotency-Key", "k")
	if code != 200 {
		t.Fatalf("open mint = %d %s", code, b)
	}
	cr := decode[server.CapabilityResponse](t, b)
	code, _, b = e.do("POST", "/api/reports", fixture{model: "m", n: 1, ttfp: 300}.json(t), "Authorization", "Bearer "+cr.Capability, "Idempotency-Key", "k")
	if code != 201 || decode[server.UploadResponse](t, b).ID != cr.ID {
		t.Errorf("open upload with capability = %d %s, want id %s", code, b, cr.ID)
	}
}
