//go:build security && linux

package security

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/duplexscope/duplexscope/report"
	"github.com/duplexscope/duplexscope/server/archive/archivetest"
)

const token = "security-suite-token"

// blob is one attachment a test report declares.
type blob struct {
	name string
	data []byte
}

// reportJSON is a valid report of model that declares blobs (size and
// sha256), as the page and the CLI write them.
func reportJSON(t testing.TB, model string, blobs ...blob) []byte {
	t.Helper()
	r := archivetest.Fixture(model, 2)
	for _, b := range blobs {
		sum := sha256.Sum256(b.data)
		r.Attachments = append(r.Attachments, report.Attachment{Name: b.name, Kind: report.AttachWireLog, ContentType: "application/json",
			SizeBytes: int64(len(b.data)), SHA256: hex.EncodeToString(sum[:])})
	}
	out, err := report.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func jsonHdr(kv ...string) map[string]string {
	h := map[string]string{"Content-Type": "application/json"}
	for i := 0; i+1 < len(kv); i += 2 {
		h[kv[i]] = kv[i+1]
	}
	return h
}

// upload POSTs a report and returns its id (fatal unless 201).
func upload(t testing.TB, s *Server, body []byte, kv ...string) string {
	t.Helper()
	resp, b := s.Do(t, Request{Method: "POST", Path: "/api/reports", Header: jsonHdr(kv...), Body: body})
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("upload: %d %s", resp.StatusCode, b)
	}
	var u struct{ ID string }
	if err := json.Unmarshal(b, &u); err != nil || u.ID == "" {
		t.Fatalf("upload answer %s: %v", b, err)
	}
	return u.ID
}

// TestAnonymousPageHasNoWriteRights: the old page handed every anonymous
// GET / a 24 h upload capability valid for every write; now the page
// carries none and anonymous writes are refused.
func TestAnonymousPageHasNoWriteRights(t *testing.T) {
	s := Start(t, "--write-token", token)
	resp, page := s.Do(t, Request{Path: "/"})
	if resp.StatusCode != 200 {
		t.Fatalf("GET /: %d", resp.StatusCode)
	}
	if strings.Contains(string(page), "cap1.") || strings.Contains(string(page), "rc1.") || strings.Contains(string(page), token) {
		t.Fatalf("the anonymous page carries a write capability:\n%.2000s", page)
	}
	// The attack of the issue: whatever the page offers is sent as Bearer.
	victimLog := []byte(`{"kind":"session","events":["the real wire log"]}`)
	victim := upload(t, s, reportJSON(t, "victim", blob{"wire-log.json", victimLog}), "Authorization", "Bearer "+token)
	s.Do(t, Request{Method: "PUT", Path: "/api/reports/" + victim + "/attachments/wire-log.json", Header: jsonHdr("Authorization", "Bearer "+token), Body: victimLog})
	attacks := []struct {
		what, method, path string
		body               []byte
		before             string
	}{
		{"POST /api/reports with the page's capability", "POST", "/api/reports", reportJSON(t, "planted"), "201"},
		{"PUT over another report's wire log", "PUT", "/api/reports/" + victim + "/attachments/wire-log.json", []byte("EVIL"), "201, wire log replaced"},
		{"POST /api/import", "POST", "/api/import?model=x", []byte(`{"duplex_request_metrics":[],"duplex_session_metrics":[]}`), "201"},
		{"POST /api/loadruns/r/sessions", "POST", "/api/loadruns/r/sessions", []byte(`{"shard":1,"shards":1,"sessions":[]}`), "200"},
		{"POST /api/capabilities (mint)", "POST", "/api/capabilities", nil, "route absent"},
	}
	for _, a := range attacks {
		resp, b := s.Do(t, Request{Method: a.method, Path: a.path, Header: jsonHdr("Idempotency-Key", "k"), Body: a.body})
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("%s anonymously: %d %s, want 401", a.what, resp.StatusCode, b)
		}
		Attack(t, "2", "anonymous "+a.what, fmt.Sprintf("%d (before: %s)", resp.StatusCode, a.before))
	}
	_, got := s.Do(t, Request{Path: "/api/reports/" + victim + "/attachments/wire-log.json"})
	if string(got) != string(victimLog) {
		t.Errorf("victim's wire log is now %q", got)
	}
}

