package app

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/duplexscope/duplexscope/audio"
	"github.com/duplexscope/duplexscope/metrics"
	"github.com/duplexscope/duplexscope/metrics/loadcurve"
	"github.com/duplexscope/duplexscope/report"
	"github.com/duplexscope/duplexscope/server/loadrun"
	"github.com/duplexscope/duplexscope/session"
	"github.com/duplexscope/duplexscope/trace"
)

// Session states on the load page.
const (
	lsDialing   = "dialing"
	lsStreaming = "streaming"
	lsFinishing = "finishing"
	lsDone      = "done"
	lsFailed    = "failed"
)

// loadSess is one session of a load level.
type loadSess struct {
	level, index int
	joiner       bool
	pcm          []byte
	pos          int
	state        string
	sess         *session.Session
	acc          metrics.Accumulator
	live         []loadcurve.Response // finished responses so far (live view)
	final        *loadcurve.Session
}

// loadRun drives a load curve from the page: for each level, this page's
// share of N sessions plus the joiner, their input paced by one frame
// clock (AudioWorklet), their playback simulated by the session package
// (nothing is heard); then the report. With a run id the server's load run
// starts each level on every runner at once and pools what they report.
type loadRun struct {
	mu       sync.Mutex
	s        LoadSettings
	ctx      context.Context
	cancel   context.CancelFunc
	publish  func(*loadSnapshot)
	hub      *loadrun.Client
	clips    [][]byte
	clock    *frameClock
	ticks    chan int
	stopping bool
	stopOnce sync.Once
	// readyCancel ends a wait at the level barrier (Stop).
	readyCancel context.CancelFunc

	phase, status string
	err           error
	level         int // current level (0 before the first)
	levelTick     int // tick the current level's sessions started at
	tick          int
	ticksDropped  int
	joinPending   *loadSess
	cur           []*loadSess
	curWG         sync.WaitGroup
	done          []loadcurve.Session
	results       []metrics.SessionResult
	levels        []loadcurve.Level
	pooled        *loadrun.Status
	peakHeap      uint64
	share         shareInfo
	lastPublish   time.Time
	started       time.Time

	// lw runs the sessions (session_thread=worker), nil on the main
	// thread; workerFallback: why the worker could not start.
	lw             *loadWorker
	workerFallback string
	nextSid        int
}

func newLoadRun(s LoadSettings, publish func(*loadSnapshot)) *loadRun {
	ctx, cancel := context.WithCancel(context.Background())
	r := &loadRun{s: s, ctx: ctx, cancel: cancel, publish: publish, ticks: make(chan int, 64), phase: phaseIdle}
	if s.RunID != "" {
		r.hub = &loadrun.Client{Base: pageOrigin(), RunID: s.RunID, Shard: max(1, s.Shard), Shards: max(1, s.Shards),
			Levels: s.Levels, RunCap: s.RunCap, Wait: 10 * time.Minute}
	}
	return r
}

// run is the controller goroutine.
func (r *loadRun) run() {
	defer r.cancel()
	if r.s.Watch {
		r.watch()
		return
	}
	r.started = time.Now()
	name := r.s.DatasetName()
	r.setPhase(phaseConnecting, "Loading dataset "+name+"…")
	clips, err := loadClips(r.ctx, name)
	if err != nil {
		r.fail(fmt.Errorf("dataset %s: %w", name, err))
		return
	}
	r.clips = clips
	if r.hub != nil {
		// Create the run (or join it with cap=) before any barrier: the
		// creator's page then shows the other runners' links.
		if _, err := r.hub.Create(r.ctx); err != nil {
			r.fail(err)
			return
		}
		r.mu.Lock()
		r.s.RunCap = r.hub.RunCap
		r.mu.Unlock()
	}
	if err := r.startWorker(); err != nil {
		r.fail(err)
		return
	}
	defer r.lw.release()
	clock, err := newFrameClock(r.s.FrameMs, r.onTick)
	if err != nil {
		r.fail(err)
		return
	}
	r.clock = clock
	defer clock.close()
	go r.pump()
	if r.hub != nil {
		go r.pollPooled()
	}
	for _, n := range r.s.Levels {
		if r.isStopping() || r.ctx.Err() != nil {
			break
		}
		if err := r.runLevel(n); err != nil {
			r.mu.Lock()
			r.err = err
			r.mu.Unlock()
			break
		}
	}
	r.save()
}

