//go:build !js

package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestWorkerDeps keeps the session worker's wasm small: under GOOS=js it
// must link none of these. net/http alone (its DefaultTransport keeps
// crypto/tls and x509) was 375 KB of the worker's brotli size when
// coder/websocket's browser build brought it in.
func TestWorkerDeps(t *testing.T) {
	cmd := exec.Command("go", "list", "-deps", ".")
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	deps := map[string]bool{}
	for _, p := range strings.Fields(string(out)) {
		deps[p] = true
	}
	if !deps["github.com/duplexscope/duplexscope/session"] {
		t.Fatalf("go list -deps does not list session; got %d packages", len(deps))
	}
	for _, p := range []string{
		"net/http",
		"crypto/tls",
		"crypto/x509",
		"html/template",
		"github.com/coder/websocket",
		"github.com/maxence-charriere/go-app/v10/pkg/app",
		"github.com/duplexscope/duplexscope/chart",
	} {
		if deps[p] {
			t.Errorf("the worker links %s (see go list -deps -f '{{.ImportPath}}: {{.Imports}}' under GOOS=js GOARCH=wasm)", p)
		}
	}
}
