//go:build !js

package server

import (
	"container/list"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base32"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/duplexscope/duplexscope/server/archive"
)

// ReportCapabilityTTL is how long a minted report capability stays valid
// (a retry after that mints again with the same Idempotency-Key).
const ReportCapabilityTTL = 24 * time.Hour

// SessionTTL is how long a sign-in lasts.
const SessionTTL = 7 * 24 * time.Hour

// SessionCookie is the name of the sign-in cookie.
const SessionCookie = "duplexscope_session"

// signingKey derives the key that signs sessions, report capabilities and
// report ids from the write token (so they survive a restart and die with
// the token); without a token it is random per process.
func signingKey(token string) []byte {
	if token == "" {
		var k [32]byte
		_, _ = rand.Read(k[:])
		return k[:]
	}
	k := sha256.Sum256([]byte("duplexscope signing key v2\x00" + token))
	return k[:]
}

func (s *Server) mac(purpose string, parts ...string) string {
	m := hmac.New(sha256.New, s.capKey)
	m.Write([]byte(purpose))
	for _, p := range parts {
		m.Write([]byte{0})
		m.Write([]byte(p))
	}
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// reportIDFor is the report id minted for an Idempotency-Key: the same key
// always gets the same id, so a retried mint (and upload) lands on it.
func (s *Server) reportIDFor(key string) string {
	m := hmac.New(sha256.New, s.capKey)
	m.Write([]byte("report id\x00" + key))
	return strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(m.Sum(nil)[:20]))
}

// reportCapability signs "may create report id and attach to it" until exp.
func (s *Server) reportCapability(id string, exp time.Time) string {
	e := strconv.FormatInt(exp.Unix(), 10)
	return "rc1." + id + "." + e + "." + s.mac("report capability", id, e)
}

// capabilityReport returns the report id a valid, unexpired capability
// is for ("" otherwise).
func (s *Server) capabilityReport(c string) string {
	parts := strings.Split(c, ".")
	if len(parts) != 4 || parts[0] != "rc1" || !archive.ValidID(parts[1]) {
		return ""
	}
	exp, err := strconv.ParseInt(parts[2], 10, 64)
	if err != nil || s.now().Unix() > exp {
		return ""
	}
	if !hmac.Equal([]byte(parts[3]), []byte(s.mac("report capability", parts[1], parts[2]))) {
		return ""
	}
	return parts[1]
}

// sessionValue is the signed sign-in cookie value (never the token).
func (s *Server) sessionValue(exp time.Time) string {
	e := strconv.FormatInt(exp.Unix(), 10)
	return "s1." + e + "." + s.mac("session", e)
}

// sessionExpiry reads a session value's expiry (unverified).
func sessionExpiry(v string) (time.Time, bool) {
	parts := strings.Split(v, ".")
	if len(parts) != 3 {
		return time.Time{}, false
	}
	exp, err := strconv.ParseInt(parts[1], 10, 64)
	return time.Unix(exp, 0), err == nil
}

func (s *Server) validSession(v string) bool {
	parts := strings.Split(v, ".")
	if len(parts) != 3 || parts[0] != "s1" {
		return false
	}
	exp, err := strconv.ParseInt(parts[1], 10, 64)
	if err != nil || s.now().Unix() > exp {
		return false
	}
	return hmac.Equal([]byte(parts[2]), []byte(s.mac("session", parts[1])))
}

func bearer(r *http.Request) string {
	h := r.Header.Get("Authorization")
	if t, ok := strings.CutPrefix(h, "Bearer "); ok {
		return strings.TrimSpace(t)
	}
	return ""
}

func (s *Server) tokenOK(t string) bool {
	return s.cfg.WriteToken != "" && subtle.ConstantTimeCompare([]byte(t), []byte(s.cfg.WriteToken)) == 1
}

// sameOrigin reports whether a browser request comes from this server's
// own pages: its Origin names the Host it was sent to (or, without an
// Origin, Sec-Fetch-Site says same-origin). A cookie alone proves nothing:
// SameSite=Strict still sends it from other ports of the same host.
func (s *Server) sameOrigin(r *http.Request) bool {
	// "Origin: null" is what a page with Referrer-Policy no-referrer (or a
	// privacy setting) sends; fetch metadata still says where it came from.
	if o := r.Header.Get("Origin"); o != "" && o != "null" {
		// An origin the operator listed (--allow-origin: e.g. the public
		// name behind a reverse proxy that rewrites Host) counts as ours.
		if s.listedOrigin(o) {
			return true
		}
		u, err := url.Parse(o)
		return err == nil && (u.Scheme == "http" || u.Scheme == "https") && strings.EqualFold(u.Host, r.Host)
	}
	return r.Header.Get("Sec-Fetch-Site") == "same-origin"
}

// signedIn reports whether the request carries a valid sign-in cookie.
func (s *Server) signedIn(r *http.Request) bool {
	c, err := r.Cookie(SessionCookie)
	return err == nil && s.validSession(c.Value)
}

// access is what a request may do.
type access struct {
	full   bool   // the write token, or a signed-in page of this origin
	report string // a report capability's id ("" = none)
}

// accessOf works out a request's rights. Without a write token every
// request has full rights (a local archive is open).
func (s *Server) accessOf(r *http.Request) access {
	if s.cfg.WriteToken == "" {
		return access{full: true, report: s.capabilityReport(bearer(r))}
	}
	t := bearer(r)
	if s.tokenOK(t) {
		return access{full: true}
	}
	if id := s.capabilityReport(t); id != "" {
		return access{report: id}
	}
	if s.signedIn(r) && s.sameOrigin(r) {
		return access{full: true}
	}
	return access{}
}

