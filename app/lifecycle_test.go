package app

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duplexscope/duplexscope/session/tracker"
)

// saveFunc records a save's outcome (lifecycle.saved).
type saveFunc = func(info shareInfo, err error, kept *keptUpload, sessErr error, failedStart bool)

// TestLifecycleTransitions: a run's phase, words, error and end of input
// through the orders its events can come in — including stop before the
// run started, a second stop, a second finish, and a failed upload, after
// which the run is kept and retried, never lost.
func TestLifecycleTransitions(t *testing.T) {
	t.Parallel()
	errDial := errors.New("dial: connection refused")
	errLater := errors.New("read: connection reset")
	errNet := errors.New("dial tcp: no route to host")
	kept := &keptUpload{Key: "k1"}
	type want struct {
		phase    string
		status   string // substring
		err      error
		active   bool
		stopped  bool
		retry    []bool
		progress string // substring of the share box's words
		pending  bool
	}
	tests := []struct {
		name  string
		steps func(r *liveRun, save saveFunc)
		want  want
	}{
		{"new run", func(*liveRun, saveFunc) {},
			want{phase: phaseIdle, active: true}},
		{"stop before start, twice", func(r *liveRun, _ saveFunc) {
			r.stop()
			r.stop() // no second close
		}, want{phase: phaseIdle, active: true, stopped: true}},
		{"stop while streaming, then finish", func(r *liveRun, save saveFunc) {
			r.life.set(phaseStreaming, "Streaming")
			r.stop()
			r.life.set(phaseFinishing, "Input ended")
			save(shareInfo{ID: "abc"}, nil, nil, nil, false)
		}, want{phase: phaseDone, status: "Done — report saved.", stopped: true, retry: []bool{false}}},
		{"finish twice", func(r *liveRun, save saveFunc) {
			save(shareInfo{ID: "abc"}, nil, nil, nil, false)
			save(shareInfo{ID: "abc"}, nil, nil, nil, false)
		}, want{phase: phaseDone, status: "Done — report saved.", retry: []bool{false, false}}},
		{"dial fails: the first error stays the cause", func(r *liveRun, _ saveFunc) {
			r.life.set(phaseConnecting, "Connecting")
			r.fail(errDial)
			r.life.setErr(errLater, true)
		}, want{phase: phaseFailed, status: "connection refused", err: errDial}},
		{"the send path's error is the latest", func(r *liveRun, _ saveFunc) {
			r.life.setErr(errDial, false)
			r.life.setErr(errLater, false)
		}, want{phase: phaseIdle, err: errLater, active: true}},
		{"session error: partial report saved", func(r *liveRun, save saveFunc) {
			r.life.setErr(errLater, true)
			save(shareInfo{ID: "abc"}, nil, nil, errLater, false)
		}, want{phase: phaseDone, status: "partial report saved", err: errLater, retry: []bool{false}}},
		{"save after an upload failure keeps the run and retries now", func(r *liveRun, save saveFunc) {
			save(shareInfo{Pending: true}, errNet, kept, nil, false)
		}, want{phase: phaseDone, status: "The run is kept in this browser; retrying now.", retry: []bool{true},
			progress: "Upload attempt 1 of 8 failed: the archive could not be reached", pending: true}},
		{"save needing a sign-in keeps the run for later", func(r *liveRun, save saveFunc) {
			save(shareInfo{Pending: true, SignIn: true}, fmt.Errorf("upload: %w", errSignIn), kept, nil, false)
		}, want{phase: phaseDone, status: "kept in this browser and will be retried", retry: []bool{false}, pending: true}},
		{"failed start, saved: its error stays the words", func(r *liveRun, save saveFunc) {
			r.fail(errDial)
			save(shareInfo{ID: "abc"}, nil, nil, nil, true)
		}, want{phase: phaseFailed, status: "connection refused", err: errDial, retry: []bool{false}}},
		{"failed start, upload failed: kept and retried now, its error stays the words", func(r *liveRun, save saveFunc) {
			r.fail(errDial)
			save(shareInfo{Pending: true}, errNet, kept, nil, true)
		}, want{phase: phaseFailed, status: "connection refused", err: errDial, retry: []bool{true}, pending: true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := &liveRun{life: newLifecycle(), playback: newPlayback(), tracker: tracker.New(), wire: tracker.NewView(), input: inputGate{ready: true}}
			l := r.life
			var retry []bool
			save := func(info shareInfo, err error, k *keptUpload, sessErr error, failedStart bool) {
				retry = append(retry, l.saved(info, err, k, sessErr, failedStart))
			}
			tc.steps(r, save)
			st := l.state()
			w := tc.want
			if st.phase != w.phase || !strings.Contains(st.status, w.status) || st.err != w.err || st.active() != w.active {
				t.Errorf("phase %q status %q err %v active %v; want %q, status with %q, %v, %v", st.phase, st.status, st.err, st.active(), w.phase, w.status, w.err, w.active)
			}
			select {
			case <-l.stopped:
				if !w.stopped || r.input.ready {
					t.Errorf("input ended (frames still taken: %v), want it going", r.input.ready)
				}
			default:
				if w.stopped || !r.input.ready {
					t.Errorf("input going (frames taken: %v), want it ended", r.input.ready)
				}
			}
			if diff := cmp.Diff(w.retry, retry); diff != "" {
				t.Errorf("retry now (-want +got)\n%s", diff)
			}
			sh := l.state().share
			if !strings.Contains(sh.Progress, w.progress) || sh.Pending != w.pending {
				t.Errorf("share progress %q pending %v; want words with %q, pending %v", sh.Progress, sh.Pending, w.progress, w.pending)
			}
		})
	}
}

