//go:build !js

package browsertest

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/duplexscope/duplexscope/web"
)

// Chromium is Debian's chromium (scripts/deps.sh installs it).
const Chromium = "/usr/bin/chromium"

// Option changes how Launch starts chromium.
type Option func(*launch)

type launch struct {
	path  string
	wav   string
	w, h  int
	flags []chromedp.ExecAllocatorOption
	logf  func(string, ...any)
}

// ExecPath runs the chromium binary at p instead of Chromium.
func ExecPath(p string) Option { return func(l *launch) { l.path = p } }

// FakeAudio makes the fake microphone play wav once (no loop); without it
// the fake device plays chromium's beep.
func FakeAudio(wav string) Option { return func(l *launch) { l.wav = wav } }

// WindowSize sets the window (default 1360 × 1800, the e2e screenshots').
func WindowSize(w, h int) Option { return func(l *launch) { l.w, l.h = w, h } }

// Flag adds a command-line flag (e.g. host-resolver-rules).
func Flag(name string, value any) Option {
	return func(l *launch) { l.flags = append(l.flags, chromedp.Flag(name, value)) }
}

// TestJIT keeps V8 from tiering wasm up to its optimizing compiler
// (--liftoff-only). A page load's TurboFan compiles of the Go wasm cost
// about 4.5 s of CPU on 2 cores, competing with the page they are meant to
// speed up; tests check behaviour and bound times on the machine as it is,
// so they leave that work out. The bench keeps Chrome's defaults: it
// measures what a user's browser does.
func TestJIT() Option { return Flag("js-flags", "--liftoff-only") }

// Logf receives chromedp's log lines (a test's t.Logf).
func Logf(f func(string, ...any)) Option { return func(l *launch) { l.logf = f } }

// RequireChromium says how to install chromium when path is not there.
func RequireChromium(path string) error {
	if _, err := exec.LookPath(path); err != nil {
		return fmt.Errorf("chromium not found at %s: run `scripts/deps.sh test` (apt-get install -y chromium): %w", path, err)
	}
	return nil
}

// RequireWasm says how to build the page when web/app.wasm is not embedded.
func RequireWasm() error {
	if _, err := fs.Stat(web.FS, "app.wasm"); err != nil {
		return fmt.Errorf("web/app.wasm is missing from the embedded assets: run `make wasm` first (make e2e and make bench do): %w", err)
	}
	return nil
}

// allocatorOptions are the flags of one launch: headless, no sandbox (the
// tests run as root), no GPU, nothing fetched in the background, fake
// media devices granted without a prompt, audio allowed without a click.
// No user-data-dir: chromedp makes a fresh profile and removes it.
func (l *launch) allocatorOptions() ([]chromedp.ExecAllocatorOption, error) {
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(l.path),
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
		chromedp.Flag("autoplay-policy", "no-user-gesture-required"),
		chromedp.WindowSize(l.w, l.h),
	}
	if l.wav != "" {
		abs, err := filepath.Abs(l.wav)
		if err != nil {
			return nil, err
		}
		opts = append(opts, chromedp.Flag("use-file-for-fake-audio-capture", abs+"%noloop"))
	}
	return append(opts, l.flags...), nil
}

// Launch starts headless chromium and returns its first tab, ready; cancel
// ends the browser and removes its profile.
func Launch(opts ...Option) (context.Context, context.CancelFunc, error) {
	l := &launch{path: Chromium, w: 1360, h: 1800}
	for _, o := range opts {
		o(l)
	}
	if err := RequireChromium(l.path); err != nil {
		return nil, nil, err
	}
	aopts, err := l.allocatorOptions()
	if err != nil {
		return nil, nil, err
	}
	// Chromium's process-singleton directory (org.chromium.Chromium.*)
	// outlives a browser that is killed rather than closed, which is how
	// every test ends one: a TMPDIR of its own goes with the browser.
	tmp, err := os.MkdirTemp("", "duplexscope-chromium-")
	if err != nil {
		return nil, nil, err
	}
	aopts = append(aopts, chromedp.Env("TMPDIR="+tmp))
	actx, acancel := chromedp.NewExecAllocator(context.Background(), aopts...)
	var copts []chromedp.ContextOption
	if l.logf != nil {
		copts = append(copts, chromedp.WithLogf(l.logf))
	}
	ctx, cancel := chromedp.NewContext(actx, copts...)
	stop := func() { cancel(); acancel(); os.RemoveAll(tmp) }
	if err := chromedp.Do(ctx); err != nil {
		stop()
		return nil, nil, fmt.Errorf("starting chromium: %w", err)
	}
	return context.WithValue(ctx, tmpDirKey{}, tmp), stop, nil
}

// tmpDirKey keys the browser's TMPDIR in Launch's context (for its test).
type tmpDirKey struct{}

// Start is Launch for a test: a missing chromium or a failed start fails t
// (never skips), chromedp logs to t, and V8 runs wasm in its baseline
// compiler only (TestJIT).
func Start(t testing.TB, opts ...Option) (context.Context, context.CancelFunc) {
	t.Helper()
	ctx, cancel, err := Launch(append([]Option{Logf(t.Logf), TestJIT()}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return ctx, cancel
}

// OnNewDocument runs src in every document the tab of ctx opens from now
// on, before the page's own scripts (DevTools injection: not subject to the
// page's CSP).
func OnNewDocument(ctx context.Context, src string) error {
	return chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: src})
		return err
	}))
}
