//go:build !js

package server

import (
	"io"
	"net/http"
	"time"
)

// Body deadlines (slowloris). http.Server.ReadTimeout is not used: it
// would stay on hijacked websocket connections (coder/websocket does not
// clear it), cutting simulator and proxy sessions. Instead every request
// body gets a read deadline that starts at BodyGrace and grows with each
// byte read, at BodyMinRate: a client sending at least that fast (a slow
// link) always finishes, one trickling bytes is cut after about BodyGrace.
const (
	DefaultBodyGrace   = 30 * time.Second
	DefaultBodyMinRate = 4 << 10 // bytes per second (32 kbit/s)
)

// BodyDeadlines wraps h: requests with a body read it under a deadline of
// grace + bytes read / minRate from the request's start (0 values: the
// defaults). Requests without a body (websocket upgrades) are untouched.
func BodyDeadlines(h http.Handler, grace time.Duration, minRate int64) http.Handler {
	if grace <= 0 {
		grace = DefaultBodyGrace
	}
	if minRate <= 0 {
		minRate = DefaultBodyMinRate
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body == nil || r.Body == http.NoBody || r.ContentLength == 0 {
			h.ServeHTTP(w, r)
			return
		}
		rc := http.NewResponseController(w)
		start := time.Now()
		if rc.SetReadDeadline(start.Add(grace)) != nil {
			h.ServeHTTP(w, r) // not a connection with deadlines (tests' recorders)
			return
		}
		r.Body = &deadlineBody{ReadCloser: r.Body, rc: rc, start: start, grace: grace, rate: minRate}
		h.ServeHTTP(w, r)
	})
}

type deadlineBody struct {
	io.ReadCloser
	rc    *http.ResponseController
	start time.Time
	grace time.Duration
	rate  int64
	read  int64
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 {
		b.read += int64(n)
		earned := time.Duration(b.read) * time.Second / time.Duration(b.rate)
		_ = b.rc.SetReadDeadline(b.start.Add(b.grace + earned))
	}
	return n, err
}