// canList guards what lists the archive (GET /api/reports, /history): with
// a write token it needs the token or a sign-in, so report ids are not
// handed to anyone who asks. Single reports stay readable by id.
func (s *Server) canList(r *http.Request) bool {
	return s.cfg.WriteToken == "" || s.tokenOK(bearer(r)) || s.signedIn(r)
}

func (s *Server) unauthorized(w http.ResponseWriter, r *http.Request, msg string) {
	s.metrics.uploads.WithLabelValues(uploadKind(r), "rejected").Inc()
	w.Header().Set("WWW-Authenticate", `Bearer realm="duplexscope"`)
	writeError(w, http.StatusUnauthorized, msg, nil)
}

func (s *Server) rateLimited(w http.ResponseWriter, r *http.Request, l *limiter) bool {
	if l.allow(clientKey(r)) {
		return false
	}
	s.metrics.uploads.WithLabelValues(uploadKind(r), "rejected").Inc()
	w.Header().Set("Retry-After", "1")
	what := "uploads"
	if l == s.deletes {
		what = "deletes"
	}
	writeError(w, http.StatusTooManyRequests, fmt.Sprintf("rate limit: at most %g %s per second per client", l.rate, what), nil)
	return true
}

const needSignIn = "this archive needs a write token: sign in at /signin, or send Authorization: Bearer <token>"

// write wraps a write handler that needs full rights (import, load-run
// writes): rate limit, then the token or a same-origin signed-in page.
func (s *Server) write(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if s.rateLimited(w, r, s.limiter) {
			return
		}
		if !s.accessOf(r).full {
			s.unauthorized(w, r, needSignIn)
			return
		}
		h(w, r)
	}
}

// reportWrite wraps the writes a report capability may also do (POST
// /api/reports, PUT …/attachments/{name}); the handler checks the
// capability's id against what it writes (reportAccess).
func (s *Server) reportWrite(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if s.rateLimited(w, r, s.limiter) {
			return
		}
		a := s.accessOf(r)
		if !a.full && a.report == "" {
			s.unauthorized(w, r, needSignIn+" (or a report capability from POST /api/capabilities)")
			return
		}
		h(w, r.WithContext(context.WithValue(r.Context(), accessKey{}, a)))
	}
}

type accessKey struct{}

func reportAccess(r *http.Request) access {
	a, _ := r.Context().Value(accessKey{}).(access)
	return a
}

// deleteAuth: with a write token, deleting needs the token itself (not a
// sign-in cookie, not a capability). Without one the archive is open, so
// deletes are limited to this machine (loopback peers) and rate-limited:
// an archive served with --public and no token can be written to by
// anyone but wiped by no one remote.
func (s *Server) deleteAuth(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if s.cfg.WriteToken != "" {
			if !s.tokenOK(bearer(r)) {
				w.Header().Set("WWW-Authenticate", `Bearer realm="duplexscope"`)
				writeError(w, http.StatusUnauthorized, "deleting needs the write token: send Authorization: Bearer <token>", nil)
				return
			}
			h(w, r)
			return
		}
		if !loopbackPeer(r) {
			writeError(w, http.StatusForbidden, "this archive has no write token, so reports can only be deleted from the machine it runs on (loopback); start it with --write-token to delete remotely", nil)
			return
		}
		if s.rateLimited(w, r, s.deletes) {
			return
		}
		h(w, r)
	}
}

func uploadKind(r *http.Request) string {
	switch {
	case strings.HasPrefix(r.URL.Path, "/api/import"):
		return "import"
	case strings.Contains(r.URL.Path, "/attachments/"):
		return "attachment"
	case strings.HasPrefix(r.URL.Path, "/api/loadruns/"):
		return "loadrun"
	}
	return "report"
}

// Deletes without a write token and sign-in attempts have their own fixed
// limits per client (independent of --upload-rate).
const (
	deleteRate, deleteBurst = 2, 20
	signinRate, signinBurst = 0.2, 5
)

// limiterKeys bounds the limiter's memory: past it the least recently
// seen client is forgotten (a forgotten client comes back with a full
// bucket, which an idle client would have anyway).
const limiterKeys = 100_000

// limiter is a token bucket per client key, least recently used evicted
// first.
type limiter struct {
	rate    float64
	burst   float64
	now     func() time.Time
	maxKeys int
	mu      sync.Mutex
	b       map[string]*list.Element // of *bucket
	lru     list.List                // front: most recently seen
}

type bucket struct {
	key    string
	tokens float64
	last   time.Time
}

func newLimiter(rate float64, burst int, now func() time.Time) *limiter {
	return &limiter{rate: rate, burst: float64(burst), now: now, maxKeys: limiterKeys, b: map[string]*list.Element{}}
}

func (l *limiter) allow(key string) bool {
	if l.rate < 0 {
		return true
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	var b *bucket
	if e := l.b[key]; e != nil {
		l.lru.MoveToFront(e)
		b = e.Value.(*bucket)
	} else {
		for len(l.b) >= l.maxKeys && l.lru.Len() > 0 {
			old := l.lru.Back()
			delete(l.b, old.Value.(*bucket).key)
			l.lru.Remove(old)
		}
		b = &bucket{key: key, tokens: l.burst, last: now}
		l.b[key] = l.lru.PushFront(b)
	}
	b.tokens = min(l.burst, b.tokens+now.Sub(b.last).Seconds()*l.rate)
	b.last = now
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}
