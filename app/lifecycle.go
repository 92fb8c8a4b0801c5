package app

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// Phases of a live run, in order (phaseFailed may follow any).
const (
	phaseIdle       = "idle"
	phaseConnecting = "connecting"
	phaseStreaming  = "streaming"
	phaseFinishing  = "finishing"
	phaseSaving     = "saving"
	phaseDone       = "done"
	phaseFailed     = "failed"
)

// lifeState is where a run is: its phase and the words the page shows,
// its error and where its report went.
type lifeState struct {
	_             [0]func() // not comparable: no generated equality (app.wasm's size)
	phase, status string
	err           error
	share         shareInfo
}

// active reports whether the run is still going.
func (s lifeState) active() bool { return s.phase != phaseDone && s.phase != phaseFailed }

// lifecycle is a run's course: its state and the end of its input
// (liveRun.stop closes stopped, once). mu guards st; it never takes
// liveRun.mu, which may be held around its calls.
type lifecycle struct {
	_        [0]func() // not comparable, as lifeState
	mu       sync.Mutex
	st       lifeState
	stopOnce sync.Once
	stopped  chan struct{} // closed by liveRun.stop: input ended
}

func newLifecycle() *lifecycle {
	return &lifecycle{st: lifeState{phase: phaseIdle}, stopped: make(chan struct{})}
}

// state is a copy of where the run is.
func (l *lifecycle) state() lifeState {
	l.mu.Lock()
	s := l.st
	l.mu.Unlock()
	return s
}

// set moves the run to phase, saying status.
func (l *lifecycle) set(phase, status string) {
	l.mu.Lock()
	l.st.phase, l.st.status = phase, status
	l.mu.Unlock()
}

// setErr records err as the run's error; keepFirst: unless it has one
// already (the first is the cause), else the latest wins (the send path).
func (l *lifecycle) setErr(err error, keepFirst bool) {
	l.mu.Lock()
	if !keepFirst || l.st.err == nil {
		l.st.err = err
	}
	l.mu.Unlock()
}

// failedStartToSave reports whether a run that never started is archived:
// it failed (a stopped run is not a result) and its context still lives.
func (s lifeState) failedStartToSave(ctx context.Context) bool {
	return s.err != nil && !errors.Is(s.err, context.Canceled) && ctx.Err() == nil
}

// saved ends the run by its save's outcome: info is where the report went,
// err the upload's error, kept the report kept in this browser when the
// upload failed, sessErr the session's error. The run is never lost: a
// failed upload says it is kept; retry reports that the kept upload goes
// again now (retrySave; a sign-in waits for the person). A failed start
// keeps its phase and words (its error is the news).
func (l *lifecycle) saved(info shareInfo, err error, kept *keptUpload, sessErr error, failedStart bool) (retry bool) {
	retry = err != nil && kept != nil && !errors.Is(err, errSignIn)
	var status string
	switch {
	case failedStart:
	case retry:
		info.Progress = fmt.Sprintf("Upload attempt 1 of %d failed: %s. Trying again in %s; the run is kept in this browser meanwhile.", maxUploadAttempts, uploadWords(err), secondsText(uploadDelay(2)))
		status = "Saving failed: " + uploadWords(err) + ". The run is kept in this browser; retrying now."
	case err != nil:
		status = "Saving failed: " + uploadWords(err) + ". The run is kept in this browser and will be retried."
	case sessErr != nil:
		status = "Session ended with an error: " + errorWords(sessErr) + " — partial report saved."
	default:
		status = "Done — report saved."
	}
	l.mu.Lock()
	l.st.share = info
	if !failedStart {
		l.st.phase, l.st.status = phaseDone, status
	}
	l.mu.Unlock()
	return retry
}

// retried takes a step of a kept upload's retries (retryUpload): the
// share box's words, and the share link once delivered.
func (l *lifecycle) retried(p uploadProgress) {
	l.mu.Lock()
	if p.Delivered {
		p.Info.Progress = p.Words
		l.st.share = p.Info
	} else {
		l.st.share.Progress = p.Words
		l.st.share.SignIn = l.st.share.SignIn || p.SignIn
	}
	l.mu.Unlock()
}
