//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/duplexscope/duplexscope/app"
	"github.com/duplexscope/duplexscope/dataset"
	"github.com/duplexscope/duplexscope/server"
	"github.com/duplexscope/duplexscope/server/archive"
	"github.com/duplexscope/duplexscope/session"
	"github.com/duplexscope/duplexscope/sim"
	"github.com/duplexscope/duplexscope/web"
)

// chromiumPath is Debian's chromium (scripts/deps.sh installs it).
const chromiumPath = "/usr/bin/chromium"

// docsDir receives the README screenshots.
var docsDir = filepath.Join("..", "docs", "screenshots")

// requireBuild fails (never skips) when the browser or the wasm is missing.
func requireBuild(t testing.TB) {
	t.Helper()
	if _, err := fs.Stat(web.FS, "app.wasm"); err != nil {
		t.Fatalf("web/app.wasm is missing from the embedded assets: run `make wasm` first (make e2e does): %v", err)
	}
	if _, err := exec.LookPath(chromiumPath); err != nil {
		t.Fatalf("chromium not found at %s: run `scripts/deps.sh test` (apt-get install -y chromium): %v", chromiumPath, err)
	}
}

// stack is the real server (page, archive, simulator) on 127.0.0.1.
type stack struct {
	URL string
	// FailUploads makes POST /api/reports answer 503 (the pending-upload test).
	FailUploads atomic.Bool
	// FailWorker makes /web/session-worker.wasm answer 404 (the fallback test).
	FailWorker atomic.Bool
	// FailSocketWorker makes /web/socket-worker.js answer 404.
	FailSocketWorker atomic.Bool
	srv              *server.Server
	sim              *sim.Server
	store            *archive.Memory
	ts               *httptest.Server
}

func startStack(t testing.TB) *stack { return startStackWith(t, nil) }

// startStackWith is startStack with the server's config edited (e.g. a
// write token).
func startStackWith(t testing.TB, edit func(*server.Config)) *stack {
	t.Helper()
	simSrv, err := sim.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	st := &stack{sim: simSrv, store: archive.NewMemory()}
	page := app.Handler(&app.HandlerOptions{Assets: web.FS})
	cfg := server.Config{
		Store:      st.store,
		App:        page,
		Web:        web.FS,
		Sim:        simSrv,
		Datasets:   dataset.Bundled(),
		ProbeClip:  dataset.ProbeClip,
		ProbeKinds: session.ProbeKinds,
	}
	if edit != nil {
		edit(&cfg)
	}
	srv, err := server.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	st.srv = srv
	st.ts = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
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
	}))
	st.URL = st.ts.URL
	t.Cleanup(func() {
		st.ts.Close()
		srv.Close()
		simSrv.Close()
	})
	return st
}

// getJSON fetches path from the stack into out.
func (s *stack) getJSON(t testing.TB, path string, out any) []byte {
	t.Helper()
	res, err := http.Get(s.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s: %s", path, res.Status, b)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
	}
	return b
}

// newBrowser starts headless chromium with a fake mic playing wav.
func newBrowser(t testing.TB, wav string) (context.Context, context.CancelFunc) {
	t.Helper()
	abs, err := filepath.Abs(wav)
	if err != nil {
		t.Fatal(err)
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromiumPath),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("use-fake-ui-for-media-stream", true),
		chromedp.Flag("use-fake-device-for-media-stream", true),
		chromedp.Flag("use-file-for-fake-audio-capture", abs+"%noloop"),
		chromedp.Flag("autoplay-policy", "no-user-gesture-required"),
		chromedp.WindowSize(1360, 1800),
	}
	actx, acancel := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx, chromedp.WithLogf(t.Logf))
	if err := chromedp.Do(ctx); err != nil {
		cancel()
		acancel()
		t.Fatalf("starting chromium: %v", err)
	}
	return ctx, func() { cancel(); acancel() }
}

// screenshot saves a full-page PNG to docs/screenshots/name.png.
func screenshot(t testing.TB, ctx context.Context, name string) {
	t.Helper()
	buf, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Errorf("screenshot %s: %v", name, err)
		return
	}
	if err := os.MkdirAll(docsDir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(docsDir, name+".png")
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
