package testkit

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
)

// GetJSON fetches u, fails the test unless it answers 200, decodes the body
// into out (when not nil) and returns the body.
func GetJSON(t testing.TB, u string, out any) []byte {
	t.Helper()
	res, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s: %s", u, res.Status, b)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("GET %s: %v", u, err)
		}
	}
	return b
}

// Serve serves h on 127.0.0.1 until the test ends; then it closes the test
// server and, after it, each of stop (the server behind h, whose sessions
// the closed listener no longer reaches).
func Serve(t testing.TB, h http.Handler, stop ...io.Closer) *httptest.Server {
	t.Helper()
	ts := httptest.NewServer(h)
	t.Cleanup(func() {
		ts.Close()
		for _, c := range stop {
			c.Close()
		}
	})
	return ts
}

// LossyGateway fronts an archive's handler until the test ends. While Lose
// is set, it answers POST /api/reports with a 503 after the archive has
// handled the request: the upload is stored but its acknowledgement lost.
// It records every POST /api/reports.
type LossyGateway struct {
	*httptest.Server
	Lose atomic.Bool

	mu    sync.Mutex
	posts []Post
}

// Post is one POST /api/reports the gateway passed to the archive.
type Post struct {
	Key      string // its Idempotency-Key
	Code     int    // the archive's status
	Replayed bool   // the archive answered Idempotent-Replayed: true
	Lost     bool   // the answer was replaced by a 503 (acknowledgement lost)
}

// NewLossyGateway starts a gateway in front of archive.
func NewLossyGateway(t testing.TB, archive http.Handler) *LossyGateway {
	g := &LossyGateway{}
	g.Server = Serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/api/reports" {
			archive.ServeHTTP(w, r)
			return
		}
		rec := httptest.NewRecorder()
		archive.ServeHTTP(rec, r)
		lost := g.Lose.Load()
		g.mu.Lock()
		g.posts = append(g.posts, Post{Key: r.Header.Get("Idempotency-Key"), Code: rec.Code,
			Replayed: rec.Header().Get("Idempotent-Replayed") == "true", Lost: lost})
		g.mu.Unlock()
		if lost {
			http.Error(w, `{"error":"gateway lost the archive's answer (test)"}`, http.StatusServiceUnavailable)
			return
		}
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.Code)
		_, _ = w.Write(rec.Body.Bytes())
	}))
	return g
}

// Posts returns the POSTs so far, oldest first.
func (g *LossyGateway) Posts() []Post {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]Post(nil), g.posts...)
}
