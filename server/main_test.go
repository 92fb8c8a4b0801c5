//go:build !js

package server_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/duplexscope/duplexscope/internal/testkit"
	"github.com/duplexscope/duplexscope/server"
	"github.com/duplexscope/duplexscope/server/archive"
)

// TestMain fails the package when goroutines of the server (or the
// websocket library it drives) outlive the tests.
func TestMain(m *testing.M) {
	code := m.Run()
	if code == 0 {
		if leaked := leakedGoroutines(); leaked != "" {
			fmt.Fprintf(os.Stderr, "goroutines leaked after the tests:\n%s\n", leaked)
			code = 1
		}
	}
	os.Exit(code)
}

// leakedGoroutines polls (up to 5 s) until no goroutine runs code of this
// module's server/archive packages or coder/websocket, and returns the
// stacks of those that remain.
func leakedGoroutines() string {
	deadline := time.Now().Add(5 * time.Second)
	for {
		buf := make([]byte, 1<<20)
		buf = buf[:runtime.Stack(buf, true)]
		var bad []string
		for _, g := range strings.Split(string(buf), "\n\n") {
			if strings.Contains(g, "duplexscope/server.") || strings.Contains(g, "duplexscope/archive") || strings.Contains(g, "coder/websocket") {
				if !strings.Contains(g, "leakedGoroutines") {
					bad = append(bad, g)
				}
			}
		}
		if len(bad) == 0 || time.Now().After(deadline) {
			return strings.Join(bad, "\n\n")
		}
		runtime.Gosched()
		time.Sleep(20 * time.Millisecond) // polling for exit, not hiding a race
	}
}

// fakeClock is an injectable wall clock.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{t: time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// idFor is a valid 32-character base32 id for n.
func idFor(n int) string {
	const alphabet = "abcdefghijklmnopqrstuvwxyz234567"
	b := []byte(strings.Repeat("a", 32))
	for i := 31; i >= 0 && n > 0; i-- {
		b[i] = alphabet[n%32]
		n /= 32
	}
	return string(b)
}

func sequentialIDs() func() string {
	var mu sync.Mutex
	n := 0
	return func() string {
		mu.Lock()
		defer mu.Unlock()
		n++
		return idFor(n)
	}
}

type env struct {
	t     *testing.T
	srv   *server.Server
	http  *httptest.Server
	store *archive.Memory
	clock *fakeClock
}

// newEnv starts a server on httptest (127.0.0.1:0) with an in-memory store.
func newEnv(t *testing.T, edit func(*server.Config)) *env {
	t.Helper()
	e := &env{t: t, store: archive.NewMemory(), clock: newFakeClock()}
	cfg := server.Config{
		Store:      e.store,
		Now:        e.clock.Now,
		NewID:      sequentialIDs(),
		UploadRate: -1,
		Version:    "test",
		Seed:       1,
		Web: fstest.MapFS{
			"app.wasm":       {Data: []byte("\x00asm-raw")},
			"app.wasm.br":    {Data: []byte("brotli-bytes")},
			"app.wasm.gz":    {Data: []byte("gzip-bytes")},
			"echarts.min.js": {Data: []byte("/* echarts */")},
		},
	}
	if edit != nil {
		edit(&cfg)
	}
	s, err := server.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	e.srv = s
	e.http = testkit.Serve(t, s, s)
	return e
}

// do sends a request and returns status, headers and body.
func (e *env) do(method, path string, body []byte, hdr ...string) (int, http.Header, []byte) {
	e.t.Helper()
	req, err := http.NewRequest(method, e.http.URL+path, bytes.NewReader(body))
	if err != nil {
		e.t.Fatal(err)
	}
	if method == http.MethodPost || method == http.MethodPut {
		// What the page and the CLI send; tests of other types pass their own.
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		if strings.EqualFold(hdr[i], "Host") {
			req.Host = hdr[i+1]
			continue
		}
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := e.http.Client().Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, b
}

func decode[T any](t *testing.T, b []byte) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("decode %T: %v\n%s", v, err, b)
	}
	return v
}

func readFile(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