// TestLifecycleRetried: the share box follows a kept upload's retries:
// words per attempt, a sign-in request that stays, then the share link.
func TestLifecycleRetried(t *testing.T) {
	t.Parallel()
	l := newLifecycle()
	l.saved(shareInfo{Pending: true, JSONURL: "blob:1"}, errors.New("network"), &keptUpload{}, nil, false)
	l.retried(uploadProgress{Attempt: 2, SignIn: true, Words: "Upload attempt 2 of 8 failed."})
	l.retried(uploadProgress{Attempt: 3, Words: "Upload attempt 3 of 8 failed."})
	sh := l.state().share
	if sh.Progress != "Upload attempt 3 of 8 failed." || !sh.SignIn || !sh.Pending || sh.JSONURL != "blob:1" {
		t.Errorf("after two failed retries: %+v; want attempt 3's words, sign-in kept, still pending with its downloads", sh)
	}
	l.retried(uploadProgress{Attempt: 4, Delivered: true, Info: shareInfo{ID: "abc", URL: "/r/abc"}, Words: "Report saved on attempt 4 of 8."})
	want := shareInfo{ID: "abc", URL: "/r/abc", Progress: "Report saved on attempt 4 of 8."}
	if diff := cmp.Diff(want, l.state().share); diff != "" {
		t.Errorf("delivered (-want +got)\n%s", diff)
	}
	if st := l.state(); st.phase != phaseDone || !strings.Contains(st.status, "retrying now") {
		t.Errorf("phase %q status %q: retries change only the share box (the page sets the words)", st.phase, st.status)
	}
}

// TestLifecycleFailedStartToSave: a run whose session never started is
// archived only when it failed — not when stopped, not once its context
// ended (the page moved on).
func TestLifecycleFailedStartToSave(t *testing.T) {
	t.Parallel()
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name string
		err  error
		ctx  context.Context
		want bool
	}{
		{"no error", nil, context.Background(), false},
		{"stopped", fmt.Errorf("dial: %w", context.Canceled), context.Background(), false},
		{"failed", errors.New("handshake: 404"), context.Background(), true},
		{"failed, page moved on", errors.New("handshake: 404"), ended, false},
	}
	for _, tc := range tests {
		l := newLifecycle()
		if tc.err != nil {
			l.setErr(tc.err, false)
		}
		if got := l.state().failedStartToSave(tc.ctx); got != tc.want {
			t.Errorf("%s: save %v, want %v", tc.name, got, tc.want)
		}
	}
}
