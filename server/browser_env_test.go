//go:build e2e && !js

package server_test

import (
	"context"
	"testing"
	"time"

	"github.com/duplexscope/duplexscope/internal/browsertest"
	"github.com/duplexscope/duplexscope/server"
	"github.com/duplexscope/duplexscope/web"
)

// newBrowserEnv is newEnv serving the real page assets (web.FS: the
// vendored echarts the pages' charts need).
func newBrowserEnv(t *testing.T) *env {
	return newEnv(t, func(c *server.Config) { c.Web = web.FS })
}

// openBrowser starts chromium for t and returns its first tab, bounded by
// timeout; the tab and the browser end when t does.
func openBrowser(t *testing.T, timeout time.Duration, opts ...browsertest.Option) context.Context {
	t.Helper()
	ctx, cancel := browsertest.Start(t, opts...)
	t.Cleanup(cancel)
	ctx, cancelT := context.WithTimeout(ctx, timeout)
	t.Cleanup(cancelT)
	return ctx
}
