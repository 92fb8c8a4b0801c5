package app

import (
	"context"
	"errors"
)

// saveFailedStart archives a run whose session never started (the server
// refused, the path was wrong, the handshake failed), so history lists it
// with its reason and an "incomplete" badge, as it lists CLI runs whose
// sessions failed: a report with no responses, complete false and the
// reason in sessions[0].error. Called after fail; a stopped run is not a
// result and is not saved. A failed upload is kept for a retry, like any
// run's.
func (r *liveRun) saveFailedStart() {
	r.mu.Lock()
	err := r.err
	r.mu.Unlock()
	if err == nil || errors.Is(err, context.Canceled) || r.ctx.Err() != nil {
		return
	}
	info, kept, err := saveRun(r.ctx, r.buildSaveInput(nil))
	r.mu.Lock()
	r.share = info
	phase, status := r.phase, r.status
	r.mu.Unlock()
	r.setPhase(phase, status) // publish the share box, keep what the page said
	if err != nil && kept != nil && !errors.Is(err, errSignIn) {
		go r.retrySave(kept, true) // retried now with backoff, like any run's upload
	}
}
