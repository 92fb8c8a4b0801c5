package app

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/duplexscope/duplexscope/server/apiclient"
)

// maxUploadAttempts bounds the retries a page makes of a failed upload
// while it stays open (the first attempt included); after them the run
// stays in browser storage and is sent on the next visit.
const maxUploadAttempts = 8

// uploadDelay is the wait before attempt n (n ≥ 2): 2 s, 4 s, 8 s, …
// at most a minute.
func uploadDelay(n int) time.Duration {
	d := 2 * time.Second
	for i := 2; i < n && d < time.Minute; i++ {
		d *= 2
	}
	return min(d, time.Minute)
}

// uploadProgress is one step of retryUpload, in words for the page.
type uploadProgress struct {
	Attempt   int
	Delivered bool
	GaveUp    bool // no more attempts now (the run stays kept)
	SignIn    bool // the archive wants a sign-in
	Info      shareInfo
	Words     string
}

// retryUpload sends a kept report again now, with backoff (uploadDelay),
// until it is delivered, the archive wants a sign-in (a person must act),
// or maxUploadAttempts are used (attempt 1 was the failed save itself).
// attempt uploads once; sleep waits (an injected clock in tests); progress
// gets each step. It returns the last step.
func retryUpload(ctx context.Context, attempt func(context.Context) (shareInfo, error), sleep func(context.Context, time.Duration) error, progress func(uploadProgress)) uploadProgress {
	var last uploadProgress
	for n := 2; n <= maxUploadAttempts; n++ {
		if err := sleep(ctx, uploadDelay(n)); err != nil {
			last = uploadProgress{Attempt: n - 1, GaveUp: true, Words: "Upload retries stopped; the run is kept in this browser and sent on your next visit."}
			progress(last)
			return last
		}
		info, err := attempt(ctx)
		if err == nil {
			last = uploadProgress{Attempt: n, Delivered: true, Info: info,
				Words: fmt.Sprintf("Report saved on attempt %d of %d.", n, maxUploadAttempts)}
			progress(last)
			return last
		}
		last = uploadProgress{Attempt: n, Words: fmt.Sprintf("Upload attempt %d of %d failed: %s.", n, maxUploadAttempts, uploadWords(err))}
		switch {
		case errors.Is(err, errSignIn):
			last.GaveUp, last.SignIn = true, true
			last.Words += " The run is kept in this browser; it is saved after you sign in."
		case n == maxUploadAttempts:
			last.GaveUp = true
			last.Words += " The run is kept in this browser and sent on your next visit."
		default:
			last.Words += fmt.Sprintf(" Trying again in %s; the run is kept in this browser meanwhile.", secondsText(uploadDelay(n+1)))
		}
		progress(last)
		if last.GaveUp {
			return last
		}
	}
	return last
}

func secondsText(d time.Duration) string {
	return fmt.Sprintf("%d s", int(d/time.Second))
}

// uploadWords says why an upload failed, without Go's request internals.
func uploadWords(err error) string {
	he, isHTTP := errors.AsType[*uploadHTTPError](err)
	switch {
	case err == nil:
		return ""
	case errors.Is(err, errSignIn):
		return "this archive needs sign-in to save (sign in at /signin)"
	case isHTTP:
		s := "the archive answered " + he.Status
		if he.Text != "" {
			s += " (" + he.Text + ")"
		}
		return s
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return "the upload was interrupted"
	}
	return "the archive could not be reached (network error or server down)"
}

// uploadHTTPError is an API answer that is not 2xx (the one client's).
type uploadHTTPError = apiclient.Error
