package app

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/duplexscope/duplexscope/session"
)

// loadWorker is the /load page's handle on the session worker in its load
// mode (cmd/worker/load_js.go): one worker runs every session of the run,
// each paced on the worker's clock, so no page work (drawing, a stall)
// delays their sends or receive stamps. Its state is guarded by r.mu.
type loadWorker struct {
	w        app.Value
	fns      []app.Func
	r        *loadRun
	loaded   chan error // nil once the worker's Go code runs
	isLoaded bool
	dead     error                // the worker failed: no session runs any more
	sess     map[string]*loadSess // by sid, until closed
}

// startWorker starts the session worker the run's sessions go to
// (session_thread=worker) and waits until its Go code runs; one that
// cannot start leaves them on the main thread, and the report says so.
func (r *loadRun) startWorker() error {
	if r.s.SessionThread == SessionThreadMain {
		return nil
	}
	lw := &loadWorker{r: r, loaded: make(chan error, 1), sess: map[string]*loadSess{}}
	var err error
	if lw.w, lw.fns, err = newSessionWorker(lw.onMessage, lw.fail); err == nil {
		select {
		case err = <-lw.loaded:
		case <-time.After(workerLoadTimeout):
			err = fmt.Errorf("%w: it did not load within %v", errWorkerUnavailable, workerLoadTimeout)
		case <-r.ctx.Done():
			err = r.ctx.Err()
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if err != nil {
		lw.release()
		if !errors.Is(err, errWorkerUnavailable) {
			return err
		}
		r.workerFallback = err.Error()
		return nil
	}
	r.lw = lw
	go func() { // a cancelled run (a new one started) ends its sessions now
		<-r.ctx.Done()
		r.mu.Lock()
		lw.endAll(r.ctx.Err())
		r.mu.Unlock()
	}()
	return nil
}

// open hands ls to the worker, which dials it, streams its clip and
// closes it; the messages below follow it.
func (lw *loadWorker) open(ls *loadSess, start session.WorkerStart) {
	r := lw.r
	b, err := json.Marshal(start)
	r.mu.Lock()
	if err == nil {
		err = lw.dead
	}
	r.nextSid++
	sid := strconv.Itoa(r.nextSid)
	if err == nil {
		lw.sess[sid] = ls
	}
	r.mu.Unlock()
	if err != nil {
		r.finished(ls, nil, err)
		return
	}
	u8 := bytesToJS(ls.pcm)
	lw.w.Call("postMessage", map[string]any{"type": "load-open", "sid": sid, "config": string(b), "pcm": u8}, []any{u8.Get("buffer")})
}

// stop ends every session's input now (each commits and finishes).
func (lw *loadWorker) stop() {
	if lw != nil {
		lw.w.Call("postMessage", map[string]any{"type": "load-stop"})
	}
}

// fail ends every open session with err (a worker that never loaded is
// unavailable: the run falls back to the main thread).
func (lw *loadWorker) fail(err error) {
	r := lw.r
	r.mu.Lock()
	defer r.mu.Unlock()
	if !lw.isLoaded {
		select {
		case lw.loaded <- fmt.Errorf("%w: %v", errWorkerUnavailable, err):
		default:
		}
		return
	}
	lw.endAll(fmt.Errorf("the session worker failed: %w", err))
}

// endAll ends every open session with err, and every later one; r.mu is
// held.
func (lw *loadWorker) endAll(err error) {
	if lw.dead == nil {
		lw.dead = err
	}
	for sid, ls := range lw.sess {
		delete(lw.sess, sid)
		go lw.r.finished(ls, nil, lw.dead)
	}
}

// onMessage follows the worker (its onmessage callback: never block).
func (lw *loadWorker) onMessage(d app.Value) {
	r := lw.r
	kind := d.Get("type").String()
	if kind == "fatal" {
		lw.fail(errors.New(d.Get("text").String()))
		return
	}
	var c workerClosed
	if kind == "load-closed" {
		c = decodeClosed(d) // before the lock: the whole wire log
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if v := d.Get("heap_bytes"); v.Type() == app.TypeNumber {
		r.peakHeap = max(r.peakHeap, uint64(v.Float()))
	}
	sid := d.Get("sid").String()
	ls := lw.sess[sid]
	switch {
	case kind == "loaded" && !lw.isLoaded:
		lw.isLoaded = true
		select { // a failure may have come first
		case lw.loaded <- nil:
		default:
		}
	case ls == nil:
	case kind == "load-ready":
		ls.state = lsStreaming
	case kind == "load-streamed":
		ls.state = lsFinishing
	case kind == "load-live":
		ls.live = nil // a new slice: the last view may still hold the old one
		_ = json.Unmarshal([]byte(d.Get("responses").String()), &ls.live)
	case kind == "load-closed":
		delete(lw.sess, sid)
		var res *session.Result
		if c.Trace != nil {
			res = c.Result.Result(c.Trace, c.Err)
		}
		go r.finished(ls, res, c.Err)
	}
}

// release ends the worker and frees the callbacks (nil: nothing to do).
func (lw *loadWorker) release() {
	if lw == nil || lw.w == nil {
		return
	}
	lw.w.Call("terminate")
	for _, f := range lw.fns {
		f.Release()
	}
	lw.fns = nil
}
