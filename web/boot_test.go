package web

import (
	"strings"
	"testing"
)

// TestEarlyAppJS: go-app's instantiate call is replaced once, by the
// prelude's dsInstantiate, and an app.js without it (another go-app
// version) keeps its own fetch.
func TestEarlyAppJS(t *testing.T) {
	t.Parallel()
	goApp := "const wasm = await WebAssembly." + appJSInstantiate + " go.importObject);"
	for _, tc := range []struct {
		name, in     string
		calls, fetch int // dsInstantiate( and go-app's fetchWithProgress( after the rewrite
	}{
		{"go-app v10.1.11", goApp, 2, 0},
		{"another app.js", "fetchWithProgress(\"/web/app.wasm\", f)", 1, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := string(EarlyAppJS([]byte(tc.in)))
			if !strings.HasPrefix(out, appJSPrelude) {
				t.Errorf("the prelude does not come first:\n%s", out)
			}
			if n := strings.Count(out, appJSEarly); n != tc.calls {
				t.Errorf("dsInstantiate( appears %d times, want %d:\n%s", n, tc.calls, out)
			}
			if n := strings.Count(out, "fetchWithProgress("); n != tc.fetch {
				t.Errorf("go-app's fetch appears %d times, want %d", n, tc.fetch)
			}
		})
	}
}
