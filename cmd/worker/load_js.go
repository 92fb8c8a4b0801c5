//go:build js

package main

// Load mode (the /load page, session_thread=worker): one worker hosts every
// session of the page's load run, each named by the page's sid. Each
// streams its clip on the worker's clock, its playback simulated by the
// session package (nothing is heard), then commits, waits and closes.
//
// page → worker
//
//	{type:"load-open", sid, config: JSON session.WorkerStart, pcm}  dial, stream pcm (16 kHz PCM16 LE,
//	                                       transferred) in real time, finish
//	{type:"load-stop"}                     every load session: send no more input, commit now
//
// worker → page
//
//	{type:"load-ready", sid, session_id, worker_origin}  the session is open and streams
//	{type:"load-streamed", sid}            its input ended: it commits and waits for the model
//	{type:"load-live", sid, responses, heap_bytes}  at each response.done: its finished responses so far
//	                                       (JSON []loadcurve.Response) and the worker's Go heap
//	{type:"load-closed", sid, result, trace, error, heap_bytes}  as "closed"; trace "" when it never opened

import (
	"encoding/json"
	"fmt"
	"runtime"
	"sync"
	"syscall/js"

	"github.com/duplexscope/duplexscope/audio"
	"github.com/duplexscope/duplexscope/metrics"
	"github.com/duplexscope/duplexscope/metrics/loadcurve"
	"github.com/duplexscope/duplexscope/session"
	"github.com/duplexscope/duplexscope/trace"
)

// loadStop is set by "load-stop": every load session ends its input.
var loadStop struct {
	sync.Mutex
	on bool
}

func loadStopped() bool {
	loadStop.Lock()
	defer loadStop.Unlock()
	return loadStop.on
}

// loadOpen starts one load session (JS callback: never block).
func (w *worker) loadOpen(d js.Value) {
	sid := d.Get("sid").String()
	var cfg session.WorkerStart
	if err := json.Unmarshal([]byte(d.Get("config").String()), &cfg); err != nil {
		w.loadClosed(sid, nil, nil, fmt.Errorf("bad load-open message: %w", err))
		return
	}
	go w.runLoad(sid, cfg, bytesFrom(d.Get("pcm")))
}

// runLoad is one load session, as the page's main thread runs it
// (app/load-run.go) but paced on this worker's clock.
func (w *worker) runLoad(sid string, cfg session.WorkerStart, pcm []byte) {
	origin := w.self.Get("performance").Get("timeOrigin").Float()
	session.SetTimelineOffset(origin - cfg.PageOrigin) // one page: the same offset for every session
	scfg := cfg.LoadConfig()
	scfg.Thread = "worker"
	scfg.TimeOrigins = &session.TimeOrigins{Page: cfg.PageOrigin, Worker: origin}
	scfg.SocketWorker = socketWorkerScript
	// No PaceSpin: a spin holds this one thread, so it would delay every
	// other session's sends and stamps.
	var acc metrics.Accumulator // observer calls are serial per session
	scfg.Observers = []session.Observer{session.ObserverFuncs{Event: func(ev trace.Event, _ *session.Received) {
		if _, done := acc.Add(ev); done {
			b, _ := json.Marshal(loadcurve.Responses(acc.Snapshot().Rows))
			w.post(map[string]any{"type": "load-live", "sid": sid, "responses": string(b), "heap_bytes": heapBytes()})
		}
	}}}
	s, err := session.Dial(w.ctx, scfg)
	if err != nil {
		w.loadClosed(sid, nil, nil, err)
		return
	}
	w.post(map[string]any{"type": "load-ready", "sid": sid, "session_id": s.ID(), "worker_origin": origin})
	frame := audio.FrameBytes(audio.InputRate, cfg.FrameMs)
	if frame <= 0 {
		frame = audio.FrameBytes(audio.InputRate, session.FrameOmniInteract)
	}
	pos := 0
	next := func() (session.FeedFrame, bool) {
		if pos >= len(pcm) || loadStopped() {
			return session.FeedFrame{}, false
		}
		end := min(pos+frame, len(pcm))
		f := session.FeedFrame{Seq: pos / frame, PCM: pcm[pos:end]}
		pos = end
		return f, true
	}
	if err := s.PaceFrames(w.ctx, next, nil); err != nil {
		s.Fail(err)
	}
	w.post(map[string]any{"type": "load-streamed", "sid": sid})
	res, wireLog, err := s.Finish(w.ctx)
	w.loadClosed(sid, res, wireLog, err)
}

// loadClosed sends the page a load session's end (res and wireLog nil
// when it never opened).
func (w *worker) loadClosed(sid string, res *session.Result, wireLog *trace.Session, err error) {
	rb, _ := json.Marshal(session.NewWorkerResult(res))
	tb := []byte{}
	if wireLog != nil {
		tb, _ = marshalYielding(wireLog) // the other sessions stream meanwhile
	}
	e := ""
	if err != nil {
		b, _ := json.Marshal(session.RecordError(err))
		e = string(b)
	}
	w.post(map[string]any{"type": "load-closed", "sid": sid, "result": string(rb), "trace": string(tb), "error": e, "heap_bytes": heapBytes()})
}

// heapBytes is the worker's live Go heap (the load view's peak heap).
func heapBytes() float64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return float64(ms.HeapAlloc)
}
