package session

import (
	"context"
	"time"

	"github.com/duplexscope/duplexscope/trace"
)

// WorkerStart is the session a page asks for: sent as JSON in its session
// worker's (cmd/worker) "start" message, and dialed the same way (Config)
// when the session runs on the page's main thread.
type WorkerStart struct {
	URL          string  `json:"url"`
	Model        string  `json:"model"`
	FrameMs      int     `json:"frame_ms"`
	Transport    string  `json:"transport"`
	NativeDuplex bool    `json:"native_duplex"`
	SampleID     string  `json:"sample_id"`
	Split        string  `json:"split"`
	PageOrigin   float64 `json:"page_origin"` // the page's performance.timeOrigin
	ClipMode     bool    `json:"clip_mode"`   // input is a clip the page posts; the worker cuts and paces its frames
	StallMs      int     `json:"stall_ms"`    // the page's debug stall, recorded in the wire log
	StallEveryMs int     `json:"stall_every_ms"`
}

// Config is the Config both threads dial with; observers, video, the
// thread and its time origins are the caller's to add.
func (w WorkerStart) Config() *Config {
	c := &Config{
		URL: w.URL, Model: w.Model, FrameMs: w.FrameMs, Transport: w.Transport,
		NativeDuplex: w.NativeDuplex, ExternalPlayback: true,
		StallMs: w.StallMs, StallEveryMs: w.StallEveryMs,
	}
	if w.SampleID != "" {
		c.SampleID, c.Split = w.SampleID, w.Split
	}
	return c
}

// LoadCompletionTimeout bounds a load session's wait for its last
// responses after its input (the /load page, either thread).
const LoadCompletionTimeout = 2 * time.Minute

// LoadConfig is the Config a /load session dials with on either thread:
// its playback simulated by the session (nothing is heard) and a shorter
// completion wait.
func (w WorkerStart) LoadConfig() *Config {
	c := w.Config()
	c.ExternalPlayback = false
	c.CompletionTimeout = LoadCompletionTimeout
	return c
}

// WorkerResult is Result without its Go-only fields, as the worker sends
// it to the page in its "closed" message.
type WorkerResult struct {
	SessionID   string    `json:"session_id"`
	Pacing      LagStats  `json:"pacing"`
	PacingLagMs []float64 `json:"pacing_lag_ms"`
	Incomplete  bool      `json:"incomplete"`
	Warnings    []string  `json:"warnings,omitempty"`
}

// NewWorkerResult flattens r (the zero value for nil).
func NewWorkerResult(r *Result) WorkerResult {
	if r == nil {
		return WorkerResult{}
	}
	out := WorkerResult{SessionID: r.SessionID, Pacing: r.Pacing, Incomplete: r.Incomplete, Warnings: r.Warnings}
	for _, d := range r.PacingLag {
		out.PacingLagMs = append(out.PacingLagMs, durMs(d))
	}
	return out
}

// Result rebuilds a Result around the wire log wireLog.
func (w WorkerResult) Result(wireLog *trace.Session, err error) *Result {
	r := &Result{SessionID: w.SessionID, Trace: wireLog, Pacing: w.Pacing, Incomplete: w.Incomplete, Warnings: w.Warnings, Err: err}
	for _, ms := range w.PacingLagMs {
		r.PacingLag = append(r.PacingLag, durFromMs(ms))
	}
	return r
}

// Finish ends an externally clocked session the way the page does: the
// final commit, the completion wait, the close. It returns the result, the
// wire log (never nil) and the first error on the way.
func (s *Session) Finish(ctx context.Context) (*Result, *trace.Session, error) {
	var sessErr error
	if err := s.Commit(ctx); err != nil {
		sessErr = err
	} else if err := s.Wait(ctx); err != nil {
		sessErr = err
	}
	res, err := s.Close(ctx)
	if sessErr == nil {
		sessErr = err
	}
	wireLog := s.Trace()
	if res != nil && res.Trace != nil {
		wireLog = res.Trace
	}
	return res, wireLog, sessErr
}