// TestCapabilityScope: a capability minted for report A creates A and
// attaches to A, nothing else; a replayed mint gives A again and cannot
// replace it.
func TestCapabilityScope(t *testing.T) {
	s := Start(t, "--write-token", token)
	mint := func(key string) (id, capability string) {
		t.Helper()
		resp, b := s.Do(t, Request{Method: "POST", Path: "/api/capabilities", Header: jsonHdr("Authorization", "Bearer "+token, "Idempotency-Key", key)})
		var c struct{ ID, Capability string }
		if resp.StatusCode != 200 || json.Unmarshal(b, &c) != nil || c.Capability == "" {
			t.Fatalf("mint: %d %s", resp.StatusCode, b)
		}
		return c.ID, c.Capability
	}
	logA := []byte(`{"wire":"A"}`)
	idA, capA := mint("key-A")
	if got := upload(t, s, reportJSON(t, "A", blob{"wire-log.json", logA}), "Authorization", "Bearer "+capA, "Idempotency-Key", "key-A"); got != idA {
		t.Fatalf("capability stored report %s, minted %s", got, idA)
	}
	logB := []byte(`{"wire":"B"}`)
	idB := upload(t, s, reportJSON(t, "B", blob{"wire-log.json", logB}), "Authorization", "Bearer "+token)
	s.Do(t, Request{Method: "PUT", Path: "/api/reports/" + idB + "/attachments/wire-log.json", Header: jsonHdr("Authorization", "Bearer "+token), Body: logB})

	resp, b := s.Do(t, Request{Method: "PUT", Path: "/api/reports/" + idB + "/attachments/wire-log.json", Header: jsonHdr("Authorization", "Bearer "+capA), Body: logB})
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("A's capability on B: %d %s, want 403", resp.StatusCode, b)
	}
	Attack(t, "2", "capability for report A used on report B's attachment", fmt.Sprintf("%d (before: any capability wrote any report, 201)", resp.StatusCode))

	// Replay the mint: same id, a fresh capability, but A cannot change.
	idA2, capA2 := mint("key-A")
	if idA2 != idA {
		t.Errorf("replayed mint gave id %s, want %s", idA2, idA)
	}
	resp, b = s.Do(t, Request{Method: "POST", Path: "/api/reports", Header: jsonHdr("Authorization", "Bearer "+capA2, "Idempotency-Key", "key-A"), Body: reportJSON(t, "replaced")})
	if resp.StatusCode != http.StatusConflict {
		t.Errorf("replayed mint, other report: %d %s, want 409", resp.StatusCode, b)
	}
	resp2, _ := s.Do(t, Request{Method: "POST", Path: "/api/reports", Header: jsonHdr("Authorization", "Bearer "+capA2, "Idempotency-Key", "other-key"), Body: reportJSON(t, "replaced")})
	if resp2.StatusCode != http.StatusConflict {
		t.Errorf("replayed mint, new key: %d, want 409", resp2.StatusCode)
	}
	_, stored := s.Do(t, Request{Path: "/api/reports/" + idA})
	if !strings.Contains(string(stored), `"model":"A"`) {
		t.Errorf("report A changed:\n%.300s", stored)
	}
	Attack(t, "2", "replayed Idempotency-Key mint, then POST another report over A", fmt.Sprintf("same id; %d and %d, report A unchanged (before: no per-report capabilities)", resp.StatusCode, resp2.StatusCode))
	// Attaching through the replayed capability works once, and only the declared bytes.
	resp, _ = s.Do(t, Request{Method: "PUT", Path: "/api/reports/" + idA + "/attachments/wire-log.json", Header: jsonHdr("Authorization", "Bearer "+capA2), Body: logA})
	resp2, _ = s.Do(t, Request{Method: "PUT", Path: "/api/reports/" + idA + "/attachments/wire-log.json", Header: jsonHdr("Authorization", "Bearer "+capA2), Body: logA})
	if resp.StatusCode != 201 || resp2.StatusCode != 409 {
		t.Errorf("attach with the replayed capability: %d then %d, want 201 then 409", resp.StatusCode, resp2.StatusCode)
	}
	// Relabelling (PATCH): A's capability names A, never B, and changes only the labels.
	resp, b = s.Do(t, Request{Method: "PATCH", Path: "/api/reports/" + idB, Header: jsonHdr("Authorization", "Bearer "+capA), Body: []byte(`{"name":"pwned"}`)})
	resp2, _ = s.Do(t, Request{Method: "PATCH", Path: "/api/reports/" + idA, Header: jsonHdr("Authorization", "Bearer "+capA), Body: []byte(`{"name":"A renamed","tags":["x"]}`)})
	_, storedB := s.Do(t, Request{Path: "/api/reports/" + idB})
	_, storedA := s.Do(t, Request{Path: "/api/reports/" + idA})
	if resp.StatusCode != http.StatusForbidden || strings.Contains(string(storedB), "pwned") {
		t.Errorf("A's capability relabelling B: %d %s, want 403 and B unchanged", resp.StatusCode, b)
	}
	if resp2.StatusCode != 200 || !strings.Contains(string(storedA), `"name":"A renamed"`) || !strings.Contains(string(storedA), `"model":"A"`) {
		t.Errorf("A's capability relabelling A: %d, stored %.300s", resp2.StatusCode, storedA)
	}
	Attack(t, "2", "capability for report A used to PATCH report B's name", fmt.Sprintf("%d; on A %d (labels only)", resp.StatusCode, resp2.StatusCode))
}

