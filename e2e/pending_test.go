//go:build e2e

package e2e

import (
	"net/url"
	"testing"
	"time"

	"github.com/duplexscope/duplexscope/server/archive"
)

// TestFailedUploadIsRetried: when the archive refuses the upload, the page
// keeps the report in browser storage and delivers it on the next visit
// (same Idempotency-Key, so a retry can never store it twice).
func TestFailedUploadIsRetried(t *testing.T) {
	s, ctx := pageTest(t, nil, 3*time.Minute)
	s.FailUploads.Store(true)
	q := url.Values{"autostart": {"1"}, "duration_s": {"6"}, "source": {"dataset:builtin"}}
	open(t, ctx, s.URL+"/?"+q.Encode())
	if err := awaitKept(ctx, 2*time.Minute); err != nil {
		t.Fatalf("the page never said the run was kept: %v", err)
	}
	n, err := pendingUploads(ctx)
	if err != nil || n != 1 {
		t.Fatalf("pending uploads in localStorage: %d (%v), want 1", n, err)
	}
	if page, _ := s.Store.List(ctx, archive.Filter{}); len(page.Items) != 0 {
		t.Fatalf("archive holds %d reports while uploads fail", len(page.Items))
	}
	s.FailUploads.Store(false)
	open(t, ctx, s.URL+"/")
	if err := pollUntil(ctx, time.Minute, func() (bool, error) {
		page, err := s.Store.List(ctx, archive.Filter{})
		return len(page.Items) == 1, err
	}); err != nil {
		t.Fatalf("the kept report never reached the archive: %v", err)
	}
	if err := pollUntil(ctx, 30*time.Second, func() (bool, error) {
		n, err := pendingUploads(ctx)
		return n == 0, err
	}); err != nil {
		t.Errorf("the delivered report is still queued: %v", err)
	}
}