// runLevel runs this page's sessions of level n and records the level.
func (r *loadRun) runLevel(n int) error {
	if r.hub != nil {
		r.setPhase(phaseConnecting, fmt.Sprintf("Level %d: waiting until all %d runners of run %s are ready…", n, max(1, r.s.Shards), r.s.RunID))
		rctx, cancel := context.WithCancel(r.ctx)
		r.mu.Lock()
		r.readyCancel = cancel
		r.mu.Unlock()
		_, err := r.hub.Ready(rctx, n)
		cancel()
		if r.isStopping() {
			return nil // Stop while waiting: save what ran
		}
		if err != nil {
			return err
		}
	}
	slots, joins := loadcurve.Slots(n, r.s.Shard, r.s.Shards)
	started := time.Now()
	r.mu.Lock()
	r.level, r.levelTick, r.cur, r.joinPending = n, r.tick, nil, nil
	for _, k := range slots {
		r.cur = append(r.cur, &loadSess{level: n, index: k, pcm: r.clips[k%len(r.clips)], state: lsDialing})
	}
	if joins {
		r.joinPending = &loadSess{level: n, index: n, joiner: true, pcm: r.clips[n%len(r.clips)], state: lsDialing}
	}
	r.curWG.Add(len(r.cur))
	if joins {
		r.curWG.Add(1)
	}
	dial := append([]*loadSess(nil), r.cur...)
	r.mu.Unlock()
	r.setPhase(phaseStreaming, fmt.Sprintf("Level %d: %d sessions streaming, one more joins after %.1f s.", n, n, r.s.JoinS))
	for _, ls := range dial {
		go r.dial(ls)
	}
	if joins && r.s.JoinS == 0 {
		r.startJoiner()
	}
	r.curWG.Wait()
	r.mu.Lock()
	var mine []loadcurve.Session
	for _, ls := range r.allCurLocked() {
		mine = append(mine, *ls.final)
	}
	lv := loadcurve.Summarize(n, mine)
	lv.WallSeconds = time.Since(started).Seconds()
	lv.PeakHeapMiB = float64(r.peakHeap) / (1 << 20)
	r.levels = append(r.levels, lv)
	r.done = append(r.done, mine...)
	r.peakHeap = 0
	r.mu.Unlock()
	if r.hub != nil {
		st, err := r.hub.Report(r.ctx, mine)
		if err != nil {
			r.mu.Lock()
			r.status = "Reporting to the load run failed (the saved report still has this level): " + err.Error()
			r.mu.Unlock()
		} else {
			r.setPooled(&st)
		}
	}
	r.maybePublish(true)
	return nil
}

// allCurLocked is the current level's sessions, joiner last.
func (r *loadRun) allCurLocked() []*loadSess {
	out := append([]*loadSess(nil), r.cur...)
	for _, ls := range out {
		if ls.joiner {
			return out
		}
	}
	if r.joinPending != nil {
		out = append(out, r.joinPending)
	}
	return out
}

// startJoiner dials the joining session (tick-driven: no Go timer).
func (r *loadRun) startJoiner() {
	r.mu.Lock()
	ls := r.joinPending
	if ls == nil || ls.sess != nil || ls.state != lsDialing {
		r.mu.Unlock()
		return
	}
	r.cur = append(r.cur, ls)
	r.joinPending = nil
	r.mu.Unlock()
	go r.dial(ls)
}

