//go:build !js

package main

import (
	"testing"

	"github.com/duplexscope/duplexscope/internal/testkit"
)

// TestWorkerDeps keeps the session worker's wasm small: under GOOS=js it
// must link none of these. net/http alone (its DefaultTransport keeps
// crypto/tls and x509) was 375 KB of the worker's brotli size when
// coder/websocket's browser build brought it in.
func TestWorkerDeps(t *testing.T) {
	deps := testkit.Deps(t, "github.com/duplexscope/duplexscope/session", "GOOS=js", "GOARCH=wasm")
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
