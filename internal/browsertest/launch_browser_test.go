//go:build e2e && !js

package browsertest

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
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
