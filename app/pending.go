package app

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

// pendingKey is the localStorage key of reports whose upload failed.
const pendingKey = "duplexscope.pending-uploads"

// pendingUpload is a report kept in the browser until the archive takes it.
// The same Idempotency-Key is reused on every retry, so a report the server
// stored before the answer got lost is not stored twice.
type pendingUpload struct {
	Key     string          `json:"key"`
	Report  json.RawMessage `json:"report"`
	WireLog json.RawMessage `json:"wire_log,omitempty"`
}

func loadPending() []pendingUpload {
	v := app.Window().Get("localStorage").Call("getItem", pendingKey)
	if v.IsNull() || v.IsUndefined() {
		return nil
	}
	var ps []pendingUpload
	if json.Unmarshal([]byte(v.String()), &ps) != nil {
		return nil
	}
	return ps
}

func storePending(ps []pendingUpload) bool {
	if len(ps) == 0 {
		app.Window().Get("localStorage").Call("removeItem", pendingKey)
		return true
	}
	b, err := json.Marshal(ps)
	if err != nil {
		return false
	}
	ok := true
	func() {
		defer func() {
			if recover() != nil { // QuotaExceededError surfaces as a panic
				ok = false
			}
		}()
		app.Window().Get("localStorage").Call("setItem", pendingKey, string(b))
	}()
	return ok
}

// keepPending adds p to the queue; when storage is full it drops the wire
// log first (the report alone still holds every number).
func keepPending(p pendingUpload) {
	ps := append(loadPending(), p)
	if storePending(ps) {
		return
	}
	ps[len(ps)-1].WireLog = nil
	storePending(ps)
}

// retryPending uploads every queued report; it returns how many were
// delivered, how many remain, and whether the archive wants a sign-in.
func retryPending(ctx context.Context) (delivered, left int, signIn bool) {
	ps := loadPending()
	if len(ps) == 0 {
		return 0, 0, false
	}
	var keep []pendingUpload
	for _, p := range ps {
		var blobs []attachmentBlob
		if len(p.WireLog) > 0 {
			blobs = append(blobs, attachmentBlob{Body: p.WireLog})
			blobs[0].Ref.Name, blobs[0].Ref.Kind, blobs[0].Ref.ContentType = "wire-log.json", "wire_log", "application/json"
		}
		if _, err := uploadReport(ctx, p.Key, p.Report, blobs); err != nil {
			signIn = signIn || errors.Is(err, errSignIn)
			keep = append(keep, p)
			continue
		}
		delivered++
	}
	storePending(keep)
	return delivered, len(keep), signIn
}

// dropPending removes the upload with key from the queue (delivered).
func dropPending(key string) {
	ps := loadPending()
	keep := ps[:0]
	for _, p := range ps {
		if p.Key != key {
			keep = append(keep, p)
		}
	}
	storePending(keep)
}