// TestListingNeedsSignIn: with a token, the list and history no longer
// hand every id to anyone; a report stays readable by its id.
func TestListingNeedsSignIn(t *testing.T) {
	s := Start(t, "--write-token", token)
	id := upload(t, s, reportJSON(t, "secret-model"), "Authorization", "Bearer "+token)
	for _, p := range []string{"/api/reports", "/api/reports?q=secret", "/history", "/history?q=secret"} {
		resp, b := s.Do(t, Request{Path: p})
		leaks := strings.Contains(string(b), id)
		if leaks || (resp.StatusCode != 401 && resp.StatusCode != 303) {
			t.Errorf("GET %s without auth: %d, id shown %v", p, resp.StatusCode, leaks)
		}
		Attack(t, "7", "GET "+p+" with a token set, no auth", fmt.Sprintf("%d, no ids (before: 200 with every id)", resp.StatusCode))
	}
	for _, p := range []string{"/r/" + id, "/api/reports/" + id} {
		if resp, _ := s.Do(t, Request{Path: p}); resp.StatusCode != 200 {
			t.Errorf("GET %s by id: %d, want 200", p, resp.StatusCode)
		}
	}
	if resp, b := s.Do(t, Request{Path: "/api/reports", Header: map[string]string{"Authorization": "Bearer " + token}}); resp.StatusCode != 200 || !strings.Contains(string(b), id) {
		t.Errorf("listing with the token: %d", resp.StatusCode)
	}
}

// TestDeletes: with a token only the token deletes; without one, deletes
// are rate-limited (and, in the unit tests, loopback-only).
func TestDeletes(t *testing.T) {
	s := Start(t, "--write-token", token)
	id := upload(t, s, reportJSON(t, "keep"), "Authorization", "Bearer "+token)
	resp, _ := s.Do(t, Request{Method: "DELETE", Path: "/api/reports/" + id})
	if resp.StatusCode != 401 {
		t.Errorf("anonymous DELETE with a token set: %d", resp.StatusCode)
	}
	Attack(t, "2", "anonymous DELETE, token set", fmt.Sprintf("%d (before: 401)", resp.StatusCode))

	open := Start(t)
	var ids []string
	for i := range 30 {
		ids = append(ids, upload(t, open, reportJSON(t, fmt.Sprint("m", i))))
	}
	counts := map[int]int{}
	for _, id := range ids {
		resp, _ := open.Do(t, Request{Method: "DELETE", Path: "/api/reports/" + id})
		counts[resp.StatusCode]++
	}
	if counts[204] > 25 || counts[429] == 0 {
		t.Errorf("30 anonymous deletes without a token: %v, want a rate limit", counts)
	}
	Attack(t, "2", "30 anonymous DELETEs, no token (loopback client)", fmt.Sprintf("%d × 204 then %d × 429; remote peers get 403 (before: 30 × 204, any peer)", counts[204], counts[429]))
}

