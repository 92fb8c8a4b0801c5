//go:build e2e

package e2e

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/duplexscope/duplexscope/internal/browsertest"
	"github.com/duplexscope/duplexscope/internal/testkit"
	"github.com/duplexscope/duplexscope/server"
)

// docsDir receives the README screenshots, with -screenshots (make
// screenshots) only: a plain test run takes them all the same, into its
// own temporary folder, so it never rewrites files git tracks.
var docsDir = filepath.Join("..", "docs", "screenshots")

var writeScreenshots = flag.Bool("screenshots", false, "write the README screenshots into docs/screenshots")

// requireBuild fails (never skips) when the browser or the wasm is missing.
func requireBuild(t testing.TB) {
	t.Helper()
	if err := browsertest.RequireWasm(); err != nil {
		t.Fatal(err)
	}
	if err := browsertest.RequireChromium(browsertest.Chromium); err != nil {
		t.Fatal(err)
	}
}

// stack is the real server (page, archive, simulator) on 127.0.0.1 with
// the faults the e2e tests switch on.
type stack struct {
	*browsertest.Stack
	// FailUploads makes POST /api/reports answer 503 (the pending-upload test).
	FailUploads atomic.Bool
	// FailWorker makes /web/session-worker.wasm answer 404 (the fallback test).
	FailWorker atomic.Bool
	// FailSocketWorker makes /web/socket-worker.js answer 404.
	FailSocketWorker atomic.Bool
}

func startStack(t testing.TB) *stack { return startStackWith(t, nil) }

// startStackWith is startStack with the server's config edited (e.g. a
// write token).
func startStackWith(t testing.TB, edit func(*server.Config)) *stack {
	t.Helper()
	st := &stack{}
	st.Stack = browsertest.StartStack(t, edit, func(srv http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if st.FailWorker.Load() && strings.HasPrefix(r.URL.Path, "/web/session-worker.wasm") ||
				st.FailSocketWorker.Load() && r.URL.Path == "/web/socket-worker.js" {
				http.NotFound(w, r)
				return
			}
			if st.FailUploads.Load() && r.Method == http.MethodPost && r.URL.Path == "/api/reports" {
				http.Error(w, `{"error":"archive unavailable (test)"}`, http.StatusServiceUnavailable)
				return
			}
			srv.ServeHTTP(w, r)
		})
	})
	return st
}

// getJSON fetches path from the stack into out.
func (s *stack) getJSON(t testing.TB, path string, out any) []byte {
	t.Helper()
	return testkit.GetJSON(t, s.URL+path, out)
}

// fakeMic is what the browsers' fake microphone plays unless a test says
// otherwise.
var fakeMic = filepath.Join("testdata", "fake-mic.wav")

// browser starts chromium whose fake mic plays wav (opts add to its
// launch) with a deadline of timeout; it closes when t ends, after the
// test's own deferred calls and before what t set up earlier (the stack).
func browser(t testing.TB, wav string, timeout time.Duration, opts ...browsertest.Option) context.Context {
	t.Helper()
	ctx, cancel := browsertest.Start(t, append([]browsertest.Option{browsertest.FakeAudio(wav)}, opts...)...)
	t.Cleanup(cancel)
	ctx, cancelT := context.WithTimeout(ctx, timeout)
	t.Cleanup(cancelT)
	return ctx
}

// pageTest begins a page test: the build checked, a stack (its config
// changed by edit, if not nil), a browser whose fake mic plays
// testdata/fake-mic.wav, and a deadline for the whole test; the browser
// closes when t ends, before the stack.
func pageTest(t *testing.T, edit func(*server.Config), timeout time.Duration) (*stack, context.Context) {
	t.Helper()
	requireBuild(t)
	s := startStackWith(t, edit)
	return s, browser(t, fakeMic, timeout)
}

// open navigates the tab of ctx to u (browsertest.Open: a bounded load,
// past Chromium's wedged audio teardown once), then runs then (a wait); an
// error fails t.
func open(t testing.TB, ctx context.Context, u string, then ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := browsertest.Open(ctx, u, t.Logf); err != nil {
		t.Fatalf("open %s: %v", u, err)
	}
	if err := chromedp.Do(ctx, then...); err != nil {
		t.Fatalf("open %s: %v", u, err)
	}
}

// pendingUploads counts the reports the page keeps in localStorage for a
// later upload.
func pendingUploads(ctx context.Context) (int, error) {
	return chromedp.Run(ctx, chromedp.Evaluate[int](`(JSON.parse(localStorage.getItem("duplexscope.pending-uploads")||"[]")||[]).length`))
}

// awaitKept waits until the share line says the run was kept in the
// browser (its upload failed).
func awaitKept(ctx context.Context, timeout time.Duration) error {
	return pollUntil(ctx, timeout, func() (bool, error) {
		txt, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(document.querySelector('#share')||{}).innerText||""`))
		return strings.Contains(txt, "kept in this browser"), err
	})
}

// screenshot saves a full-page PNG as name.png: in docs/screenshots with
// -screenshots, else in the test's temporary folder; a failure's
// ("failure-…", which git ignores) always in docs/screenshots, to be seen.
func screenshot(t testing.TB, ctx context.Context, name string) {
	t.Helper()
	buf, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Errorf("screenshot %s: %v", name, err)
		return
	}
	dir := t.TempDir()
	if *writeScreenshots || strings.HasPrefix(name, "failure-") {
		dir = docsDir
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name+".png")
	if err := os.WriteFile(p, buf, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s (%d bytes)", p, len(buf))
}

// attr reads an attribute of the first element matching sel ("" if none).
func attr(ctx context.Context, sel, name string) (string, error) {
	return chromedp.Run(ctx, chromedp.Evaluate[string](fmt.Sprintf(
		`(function(){var e=document.querySelector(%q);return e?(e.getAttribute(%q)||""):""})()`, sel, name)))
}

// pollUntil evaluates cond every 100 ms until it holds or timeout passes.
func pollUntil(ctx context.Context, timeout time.Duration, cond func() (bool, error)) error {
	deadline := time.Now().Add(timeout)
	for {
		ok, err := cond()
		if err != nil {
			return err
		}
		if ok {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("timed out after %v", timeout)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}
