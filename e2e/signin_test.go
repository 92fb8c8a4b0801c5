//go:build e2e

package e2e

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/duplexscope/duplexscope/server"
	"github.com/duplexscope/duplexscope/server/archive"
)

const e2eToken = "e2e-write-token"

// signInThroughForm fills the server's sign-in form the way a person does
// and waits until the form sent the browser back to the page.
func signInThroughForm(t *testing.T, ctx context.Context, s *stack) {
	t.Helper()
	open(t, ctx, s.URL+"/signin") // from a page that ran a session: past a wedged teardown (browsertest.Open)
	if err := chromedp.Do(ctx,
		chromedp.WaitVisible(chromedp.CSS("#token")),
		chromedp.SendKeys(chromedp.CSS("#token"), e2eToken),
	); err != nil {
		t.Fatalf("sign-in form: %v", err)
	}
	// The submit navigates: RunResponse waits for the page it leads to, so
	// no evaluation below runs in the document being replaced.
	if _, err := chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS("#signin-submit"))); err != nil {
		t.Fatalf("sign-in form: submitting: %v", err)
	}
	if err := pollUntil(ctx, 30*time.Second, func() (bool, error) {
		loc, err := chromedp.Run(ctx, chromedp.Evaluate[string](`location.pathname`))
		return loc == "/", err
	}); err != nil {
		loc, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`location.href + " " + document.body.innerText`))
		t.Fatalf("the sign-in form did not lead back to the page: %v (at %s)", err, loc)
	}
	// The cookie is HttpOnly: the page's script cannot read it.
	if c, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.cookie`)); strings.Contains(c, server.SessionCookie) {
		t.Errorf("document.cookie exposes the session: %q", c)
	}
}

// withWriteToken gives the stack's archive the write token e2eToken.
func withWriteToken(c *server.Config) { c.WriteToken = e2eToken }

// signedInRun begins a page test on an archive with a write token: a person
// signs in through the form and runs a short simulator session, which the
// page saves.
func signedInRun(t *testing.T) (*stack, context.Context, browserRun) {
	t.Helper()
	s, ctx := pageTest(t, withWriteToken, 3*time.Minute)
	signInThroughForm(t, ctx, s)
	q := url.Values{"autostart": {"1"}, "duration_s": {"6"}, "source": {"dataset:builtin"}}
	return s, ctx, runPage(t, s, ctx, q, 2*time.Minute)
}

// TestTokenHolderSaves: with --write-token a person signs in through the
// form, runs a short simulator session, and the page saves the report with
// its wire log (through a capability minted for that one report).
func TestTokenHolderSaves(t *testing.T) {
	t.Parallel() // no timing bound: may run beside another test (doc.go)
	s, ctx, run := signedInRun(t)
	rec, err := s.Store.Get(ctx, run.ReportID)
	if err != nil {
		t.Fatalf("the signed-in page's report %s is not archived: %v", run.ReportID, err)
	}
	if _, err := s.Store.GetAttachment(ctx, rec.ID, "wire-log.json"); err != nil {
		t.Errorf("the wire log was not stored: %v", err)
	}
}

// TestSignInLaterKeepsRun: without a sign-in the page does not lose the run
// (it says how to sign in and offers the JSON); after signing in through
// the form the kept run reaches the archive.
func TestSignInLaterKeepsRun(t *testing.T) {
	t.Parallel() // no timing bound: may run beside another test (doc.go)
	s, ctx := pageTest(t, withWriteToken, 3*time.Minute)
	q := url.Values{"autostart": {"1"}, "duration_s": {"6"}, "source": {"dataset:builtin"}}
	open(t, ctx, s.URL+"/?"+q.Encode())
	if err := pollUntil(ctx, 2*time.Minute, func() (bool, error) {
		txt, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(document.querySelector('#share')||{}).innerText||""`))
		return strings.Contains(txt, "needs sign-in to save") && strings.Contains(txt, "Download report JSON"), err
	}); err != nil {
		t.Fatalf("the page never said it needs a sign-in: %v", err)
	}
	if page, _ := s.Store.List(ctx, archive.Filter{}); len(page.Items) != 0 {
		t.Fatalf("an anonymous page stored %d reports", len(page.Items))
	}
	n, err := pendingUploads(ctx)
	if err != nil || n != 1 {
		t.Fatalf("kept runs in localStorage: %d (%v), want 1", n, err)
	}
	signInThroughForm(t, ctx, s)
	// The report lands first, its wire log right after.
	if err := pollUntil(ctx, time.Minute, func() (bool, error) {
		page, err := s.Store.List(ctx, archive.Filter{})
		if err != nil || len(page.Items) != 1 {
			return false, err
		}
		_, err = s.Store.GetAttachment(ctx, page.Items[0].ID, "wire-log.json")
		return err == nil, nil
	}); err != nil {
		page, _ := s.Store.List(ctx, archive.Filter{})
		t.Fatalf("the kept run (%d reports archived) and its wire log never reached the archive after sign-in: %v", len(page.Items), err)
	}
}
