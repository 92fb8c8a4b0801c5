//go:build e2e && !js

package browsertest

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestOpenSaysWhereAStuckLoadStood: a page whose image never finishes
// loading holds its load event, and openWithin's error names the open
// request and the document's state instead of a bare deadline.
func TestOpenSaysWhereAStuckLoadStood(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			w.Header().Set("Content-Type", "text/html")
			w.Write([]byte(`<!doctype html><title>stuck</title><link rel="icon" href="data:,"><img src="/never.png">`))
		case "/plain":
			w.Header().Set("Content-Type", "text/html")
			w.Write([]byte(`<!doctype html><title>plain</title>`))
		case "/never.png":
			w.Header().Set("Content-Type", "image/png")
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
			select {
			case <-release:
			case <-r.Context().Done():
			}
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	defer close(release)
	ctx, stop := Start(t)
	defer stop()
	if err := openWithin(ctx, srv.URL+"/plain", 30*time.Second, t.Logf); err != nil {
		t.Fatalf("a page that loads: %v", err)
	}
	err := openWithin(ctx, srv.URL+"/", 2*time.Second, t.Logf)
	if err == nil {
		t.Fatal("a page whose image never ends loaded")
	}
	for _, want := range []string{"did not finish loading in 2s", "readyState interactive", "service worker: none", "open requests: ", srv.URL + "/never.png"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}

// TestOpenGetsPastAStuckRenderer: a tab whose main thread never returns
// (here a busy loop: the wedge Open exists for is a main thread blocked in
// Chromium's audio teardown, which a page cannot cause) holds the next
// navigation; Open crashes its renderer, says so, and loads the page. A
// page that is itself stuck again is an error.
func TestOpenGetsPastAStuckRenderer(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		switch r.URL.Path {
		case "/spin":
			w.Write([]byte(`<!doctype html><title>spin</title><script>addEventListener("load", () => setTimeout(() => { for (;;) {} }, 0))</script>`))
		case "/spin-early":
			w.Write([]byte(`<!doctype html><title>spin early</title><script>for (;;) {}</script>`))
		default:
			w.Write([]byte(`<!doctype html><title>plain</title>`))
		}
	}))
	defer srv.Close()
	ctx, stop := Start(t)
	defer stop()
	var logged []string
	logf := func(f string, a ...any) { logged = append(logged, fmt.Sprintf(f, a...)) }
	if err := openWithin(ctx, srv.URL+"/spin", 10*time.Second, logf); err != nil {
		t.Fatalf("the spinning page's own load: %v", err)
	}
	if err := openWithin(ctx, srv.URL+"/plain", 3*time.Second, logf); err != nil {
		t.Fatalf("Open did not get past the stuck renderer: %v", err)
	}
	if len(logged) != 1 || !strings.Contains(logged[0], "the tab did not answer") || !strings.Contains(logged[0], "crashing the tab's renderer") {
		t.Errorf("Open logged %q, want one line saying it crashed the unanswering renderer", logged)
	}
	if title, err := chromedp.Run(ctx, chromedp.Title()); err != nil || title != "plain" {
		t.Errorf("after the recovery the tab shows %q (%v), want the plain page", title, err)
	}
	err := openWithin(ctx, srv.URL+"/spin-early", 3*time.Second, logf)
	if err == nil || !strings.Contains(err.Error(), "after its renderer was crashed") {
		t.Errorf("a page that never loads: Open returned %v, want an error after one crash", err)
	}
}
