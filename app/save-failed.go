package app

// saveFailedStart archives a run whose session never started (the server
// refused, the path was wrong, the handshake failed), so history lists it
// with its reason and an "incomplete" badge, as it lists CLI runs whose
// sessions failed: a report with no responses, complete false and the
// reason in sessions[0].error. Called after fail; a stopped run is not a
// result and is not saved. A failed upload is kept for a retry, like any
// run's.
func (r *liveRun) saveFailedStart() {
	if !r.life.state().failedStartToSave(r.ctx) {
		return
	}
	info, kept, err := saveRun(r.ctx, r.buildSaveInput(nil))
	retry := r.life.saved(info, err, kept, nil, true)
	r.maybePublish(true) // the share box; the status stays what the page said
	if retry {
		go r.retrySave(kept, true) // retried now with backoff, like any run's upload
	}
}
