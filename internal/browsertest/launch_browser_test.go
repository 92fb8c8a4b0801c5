//go:build e2e && !js

package browsertest

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestLaunchKeepsTempFilesInItsOwnDir: chromium writes its temporary files
// (the singleton directory left behind when a test kills the browser) in
// the launch's own TMPDIR, and stopping the browser removes that directory.
func TestLaunchKeepsTempFilesInItsOwnDir(t *testing.T) {
	t.Parallel()
	ctx, stop, err := Launch()
	if err != nil {
		t.Fatal(err)
	}
	dir, _ := ctx.Value(tmpDirKey{}).(string)
	if dir == "" {
		stop()
		t.Fatal("Launch gave the browser no TMPDIR of its own")
	}
	singleton, _ := filepath.Glob(filepath.Join(dir, "org.chromium.Chromium.*"))
	stop()
	if len(singleton) == 0 {
		t.Errorf("chromium wrote nothing under its TMPDIR %s: it does not use it, so its files land in the shared one", dir)
	}
	if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("after stop, the browser's TMPDIR %s is still there (stat: %v)", dir, err)
	}
}

// TestStartKeepsWasmInBaseline: a test's browser runs V8 with
// --liftoff-only (TestJIT), and the bench's (Launch without it) keeps
// Chrome's defaults, which is what a user's browser does.
func TestStartKeepsWasmInBaseline(t *testing.T) {
	t.Parallel()
	ctx, stop := Start(t)
	testArgs := commandLine(t, ctx)
	stop()
	if !slices.Contains(testArgs, "--js-flags=--liftoff-only") {
		t.Errorf("Start's chromium runs without --js-flags=--liftoff-only: %q", testArgs)
	}
	ctx, stop, err := Launch()
	if err != nil {
		t.Fatal(err)
	}
	benchArgs := commandLine(t, ctx)
	stop()
	for _, a := range benchArgs {
		if strings.HasPrefix(a, "--js-flags") {
			t.Errorf("Launch's chromium (the bench's) runs with %s, want V8's defaults", a)
		}
	}
}

// commandLine is the argv of the chromium process behind ctx.
func commandLine(t *testing.T, ctx context.Context) []string {
	t.Helper()
	c := chromedp.FromContext(ctx)
	if c == nil || c.Browser == nil || c.Browser.Process() == nil {
		t.Fatal("no chromium process behind the context")
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", c.Browser.Process().Pid))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
}
