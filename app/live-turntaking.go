package app

import (
	"sync"

	"github.com/duplexscope/duplexscope/metrics/turntaking"
	"github.com/duplexscope/duplexscope/report"
	"github.com/duplexscope/duplexscope/session"
	"github.com/duplexscope/duplexscope/session/tracker"
	"github.com/duplexscope/duplexscope/trace"
)

// liveTurns is a live run's turn-taking: the recorder follows what was sent
// and received (decoded once, by the session or the session worker), a
// background pass scores it at most every ttEveryMs, and the end-of-run
// score, from the whole wire log, replaces the live one for good.
type liveTurns struct {
	// recMu guards rec and is held through a scoring pass; the send path
	// adds to rec, so it is not the run's lock.
	recMu sync.Mutex
	rec   turntaking.Recorder

	mu         sync.Mutex
	labels     *streamLabels      // a labelled dataset's cases on the stream clock (nil: derived cases)
	scores     *report.TurnTaking // the last pass's scores
	userSpeech []turntaking.Interval
	atMs       float64 // when the last pass started (page clock)
	busy       bool    // a pass is running
	final      bool    // the end-of-run score is in: passes still running are dropped
}

// addInput records a decoded input (sent audio, received media).
func (t *liveTurns) addInput(in turntaking.Input) {
	t.recMu.Lock()
	t.rec.AddInput(in)
	t.recMu.Unlock()
}

// addEvent records a wire-log entry, with the session's decode when it has one.
func (t *liveTurns) addEvent(ev trace.Event, rx *session.Received) {
	if rx != nil {
		t.addInput(tracker.TurnInput(ev.TMs, rx))
		return
	}
	t.recMu.Lock()
	t.rec.Add(ev)
	t.recMu.Unlock()
}

func (t *liveTurns) setLabels(l *streamLabels) {
	t.mu.Lock()
	t.labels = l
	t.mu.Unlock()
}

// current is what the views and the report show: labels, scores and the
// user's speech (VAD of the sent audio, trace clock).
func (t *liveTurns) current() (*streamLabels, *report.TurnTaking, []turntaking.Interval) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.labels, t.scores, t.userSpeech
}

// due returns the pass to run (off the caller's goroutine: it runs VAD over
// the whole session) when one is due at now, else nil. probeOnsets gives
// the interruption probes' send instants when the pass runs.
func (t *liveTurns) due(now float64) func(probeOnsets func() []float64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.busy || t.final || now-t.atMs < ttEveryMs {
		return nil
	}
	t.busy, t.atMs = true, now
	labels := t.labels
	return func(probeOnsets func() []float64) {
		onsets := probeOnsets()
		t.recMu.Lock()
		scores := pageTurnTaking(&t.rec, labels, onsets, "", true)
		user := t.rec.UserSpeech(nil)
		t.recMu.Unlock()
		t.mu.Lock()
		if !t.final {
			t.scores, t.userSpeech = scores, user
		}
		t.busy = false
		t.mu.Unlock()
	}
}

// finish scores the whole wire log (every event is in by now) and keeps
// that score for good.
func (t *liveTurns) finish(wireLog *trace.Session, probeOnsets []float64) {
	t.mu.Lock()
	labels := t.labels
	t.mu.Unlock()
	scores := traceTurnTaking(wireLog, labels, probeOnsets, "")
	t.recMu.Lock()
	user := t.rec.UserSpeech(nil)
	t.recMu.Unlock()
	t.mu.Lock()
	t.scores, t.userSpeech, t.final = scores, user, true
	t.mu.Unlock()
}