// dial opens ls where the run's sessions run. On the main thread it starts
// streaming at the next tick.
func (r *loadRun) dial(ls *loadSess) {
	url, err := r.s.DialURL(app.Window().URL().Host, app.Window().URL().Scheme == "https")
	if err != nil {
		r.finished(ls, nil, err)
		return
	}
	start := session.WorkerStart{URL: url, Model: r.s.Model, FrameMs: r.s.FrameMs, Transport: r.s.Transport,
		SampleID: fmt.Sprintf("load%d-%d", ls.level, ls.index), Split: "load", PageOrigin: pageTimeOrigin(),
		StallMs: r.s.StallMs, StallEveryMs: r.s.StallEveryMs}
	if r.lw != nil {
		r.lw.open(ls, start)
		return
	}
	cfg := start.LoadConfig()
	cfg.Thread = SessionThreadMain
	cfg.TimeOrigins = &session.TimeOrigins{Page: start.PageOrigin}
	cfg.Observers = []session.Observer{session.ObserverFuncs{Event: func(ev trace.Event, _ *session.Received) { r.observe(ls, ev) }}}
	s, err := session.Dial(r.ctx, cfg)
	if err != nil {
		r.finished(ls, nil, err)
		return
	}
	r.mu.Lock()
	ls.sess, ls.state = s, lsStreaming
	stop := r.stopping
	r.mu.Unlock()
	if stop {
		r.endSession(ls)
	}
}

// observe keeps the live responses of a session (observer goroutine): at
// each response.done, every row so far. The accumulator takes stream start
// from the session's own entry (metrics.LocalStreamStart).
func (r *loadRun) observe(ls *loadSess, ev trace.Event) {
	r.mu.Lock()
	if _, done := ls.acc.Add(ev); done {
		ls.live = loadcurve.Responses(ls.acc.Snapshot().Rows)
	}
	r.mu.Unlock()
}

// onTick runs in the worklet callback: hand the tick to the pump.
func (r *loadRun) onTick(seq int) {
	select {
	case r.ticks <- seq:
	default:
		r.mu.Lock()
		if r.lw == nil { // in the worker the ticks pace no frame
			r.ticksDropped++
		}
		r.mu.Unlock()
	}
}

// pump sends every streaming session its next frame on each tick.
func (r *loadRun) pump() {
	frame := audio.FrameBytes(audio.InputRate, r.s.FrameMs)
	for {
		select {
		case <-r.ctx.Done():
			return
		case <-r.ticks:
		}
		r.mu.Lock()
		r.tick++
		if r.tick%5 == 0 {
			r.sampleHeapLocked()
		}
		join := r.joinPending != nil && float64(r.tick-r.levelTick)*float64(r.s.FrameMs) >= r.s.JoinS*1000
		type send struct {
			ls  *loadSess
			pcm []byte
		}
		var sends []send
		var ended []*loadSess
		for _, ls := range r.cur {
			if ls.state != lsStreaming || ls.sess == nil { // nil: the worker paces it
				continue
			}
			if ls.pos >= len(ls.pcm) || r.stopping {
				ls.state = lsFinishing
				ended = append(ended, ls)
				continue
			}
			end := min(ls.pos+frame, len(ls.pcm))
			sends = append(sends, send{ls, ls.pcm[ls.pos:end]})
			ls.pos = end
		}
		r.mu.Unlock()
		if join {
			r.startJoiner()
		}
		for _, s := range sends {
			if err := s.ls.sess.SendFrame(r.ctx, s.pcm); err != nil {
				r.mu.Lock()
				s.ls.state = lsFinishing
				r.mu.Unlock()
				go r.endSession(s.ls)
			}
		}
		for _, ls := range ended {
			go r.endSession(ls)
		}
		r.maybePublish(false)
	}
}

// sampleHeapLocked keeps the largest in-use heap. MemStats.HeapAlloc is the
// same figure as runtime/metrics' /memory/classes/heap/objects:bytes, whose
// package would cost app.wasm its table of metric descriptions.
func (r *loadRun) sampleHeapLocked() {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	r.peakHeap = max(r.peakHeap, m.HeapAlloc)
}

// endSession commits ls's input, waits for the model and closes it.
func (r *loadRun) endSession(ls *loadSess) {
	s := ls.sess
	var err error
	if err = s.Commit(r.ctx); err == nil {
		err = s.Wait(r.ctx)
	}
	if err != nil {
		s.Fail(err)
	}
	res, cerr := s.Close(r.ctx)
	if err == nil {
		err = cerr
	}
	r.finished(ls, res, err)
}

