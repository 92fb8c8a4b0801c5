//go:build !js

package server

import (
	"container/list"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"time"
)

// CapabilityMeta is the name of the <meta> tag that carries the page's
// upload capability: <meta name="duplexscope-upload-capability" content="CAP">.
const CapabilityMeta = "duplexscope-upload-capability"

// CapabilityTTL is how long a page's upload capability stays valid.
const CapabilityTTL = 24 * time.Hour

func capabilityKey(token string) []byte {
	if token == "" {
		return nil
	}
	k := sha256.Sum256([]byte("duplexscope upload capability v1\x00" + token))
	return k[:]
}

// Capability returns a signed upload capability valid until now+CapabilityTTL
// ("" when no write token is set). It allows uploads, imports and
// attachments, never deletes.
func (s *Server) Capability() string {
	if s.capKey == nil {
		return ""
	}
	exp := strconv.FormatInt(s.now().Add(CapabilityTTL).Unix(), 10)
	return "cap1." + exp + "." + s.sign(exp)
}

func (s *Server) sign(payload string) string {
	m := hmac.New(sha256.New, s.capKey)
	m.Write([]byte("upload\x00" + payload))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

func (s *Server) validCapability(c string) bool {
	parts := strings.Split(c, ".")
	if len(parts) != 3 || parts[0] != "cap1" {
		return false
	}
	exp, err := strconv.ParseInt(parts[1], 10, 64)
	if err != nil || s.now().Unix() > exp {
		return false
	}
	return hmac.Equal([]byte(parts[2]), []byte(s.sign(parts[1])))
}

func bearer(r *http.Request) string {
	h := r.Header.Get("Authorization")
	if t, ok := strings.CutPrefix(h, "Bearer "); ok {
		return strings.TrimSpace(t)
	}
	return ""
}

func (s *Server) tokenOK(t string) bool {
	return subtle.ConstantTimeCompare([]byte(t), []byte(s.cfg.WriteToken)) == 1
}

// write wraps a write handler: rate limit, then the token or capability.
func (s *Server) write(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !s.limiter.allow(clientKey(r)) {
			s.metrics.uploads.WithLabelValues(uploadKind(r), "rejected").Inc()
			w.Header().Set("Retry-After", "1")
			writeError(w, http.StatusTooManyRequests, fmt.Sprintf("rate limit: at most %g uploads per second per client", s.cfg.UploadRate), nil)
			return
		}
		if s.cfg.WriteToken != "" {
			t := bearer(r)
			if !s.tokenOK(t) && !s.validCapability(t) {
				s.metrics.uploads.WithLabelValues(uploadKind(r), "rejected").Inc()
				w.Header().Set("WWW-Authenticate", `Bearer realm="duplexscope"`)
				writeError(w, http.StatusUnauthorized, "this archive needs a write token: send Authorization: Bearer <token> (or the page's upload capability)", nil)
				return
			}
		}
		h(w, r)
	}
}

// deleteAuth needs the write token itself (a capability is not enough).
func (s *Server) deleteAuth(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if s.cfg.WriteToken != "" && !s.tokenOK(bearer(r)) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="duplexscope"`)
			writeError(w, http.StatusUnauthorized, "deleting needs the write token: send Authorization: Bearer <token>", nil)
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

// clientKey is the rate limiter's key for a request: the IPv4 address, or
// the IPv6 /64 (one host usually owns a whole /64, so keying by address
// would give it 2^64 buckets).
func clientKey(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	return ipKey(host)
}

func ipKey(host string) string {
	a, err := netip.ParseAddr(host)
	if err != nil {
		return host
	}
	a = a.Unmap()
	if a.Is4() {
		return a.String()
	}
	p, _ := a.Prefix(64)
	return p.String()
}

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
