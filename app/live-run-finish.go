package app

import (
	"cmp"
	"context"
	"errors"
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
	r.turns.finish(wireLog, r.probeOnsets())
	r.mu.Lock()
	r.result = res
	r.final = &final
	r.mu.Unlock()
	if sessErr != nil {
		r.life.setErr(sessErr, true)
	}
	r.setPhase(phaseSaving, "Saving the report…")
	info, kept, err := saveRun(r.ctx, r.buildSaveInput(wireLog))
	retry := r.life.saved(info, err, kept, sessErr, false)
	r.maybePublish(true)
	if retry {
		go r.retrySave(kept, false)
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

// retrySave retries a failed upload now, with backoff, and shows the
// share link once delivered. It outlives the run (its context is ended by
// then); it publishes only while this run is the page's current one.
func (r *liveRun) retrySave(k *keptUpload, keepStatus bool) {
	retryUpload(context.Background(), k.attempt, apiclient.Wait, func(p uploadProgress) {
		r.life.retried(p)
		if !r.isCurrent() {
			return
		}
		if p.Delivered && !keepStatus { // a failed start's error stays the status
			r.setPhase(phaseDone, "Done — report saved (after "+strconv.Itoa(p.Attempt)+" upload attempts).")
		} else {
			r.maybePublish(true)
		}
	})
}

// isCurrent reports whether r is the page's current run (an older run's
// upload retries must not overwrite a newer run's view).
func (r *liveRun) isCurrent() bool {
	return liveSlot.get() == r
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
	r.life.set(phase, status)
	r.maybePublish(true)
}

func (r *liveRun) fail(err error) {
	r.life.setErr(err, false)
	r.setPhase(phaseFailed, errorWords(err))
	if r.graph != nil {
		r.graph.stopInput()
	}
}

// errorWords turns an error into a sentence for a person.
func errorWords(err error) string {
	ae, isAction := errors.AsType[*actionError](err)
	ce, isClose := errors.AsType[*session.CloseError](err)
	se, isServer := errors.AsType[*session.ServerError](err)
	he, isHandshake := errors.AsType[*session.HandshakeError](err)
	switch {
	case isAction:
		return ae.Error()
	case isClose && ce.Opened && ce.Code != 1006:
		// The server (or the proxy) closed with a code: say both.
		return errorWords(classifyDial(ce, "", false, probeNone))
	case isClose && ce.Opened && errors.Is(err, session.ErrTransportDropped):
		return err.Error() + " (the connection dropped without a close code: the server or the network ended it; check the server's log)"
	case isServer:
		return "the server reported an error: " + se.Error()
	case isHandshake:
		return "the server did not open a session: " + he.Error()
	case errors.Is(err, context.Canceled):
		return "stopped"
	}
	return err.Error()
}