// finished records ls's outcome (res may be nil when it never opened).
func (r *loadRun) finished(ls *loadSess, res *session.Result, err error) {
	out := loadcurve.Session{Responses: []loadcurve.Response{}}
	var sr *metrics.SessionResult
	if res != nil && res.Trace != nil {
		lags := make([]float64, len(res.PacingLag))
		for i, d := range res.PacingLag {
			lags[i] = float64(d) / float64(time.Millisecond)
		}
		out = loadcurve.FromTrace(*res.Trace, lags)
		x := metrics.ScoreSession(*res.Trace)
		sr = &x
	}
	out.Level, out.Index, out.Joiner, out.Runner = ls.level, ls.index, ls.joiner, r.s.runner()
	if err != nil {
		out.Error = errorWords(err)
	}
	r.mu.Lock()
	ls.final = &out
	ls.state = lsDone
	if err != nil {
		ls.state = lsFailed
	}
	if sr != nil {
		r.results = append(r.results, *sr)
	}
	r.mu.Unlock()
	r.curWG.Done()
	r.maybePublish(true)
}

// stop ends the run early: streaming sessions commit now, no new level
// starts, and what ran is saved.
func (r *loadRun) stop() {
	r.stopOnce.Do(func() {
		r.mu.Lock()
		r.stopping = true
		if r.readyCancel != nil {
			r.readyCancel()
		}
		r.lw.stop() // the worker's sessions commit now (nil: none)
		// A joiner not yet started never will: count it as not run.
		if ls := r.joinPending; ls != nil {
			r.joinPending = nil
			ls.final = &loadcurve.Session{Level: ls.level, Index: ls.index, Joiner: true, Runner: r.s.runner(),
				Error: "stopped before it joined", Responses: []loadcurve.Response{}}
			ls.state = lsFailed
			r.cur = append(r.cur, ls)
			r.mu.Unlock()
			r.curWG.Done()
			return
		}
		r.mu.Unlock()
	})
}

func (r *loadRun) isStopping() bool {
	r.mu.Lock()
	stopping := r.stopping
	r.mu.Unlock()
	return stopping
}

// save archives the curve (with every session's numbers) and shows the link.
func (r *loadRun) save() {
	r.mu.Lock()
	lc := &report.LoadCurve{Clock: loadcurve.Clock, Requested: r.s.Levels, Levels: append([]loadcurve.Level(nil), r.levels...),
		Sessions: append([]loadcurve.Session(nil), r.done...)}
	results := append([]metrics.SessionResult(nil), r.results...)
	runErr := r.err
	r.mu.Unlock()
	if len(lc.Sessions) == 0 {
		if runErr == nil {
			runErr = errors.New("no session ran")
		}
		r.fail(runErr)
		return
	}
	r.setPhase(phaseSaving, "Saving the load curve…")
	run := report.Run{
		TargetURL: r.s.reportTarget(), Model: r.s.Model, Profile: r.s.Profile, FrameMs: r.s.FrameMs, Version: app.Getenv("GOAPP_VERSION"),
		Client: report.ClientBrowser, RunID: r.s.RunID,
		Machine:   report.Machine{UserAgent: app.Window().Get("navigator").Get("userAgent").String(), OS: "browser", Arch: "wasm"},
		Source:    report.Source{Kind: report.SourceDataset, Dataset: r.s.DatasetName()},
		StartedAt: r.started.UTC().Format(time.RFC3339), EndedAt: time.Now().UTC().Format(time.RFC3339),
	}
	if r.s.Shards > 0 {
		run.Shard = &report.Shard{Index: r.s.Shard, Count: r.s.Shards}
	}
	rep, err := report.NewLoadCurve(run, results, lc)
	if err != nil {
		r.fail(err)
		return
	}
	if r.workerFallback != "" {
		rep.Warnings = append(rep.Warnings, report.Warning{Code: report.WarnWorkerUnavailable,
			Message: "The load sessions ran on the page's main thread (" + r.workerFallback + "); drawing the page could delay their sends and receive stamps there."})
	}
	info, err := saveReport(r.ctx, rep, nil)
	r.mu.Lock()
	r.share = info
	r.mu.Unlock()
	switch {
	case err != nil:
		r.setPhase(phaseDone, "Saving failed ("+uploadWords(err)+"); the load curve is kept in this browser and will be retried on your next visit.")
	case runErr != nil:
		r.setPhase(phaseDone, "Stopped early: "+errorWords(runErr)+" — the levels that ran are saved.")
	default:
		r.setPhase(phaseDone, fmt.Sprintf("Done — %d levels saved.", len(lc.Levels)))
	}
}

