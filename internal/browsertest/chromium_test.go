//go:build !js

package browsertest

import (
	"strings"
	"testing"
)

// TestLaunchWithoutChromium: a missing browser is an error that names the
// path and the command that installs it (the tests fail on it, never skip).
func TestLaunchWithoutChromium(t *testing.T) {
	t.Parallel()
	const missing = "/nonexistent/chromium"
	_, _, err := Launch(ExecPath(missing), FakeAudio("fake-mic.wav"))
	if err == nil {
		t.Fatal("Launch with no chromium at the path: no error")
	}
	for _, want := range []string{missing, "scripts/deps.sh test", "apt-get install -y chromium"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}