// TestSignInForm: the form is the only way a page gets write rights, and
// it is CSRF-safe and rate-limited.
func TestSignInForm(t *testing.T) {
	s := Start(t, "--write-token", token)
	post := func(origin, tok string) *http.Response {
		h := map[string]string{"Content-Type": "application/x-www-form-urlencoded"}
		if origin != "" {
			h["Origin"] = origin
		}
		resp, _ := s.Do(t, Request{Method: "POST", Path: "/signin", Header: h, Body: []byte(url.Values{"token": {tok}}.Encode())})
		return resp
	}
	r := post("http://evil.example", token)
	if r.StatusCode != 403 || len(r.Cookies()) != 0 {
		t.Errorf("cross-site sign-in: %d cookies %v", r.StatusCode, r.Cookies())
	}
	Attack(t, "2", "POST /signin with the right token from a foreign Origin (login CSRF)", fmt.Sprintf("%d, no cookie (before: no sign-in)", r.StatusCode))
	r = post(s.URL, token)
	var session *http.Cookie
	for _, c := range r.Cookies() {
		if c.Name == "duplexscope_session" {
			session = c
		}
	}
	if r.StatusCode != 303 || session == nil || !session.HttpOnly || session.SameSite != http.SameSiteStrictMode || strings.Contains(session.Value, token) {
		t.Fatalf("sign-in: %d cookie %+v", r.StatusCode, session)
	}
	// The cookie writes only from this origin.
	body := reportJSON(t, "via-cookie")
	cookie := "duplexscope_session=" + session.Value
	resp, _ := s.Do(t, Request{Method: "POST", Path: "/api/reports", Header: jsonHdr("Cookie", cookie, "Origin", "http://evil.example"), Body: body})
	if resp.StatusCode != 403 { // the Origin policy refuses a foreign page before auth looks at the cookie
		t.Errorf("cookie from a foreign origin: %d", resp.StatusCode)
	}
	Attack(t, "2", "signed-in cookie replayed from another origin", fmt.Sprintf("%d (SameSite=Strict + Origin check)", resp.StatusCode))
	if resp, b := s.Do(t, Request{Method: "POST", Path: "/api/reports", Header: jsonHdr("Cookie", cookie, "Origin", s.URL), Body: body}); resp.StatusCode != 201 {
		t.Errorf("cookie from this origin: %d %s", resp.StatusCode, b)
	}
	// Guessing the token is rate-limited.
	codes := map[int]int{}
	for range 12 {
		codes[post(s.URL, "guess").StatusCode]++
	}
	if codes[429] == 0 {
		t.Errorf("12 guesses: %v, want 429s", codes)
	}
	Attack(t, "2", "12 token guesses at /signin", fmt.Sprintf("%d × 401, %d × 429", codes[401], codes[429]))
}

// TestOpenArchiveRefusesReachableAddress: without a token serve listens
// only on loopback unless --public; --public warns loudly. (Bind only: no
// traffic is sent to a non-loopback address.)
func TestOpenArchiveRefusesReachableAddress(t *testing.T) {
	_, err := StartErr(t, "--addr", "0.0.0.0:0")
	if err == nil || !strings.Contains(err.Error(), "exit status 2") || !strings.Contains(err.Error(), "not a loopback address") || !strings.Contains(err.Error(), "--public") {
		t.Fatalf("serve --addr 0.0.0.0:0 without a token: %v, want exit 2 saying why and how", err)
	}
	Attack(t, "2", "serve --addr 0.0.0.0:0, no token, no --public", "exit 2: refusing to listen (before: served on every interface)")
	s := Start(t, "--addr", "0.0.0.0:0", "--public")
	if !strings.Contains(s.Log(), "WARNING: PUBLIC ARCHIVE WITHOUT A WRITE TOKEN") {
		t.Errorf("--public without a token did not warn:\n%s", s.Log())
	}
	Start(t, "--addr", "0.0.0.0:0", "--write-token", token)
	Attack(t, "2", "serve --addr 0.0.0.0:0 --public (or --write-token)", "serves; --public logs a loud warning")
}

// dirBytes is the size of the files under dir.
func dirBytes(t testing.TB, dir string) int64 {
	t.Helper()
	var n int64
	filepath.Walk(dir, func(_ string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			n += fi.Size()
		}
		return nil
	})
	return n
}
