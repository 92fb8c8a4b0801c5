//go:build e2e

package e2e

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/duplexscope/duplexscope/server/archive"
)

// TestFailedUploadIsRetried: when the archive refuses the upload, the page
// keeps the report in browser storage and delivers it on the next visit
// (same Idempotency-Key, so a retry can never store it twice).
func TestFailedUploadIsRetried(t *testing.T) {
	t.Parallel() // no timing bound: may run beside another test (doc.go)
	s, ctx := pageTest(t, nil, 3*time.Minute)
	s.FailUploads.Store(true)
	q := url.Values{"autostart": {"1"}, "duration_s": {"6"}, "source": {"dataset:builtin"}}
	if err := chromedp.Do(ctx, chromedp.Navigate(s.URL+"/?"+q.Encode())); err != nil {
		t.Fatal(err)
	}
	if err := pollUntil(ctx, 2*time.Minute, func() (bool, error) {
		txt, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(document.querySelector('#share')||{}).innerText||""`))
		return strings.Contains(txt, "kept in this browser"), err
	}); err != nil {
		t.Fatalf("the page never said the run was kept: %v", err)
	}
	n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`(JSON.parse(localStorage.getItem("duplexscope.pending-uploads")||"[]")||[]).length`))
	if err != nil || n != 1 {
		t.Fatalf("pending uploads in localStorage: %d (%v), want 1", n, err)
	}
	if page, _ := s.Store.List(ctx, archive.Filter{}); len(page.Items) != 0 {
		t.Fatalf("archive holds %d reports while uploads fail", len(page.Items))
	}
	s.FailUploads.Store(false)
	if err := chromedp.Do(ctx, chromedp.Navigate(s.URL+"/")); err != nil {
		t.Fatal(err)
	}
	if err := pollUntil(ctx, time.Minute, func() (bool, error) {
		page, err := s.Store.List(ctx, archive.Filter{})
		return len(page.Items) == 1, err
	}); err != nil {
		t.Fatalf("the kept report never reached the archive: %v", err)
	}
	if err := pollUntil(ctx, 30*time.Second, func() (bool, error) {
		n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`(JSON.parse(localStorage.getItem("duplexscope.pending-uploads")||"[]")||[]).length`))
		return n == 0, err
	}); err != nil {
		t.Errorf("the delivered report is still queued: %v", err)
	}
}