// pollPooled follows the server's pooled view of the run (every runner).
func (r *loadRun) pollPooled() {
	for r.ctx.Err() == nil {
		if st, err := r.hub.Status(r.ctx); err == nil {
			r.setPooled(&st)
		}
		select {
		case <-r.ctx.Done():
		case <-time.After(time.Second):
		}
	}
}

// watch only shows the pooled curve of run_id.
func (r *loadRun) watch() {
	r.setPhase(phaseStreaming, "Watching load run "+r.s.RunID+" (reported by its runners)…")
	for r.ctx.Err() == nil {
		st, err := r.hub.Status(r.ctx)
		if err != nil {
			r.mu.Lock()
			r.status = "Waiting for load run " + r.s.RunID + ": " + err.Error()
			r.mu.Unlock()
		} else {
			r.setPooled(&st)
		}
		r.maybePublish(true)
		select {
		case <-r.ctx.Done():
		case <-time.After(time.Second):
		}
	}
}

func (r *loadRun) setPooled(st *loadrun.Status) {
	r.mu.Lock()
	r.pooled = st
	r.mu.Unlock()
	r.maybePublish(true)
}

func (r *loadRun) setPhase(phase, status string) {
	r.mu.Lock()
	r.phase, r.status = phase, status
	r.mu.Unlock()
	r.maybePublish(true)
}

func (r *loadRun) fail(err error) {
	r.mu.Lock()
	r.err = err
	r.mu.Unlock()
	r.setPhase(phaseFailed, errorWords(err))
}

// loadPublishEvery spaces routine updates (each costs main-thread time,
// which delays the receive stamps of every session).
const loadPublishEvery = 500 * time.Millisecond

func (r *loadRun) maybePublish(force bool) {
	r.mu.Lock()
	if !force && time.Since(r.lastPublish) < loadPublishEvery {
		r.mu.Unlock()
		return
	}
	r.lastPublish = time.Now()
	snap := r.snapshotLocked()
	r.mu.Unlock()
	if r.publish != nil {
		r.publish(snap)
	}
}

// snapshotLocked builds the view's input; r.mu is held.
func (r *loadRun) snapshotLocked() *loadSnapshot {
	in := loadViewInput{Phase: r.phase, Status: r.status, Own: append([]loadcurve.Level(nil), r.levels...),
		Share: r.share, RunID: r.s.RunID, Shards: r.s.Shards, Watch: r.s.Watch, TicksDropped: r.ticksDropped, RunLinks: r.s.runnerLinks(),
		WorkerFallback: r.workerFallback}
	if r.err != nil {
		in.Error = errorWords(r.err)
	}
	if r.level > 0 && len(r.levels) < len(r.s.Levels) && (len(r.levels) == 0 || r.levels[len(r.levels)-1].Sessions != r.level) {
		// The running level, from what its sessions have said so far.
		var ss []loadcurve.Session
		finals := 0
		for _, ls := range r.allCurLocked() {
			in.Sessions = append(in.Sessions, sessDot{Level: ls.level, Index: ls.index, Joiner: ls.joiner, State: ls.state, Responses: len(ls.live)})
			if ls.final != nil {
				ss = append(ss, *ls.final)
				finals++
				continue
			}
			ss = append(ss, loadcurve.Session{Level: ls.level, Index: ls.index, Joiner: ls.joiner, Responses: ls.live})
		}
		lv := loadcurve.Summarize(r.level, ss)
		lv.Reported = finals
		in.Running = &lv
	}
	if r.pooled != nil {
		in.Pooled = r.pooled
	}
	return buildLoadView(in)
}
