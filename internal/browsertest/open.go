//go:build !js

package browsertest

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/inspector"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/systeminfo"
	"github.com/chromedp/chromedp"
)

// LoadBound is how long Open waits for a page's load event. A cold load of
// the dashboard takes about a second alone, and a browser run under
// SCHED_IDLE beside `make test`'s timed suites reached its first chart
// point (later than the load event) 8.2 s after navigation at worst, so a
// load that takes longer than this is stuck, not slow. It is short enough
// that a test gets past two wedged renderers (one bound plus 10 s each)
// well inside its own deadline (3 minutes for the six navigations of
// TestBrowserDialErrors).
const LoadBound = 30 * time.Second

// Open navigates the tab of ctx to u and waits (at most LoadBound) for its
// load event. A load that does not end says where the tab stood: its
// document state, location, service worker and the requests still open.
//
// One stuck state is Chromium's, not the page's, and Open gets past it
// once: a renderer whose main thread answers nothing. Chromium 148 can
// wedge a renderer's main thread for good while a navigation tears down
// the previous page's audio (seen in `make test` and in a loop of
// TestBrowserDialErrors: 2 of 36 navigations from a page with a session's
// audio under load, under 1 in 300 idle; the main thread in pthread_join on the AudioOutputDevice thread,
// which waits on a condition nobody signals; JS cannot put a main thread
// there). Open then kills that renderer, says so through logf, and loads
// u again in a new one; the second load gets no such help.
func Open(ctx context.Context, u string, logf func(string, ...any)) error {
	return openWithin(ctx, u, LoadBound, logf)
}

func openWithin(ctx context.Context, u string, bound time.Duration, logf func(string, ...any)) error {
	err := navigateWithin(ctx, u, bound)
	var stuck *stuckLoad
	if !errors.As(err, &stuck) || stuck.answered {
		return err
	}
	logf("%v: crashing the tab's renderer and loading again", err)
	if cerr := crashRenderer(ctx); cerr != nil {
		return fmt.Errorf("%w (and crashing its renderer failed: %v)", err, cerr)
	}
	if err2 := navigateWithin(ctx, u, bound); err2 != nil {
		return fmt.Errorf("%w; after its renderer was crashed: %w", err, err2)
	}
	return nil
}

// stuckLoad is a navigation whose load event did not come in time.
type stuckLoad struct {
	bound    time.Duration
	state    string // tabState
	answered bool   // the tab's main thread evaluated tabState's script
	open     string // requests still open
	err      error
}

func (e *stuckLoad) Error() string {
	return fmt.Sprintf("the page did not finish loading in %v (%s; open requests: %s): %v", e.bound, e.state, e.open, e.err)
}

func (e *stuckLoad) Unwrap() error { return e.err }

// navigateWithin navigates and waits for the load event, at most bound.
func navigateWithin(ctx context.Context, u string, bound time.Duration) error {
	lctx, cancel := context.WithTimeout(ctx, bound)
	defer cancel()
	var reqs openRequests
	if err := chromedp.Listen(lctx, reqs.event); err != nil {
		return err
	}
	err := chromedp.Do(lctx, chromedp.Navigate(u))
	if err == nil || ctx.Err() != nil || !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	state, answered := tabState(ctx, min(bound, 10*time.Second))
	return &stuckLoad{bound: bound, state: state, answered: answered, open: reqs.String(), err: err}
}

// crashRenderer kills the browser's renderer processes (the tests' browsers
// have one tab) and waits (10 s at most) until the browser reports the
// tab's gone. A kill, not Page.crash: the browser holds that command while
// the navigation it is stuck in is pending.
func crashRenderer(ctx context.Context) error {
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	crashed := make(chan struct{}, 1)
	if err := chromedp.Listen(cctx, func(ev any) {
		if _, ok := ev.(*inspector.EventTargetCrashed); ok {
			select {
			case crashed <- struct{}{}:
			default:
			}
		}
	}); err != nil {
		return err
	}
	c := chromedp.FromContext(ctx)
	if c == nil || c.Browser == nil {
		return chromedp.ErrInvalidContext
	}
	info, err := cdp.Call(cctx, c.Browser, systeminfo.GetProcessInfo, cdp.Empty{})
	if err != nil {
		return fmt.Errorf("listing the browser's processes: %w", err)
	}
	killed := 0
	for _, p := range info.ProcessInfo {
		if p.Type != "renderer" {
			continue
		}
		if proc, err := os.FindProcess(int(p.ID)); err == nil && proc.Kill() == nil {
			killed++
		}
	}
	if killed == 0 {
		return errors.New("the browser listed no renderer process to kill")
	}
	select {
	case <-crashed:
		return nil
	case <-cctx.Done():
		return fmt.Errorf("killed %d renderer(s), and the tab was not reported gone in 10 s: %w", killed, cctx.Err())
	}
}

// openRequests tracks the tab's requests from their start to their end
// (finished or failed): what a stuck load still waits for.
type openRequests struct {
	mu   sync.Mutex
	urls map[network.RequestID]string
}

// event is a chromedp.Listen callback: quick, under the lock only.
func (o *openRequests) event(ev any) {
	o.mu.Lock()
	defer o.mu.Unlock()
	switch e := ev.(type) {
	case *network.EventRequestWillBeSent:
		if o.urls == nil {
			o.urls = map[network.RequestID]string{}
		}
		o.urls[e.RequestID] = e.Request.URL
	case *network.EventLoadingFinished:
		delete(o.urls, e.RequestID)
	case *network.EventLoadingFailed:
		delete(o.urls, e.RequestID)
	}
}

func (o *openRequests) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.urls) == 0 {
		return "none"
	}
	urls := slices.Sorted(maps.Values(o.urls))
	return strings.Join(urls, " ")
}

// tabStateJS describes the document: readyState, location, the navigation
// timing's response and load ends and the service worker registration's workers (a
// navigation in its scope waits for an activating worker).
const tabStateJS = `(async () => {
  const nav = performance.getEntriesByType("navigation")[0] || {};
  let sw = "none";
  if (navigator.serviceWorker) {
    const r = await Promise.race([navigator.serviceWorker.getRegistration(), new Promise(ok => setTimeout(() => ok("no answer"), 3000))]);
    if (typeof r === "string") sw = r;
    else if (r) sw = ["installing", "waiting", "active"].map(k => k + " " + (r[k] ? r[k].state : "-")).join(", ") + (navigator.serviceWorker.controller ? ", controlled" : ", not controlled");
  }
  return "readyState " + document.readyState + ", at " + location.href +
    ", response end " + Math.round(nav.responseEnd || 0) + " ms, load end " + Math.round(nav.loadEventEnd || 0) + " ms" +
    ", service worker: " + sw;
})()`

// tabState reads tabStateJS in the tab of ctx within bound; answered is
// false when the tab's main thread did not run it (stuck or gone).
func tabState(ctx context.Context, bound time.Duration) (state string, answered bool) {
	sctx, cancel := context.WithTimeout(ctx, bound)
	defer cancel()
	s, err := chromedp.Run(sctx, chromedp.Evaluate[string](tabStateJS, chromedp.EvalAwaitPromise))
	if err != nil {
		return "the tab did not answer: " + err.Error(), false
	}
	return s, true
}
