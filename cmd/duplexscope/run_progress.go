//go:build !js

package main

import (
	"fmt"
	"io"
	"sort"
	"sync"
	"time"

	"github.com/duplexscope/duplexscope/metrics"
	"github.com/duplexscope/duplexscope/session"
	"github.com/duplexscope/duplexscope/trace"
	"github.com/schollz/progressbar/v3"
)

// What a run shows while it runs: the live TTFP of finished responses.

// liveStats collects the TTFP of every finished response for the progress
// bar, with the clock each came from.
type liveStats struct {
	mu     sync.Mutex
	ttfp   []float64
	server int // how many came from the server clock
}

func (l *liveStats) add(v float64, server bool) {
	l.mu.Lock()
	l.ttfp = append(l.ttfp, v)
	if server {
		l.server++
	}
	l.mu.Unlock()
}

func (l *liveStats) describe() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.ttfp) == 0 {
		return "TTFP p50 –"
	}
	s := append([]float64(nil), l.ttfp...)
	sort.Float64s(s)
	origin := "server clock"
	switch {
	case l.server == 0:
		origin = "client receive clock"
	case l.server < len(s):
		origin = "mixed clocks"
	}
	return fmt.Sprintf("TTFP p50 %.1f ms (%s, %d responses)", metrics.Percentile(s, 0.5), origin, len(s))
}

// liveObserver feeds a session's events to a metrics.Accumulator and
// reports each finished response's TTFP to the live stats.
type liveObserver struct {
	acc    metrics.Accumulator
	stats  *liveStats
	onResp func()
	seen   map[string]bool
}

func (o *liveObserver) OnState(session.State, error) {}

func (o *liveObserver) OnEvent(ev trace.Event, _ *session.Received) {
	row, done := o.acc.Add(ev)
	if !done || row.Raw == nil || o.seen[row.ResponseID] {
		return
	}
	o.seen[row.ResponseID] = true
	o.stats.add(row.Raw.TTFPMs, row.Raw.TTFPClock == metrics.ClockServer)
	if o.onResp != nil {
		o.onResp()
	}
}

// sessionProgress is the progress bar on stderr (no bar with
// --progress=false or nothing to run). Its lock also keeps other lines
// written to stderr during the run from tearing the bar.
type sessionProgress struct {
	mu    sync.Mutex
	bar   *progressbar.ProgressBar
	stats *liveStats
	w     io.Writer
}

func newSessionProgress(show bool, sessions int, w io.Writer, stats *liveStats) *sessionProgress {
	p := &sessionProgress{stats: stats, w: w}
	if show && sessions > 0 {
		p.bar = progressbar.NewOptions(sessions,
			progressbar.OptionSetWriter(w),
			progressbar.OptionSetDescription("sessions  "+stats.describe()),
			progressbar.OptionShowCount(),
			progressbar.OptionSetWidth(24),
			progressbar.OptionThrottle(200*time.Millisecond),
			progressbar.OptionClearOnFinish(),
		)
	}
	return p
}

// describe shows the live TTFP on the bar.
func (p *sessionProgress) describe() {
	if p.bar != nil {
		p.mu.Lock()
		p.bar.Describe("sessions  " + p.stats.describe())
		p.mu.Unlock()
	}
}

// step counts one finished session.
func (p *sessionProgress) step() {
	if p.bar != nil {
		p.mu.Lock()
		_ = p.bar.Add(1)
		p.mu.Unlock()
	}
}

// finish clears the bar.
func (p *sessionProgress) finish() {
	if p.bar != nil {
		_ = p.bar.Finish()
	}
}

// printf writes a line to stderr without tearing the bar.
func (p *sessionProgress) printf(format string, args ...any) {
	p.mu.Lock()
	fmt.Fprintf(p.w, format, args...)
	p.mu.Unlock()
}
