package apiclient

import (
	"cmp"
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// AttachmentTries is how often UploadReport tries one attachment, the
// first try included, while the server's answer says the failure may pass.
const AttachmentTries = 3

// Upload is a report and its attachments (package doc: the rule).
type Upload struct {
	// Key is the Idempotency-Key: the same key lands on the same report
	// however often the upload is sent (KeyFor, NewKey).
	Key    string
	Report []byte // the report JSON
	// Attachments are PUT in this order once the report is stored; each
	// must be declared in the report's attachments[] with its sha256.
	Attachments []Attachment
	// Capability: mint a report capability for Key first (POST
	// /api/capabilities) and write with it, as the page does: it holds no
	// token (its sign-in cookie authorises the mint), and it labels the run
	// later with the capability (Result.Capability).
	Capability bool
}

// Attachment is one attachment of an Upload.
type Attachment struct {
	Name, ContentType string
	Body              []byte
	// Read, when set, gives the bytes just before they are sent (the
	// CLI's wire logs stay on disk until then); it replaces Body.
	Read func() ([]byte, error)
}

// Result is where an uploaded report is.
type Result struct {
	ID         string
	URL        string   // the share page's path, /r/ID (Client.URL makes it absolute)
	Capability string   // the report capability written with (Upload.Capability)
	Stored     []string // the attachments that are in the archive, sent now or before
}

// PartialError is an upload whose report is stored while some of its
// attachments did not arrive.
type PartialError struct {
	ID, URL string
	Failed  []AttachmentError
}

// AttachmentError is why one attachment did not arrive.
type AttachmentError struct {
	Name string
	Err  error
}

// Error names each attachment that did not arrive, and why (the share URL
// is in the Result and in ID and URL).
func (e *PartialError) Error() string {
	parts := make([]string, len(e.Failed))
	for i, f := range e.Failed {
		parts[i] = f.Name + ": " + f.Err.Error()
	}
	return "some attachments were not saved: " + strings.Join(parts, "; ")
}

// UploadReport stores up's report, then its attachments, under the one
// partial-failure rule (package doc): an error with an empty Result.ID
// means nothing new is stored; a *PartialError comes with the Result of
// the stored report.
func (c *Client) UploadReport(ctx context.Context, up Upload) (Result, error) {
	var res Result
	w := *c // writes with c's token, or with the minted capability
	if up.Capability {
		var minted struct {
			Capability string `json:"capability"`
		}
		call := Call{Method: http.MethodPost, Path: "/api/capabilities", ContentType: "application/json", Key: up.Key}
		if err := c.Send(ctx, call, &minted); err != nil {
			return Result{}, err
		}
		w.Token, res.Capability = minted.Capability, minted.Capability
	}
	var created struct {
		ID  string `json:"id"`
		URL string `json:"url"`
	}
	call := Call{Method: http.MethodPost, Path: "/api/reports", Body: up.Report, ContentType: "application/json", Key: up.Key}
	if err := w.Send(ctx, call, &created); err != nil {
		return Result{}, err
	}
	if created.ID == "" {
		return Result{}, errors.New("POST /api/reports: the server answered without a report id")
	}
	res.ID, res.URL = created.ID, cmp.Or(created.URL, "/r/"+created.ID)
	var failed []AttachmentError
	for _, a := range up.Attachments {
		if err := w.putAttachment(ctx, res.ID, a); err != nil {
			failed = append(failed, AttachmentError{Name: a.Name, Err: err})
			continue
		}
		res.Stored = append(res.Stored, a.Name)
	}
	if len(failed) > 0 {
		return res, &PartialError{ID: res.ID, URL: res.URL, Failed: failed}
	}
	return res, nil
}

// putAttachment PUTs one attachment, again while the failure may pass; a
// 409 is success (written once, checked against the declared sha256).
func (c *Client) putAttachment(ctx context.Context, id string, a Attachment) error {
	body := a.Body
	if a.Read != nil {
		b, err := a.Read()
		if err != nil {
			return err
		}
		body = b
	}
	call := Call{Method: http.MethodPut, Path: "/api/reports/" + url.PathEscape(id) + "/attachments/" + url.PathEscape(a.Name),
		Body: body, ContentType: a.ContentType}
	for try := 1; ; try++ {
		err := c.Send(ctx, call, nil)
		code := 0 // no answer
		if he, ok := errors.AsType[*Error](err); ok {
			code = he.Code
		}
		switch {
		case err == nil, code == http.StatusConflict:
			return nil
		case try >= AttachmentTries || !passing(code) || ctx.Err() != nil:
			return err
		}
		wait := Wait
		if c.Sleep != nil {
			wait = c.Sleep
		}
		if err := wait(ctx, time.Duration(try)*time.Second); err != nil {
			return err
		}
	}
}

// passing says whether a call that failed with code (0: no answer) may
// succeed when tried again: no answer, a timeout, too many requests, a
// server error other than "not implemented" and "storage full".
func passing(code int) bool {
	switch code {
	case 0, http.StatusRequestTimeout, http.StatusTooManyRequests:
		return true
	case http.StatusNotImplemented, http.StatusInsufficientStorage:
		return false
	}
	return code >= 500
}

// Wait waits d or until ctx ends: the clock between tries when
// Client.Sleep is nil, and the page's between its retries of a kept upload.
func Wait(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
