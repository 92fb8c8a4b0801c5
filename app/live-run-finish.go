package app

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/duplexscope/duplexscope/metrics"
	"github.com/duplexscope/duplexscope/server/apiclient"
	"github.com/duplexscope/duplexscope/session"
	"github.com/duplexscope/duplexscope/trace"
)

// release stops the run and closes its audio contexts (a new run starts;
// browsers allow only a few AudioContexts per page).
func (r *liveRun) release() {
	r.stop()
	r.cancel()
	r.mu.Lock()
	g, ws := r.graph, r.worker
	r.graph = nil
	r.mu.Unlock()
	ws.release()
	g.close()
}

// finish commits, waits for completion, closes and saves.
func (r *liveRun) finish() {
	if g := r.graph; g != nil {
		g.stopInput()
	}
	if r.cam != nil {
		r.cam.stop() // input ended: no more pictures
	}
	r.setPhase(phaseFinishing, "Input ended — waiting for the last responses…")
	res, wireLog, sessErr := r.closeSession()
	r.drainPlayback()
	if wireLog == nil {
		r.fail(cmp.Or(sessErr, errors.New("the session worker returned no wire log")))
		return
	}
	final := metrics.ScoreSession(*wireLog)
	tt := traceTurnTaking(wireLog, r.labels, r.probeOnsets(), "")
	r.ttMu.Lock()
	user := r.ttRec.UserSpeech(nil) // every event is in by now: the whole input
	r.ttMu.Unlock()
	r.mu.Lock()
	r.tt = tt
	r.userSpeech = user
	r.result = res
	r.final = &final
	if sessErr != nil && r.err == nil {
		r.err = sessErr
	}
	r.mu.Unlock()
	r.setPhase(phaseSaving, "Saving the report…")
	info, kept, err := saveRun(r.ctx, r.buildSaveInput(wireLog))
	r.mu.Lock()
	r.share = info
	r.mu.Unlock()
	switch {
	case err != nil && kept != nil && !errors.Is(err, errSignIn):
		r.setShareProgress(fmt.Sprintf("Upload attempt 1 of %d failed: %s. Trying again in %s; the run is kept in this browser meanwhile.", maxUploadAttempts, uploadWords(err), secondsText(uploadDelay(2))))
		r.setPhase(phaseDone, "Saving failed: "+uploadWords(err)+". The run is kept in this browser; retrying now.")
		go r.retrySave(kept, false)
	case err != nil:
		r.setPhase(phaseDone, "Saving failed: "+uploadWords(err)+". The run is kept in this browser and will be retried.")
	case sessErr != nil:
		r.setPhase(phaseDone, "Session ended with an error: "+errorWords(sessErr)+" — partial report saved.")
	default:
		r.setPhase(phaseDone, "Done — report saved.")
	}
}

// closeSession commits, waits for the last responses and closes, on the
// thread the session runs on; it returns the wire log (nil only when the
// worker lost it, with the reason).
func (r *liveRun) closeSession() (*session.Result, *trace.Session, error) {
	if ws := r.worker; ws != nil {
		res, wireLog, err := ws.Finish(r.ctx)
		ws.release()
		return res, wireLog, err
	}
	return r.sess.Finish(r.ctx)
}

// setShareProgress updates the share box's upload words.
func (r *liveRun) setShareProgress(words string) {
	r.mu.Lock()
	r.share.Progress = words
	r.mu.Unlock()
}

// retrySave retries a failed upload now, with backoff, and shows the
// share link once delivered. It outlives the run (its context is ended by
// then); it publishes only while this run is the page's current one.
func (r *liveRun) retrySave(k *keptUpload, keepStatus bool) {
	retryUpload(context.Background(), k.attempt, apiclient.Wait, func(p uploadProgress) {
		r.mu.Lock()
		if p.Delivered {
			p.Info.Progress = p.Words
			r.share = p.Info
		} else {
			r.share.Progress = p.Words
			r.share.SignIn = r.share.SignIn || p.SignIn
		}
		r.mu.Unlock()
		if !r.isCurrent() {
			return
		}
		if p.Delivered && keepStatus { // a failed start: its error stays the status
			r.mu.Lock()
			phase, status := r.phase, r.status
			r.mu.Unlock()
			r.setPhase(phase, status)
		} else if p.Delivered {
			r.setPhase(phaseDone, "Done — report saved (after "+strconv.Itoa(p.Attempt)+" upload attempts).")
		} else {
			r.maybePublish(true)
		}
	})
}

// isCurrent reports whether r is the page's current run (an older run's
// upload retries must not overwrite a newer run's view).
func (r *liveRun) isCurrent() bool {
	currentMu.Lock()
	defer currentMu.Unlock()
	return currentRun == r
}

// drainPlayback tells the player every response is finished.
func (r *liveRun) drainPlayback() {
	r.mu.Lock()
	ids := append([]string(nil), r.wire.Order()...)
	r.mu.Unlock()
	for _, id := range ids {
		r.graph.done(id)
	}
}

func (r *liveRun) setPhase(phase, status string) {
	r.mu.Lock()
	r.phase, r.status = phase, status
	r.mu.Unlock()
	r.maybePublish(true)
}

func (r *liveRun) fail(err error) {
	r.mu.Lock()
	r.err = err
	r.mu.Unlock()
	r.setPhase(phaseFailed, errorWords(err))
	if r.graph != nil {
		r.graph.stopInput()
	}
}

// errorWords turns an error into a sentence for a person.
func errorWords(err error) string {
	var se *session.ServerError
	var he *session.HandshakeError
	var ae *actionError
	var ce *session.CloseError
	switch {
	case errors.As(err, &ae):
		return ae.Error()
	case errors.As(err, &ce) && ce.Opened && ce.Code != 1006:
		// The server (or the proxy) closed with a code: say both.
		return errorWords(classifyDial(ce, "", false, probeNone))
	case errors.As(err, &ce) && ce.Opened && errors.Is(err, session.ErrTransportDropped):
		return err.Error() + " (the connection dropped without a close code: the server or the network ended it; check the server's log)"
	case errors.As(err, &se):
		return "the server reported an error: " + se.Error()
	case errors.As(err, &he):
		return "the server did not open a session: " + he.Error()
	case errors.Is(err, context.Canceled):
		return "stopped"
	}
	return err.Error()
}
