package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/duplexscope/duplexscope/metrics/turntaking"
	"github.com/duplexscope/duplexscope/session"
	"github.com/duplexscope/duplexscope/session/tracker"
	"github.com/duplexscope/duplexscope/trace"
)

// errWorkerUnavailable wraps why the session worker could not start
// (no Worker here, its script or wasm failed to load, it did not load in
// time): the run then falls back to the page's main thread.
var errWorkerUnavailable = errors.New("the session worker could not start")

// workerLoadTimeout bounds the wait for the worker's Go code to run
// (fetching and compiling a 1.3 MB brotli wasm takes well under a second
// on a laptop; a stuck load must not hang the run).
const workerLoadTimeout = 20 * time.Second

// workerClosed is what the worker sends when the session is closed.
type workerClosed struct {
	Result session.WorkerResult
	Trace  *trace.Session
	Err    error
}

// workerHooks are the page's handlers for the worker's messages; they run
// in the Worker's onmessage callback (never block).
type workerHooks struct {
	// Snapshot: the worker's tracker changed (throttled, and at once at
	// each response boundary); lost: the page's view missed one before it
	// (Merged.Lost). Media: what the worker decoded of a received event
	// for the page (played: the audio it gave the player).
	Snapshot func(tracker.Delta) (lost bool)
	Media    func(in turntaking.Input, played []byte)
	State    func(session.State, error)
	Sent     func(f inputFrame, sentMs float64)
	// Clip mode (the worker cuts and paces the clip's frames itself):
	ClipStart  func(seq int)
	ClipEnd    func()
	ProbeOnset func(id string, seq, sample int)
}

// workerSession is the page's handle on a session running in the session
// worker (cmd/worker): the worker owns the socket, the send schedule, the
// stamps, the player feed and the acks; the page gets the wire log as it
// grows and draws.
type workerSession struct {
	w      app.Value
	fns    []app.Func
	hooks  workerHooks
	opened chan error // nil on ready
	loaded chan struct{}
	closed chan workerClosed

	mu         sync.Mutex
	id, tick   string
	clockTimer float64
	isLoaded   bool
}

// startWorkerSession starts the worker, gives it direct ports to both
// worklets, and waits until the session is open (or failed to open).
func startWorkerSession(ctx context.Context, g *audioGraph, cfg session.WorkerStart, h workerHooks) (*workerSession, error) {
	cfg.PageOrigin = pageTimeOrigin()
	b, err := json.Marshal(cfg)
	if err != nil {
		return nil, err
	}
	ws := &workerSession{hooks: h, opened: make(chan error, 1), loaded: make(chan struct{}), closed: make(chan workerClosed, 1)}
	ws.w, ws.fns, err = newSessionWorker(ws.onMessage, ws.fail)
	if err != nil {
		return nil, err
	}
	mc := app.Window().Get("MessageChannel")
	in, out := mc.New(), mc.New()
	ws.w.Call("postMessage", map[string]any{
		"type": "start", "config": string(b), "input": in.Get("port2"), "playback": out.Get("port2"),
	}, []any{in.Get("port2"), out.Get("port2")})
	ws.startClock(g)
	select { // a worker that fails before its Go code runs is unavailable
	case <-ws.loaded:
	case err := <-ws.opened:
		ws.release()
		return nil, err
	case <-time.After(workerLoadTimeout):
		ws.release()
		return nil, fmt.Errorf("%w: it did not load within %v", errWorkerUnavailable, workerLoadTimeout)
	case <-ctx.Done():
		ws.release()
		return nil, ctx.Err()
	}
	// Only a worker that runs gets the worklets' ports: a page that falls
	// back keeps its worklets talking to itself.
	g.inNode.Get("port").Call("postMessage", map[string]any{"type": "port", "port": in.Get("port1")}, []any{in.Get("port1")})
	g.outNode.Get("port").Call("postMessage", map[string]any{"type": "port", "port": out.Get("port1")}, []any{out.Get("port1")})
	select {
	case err := <-ws.opened:
		if err != nil {
			ws.release()
			return nil, err
		}
		return ws, nil
	case <-ctx.Done():
		ws.release()
		return nil, ctx.Err()
	}
}

// newSessionWorker starts the session worker (web/session-worker.js) with
// onMsg for its messages' data and onErr for its script errors; fns are
// the callbacks to release with it.
func newSessionWorker(onMsg func(app.Value), onErr func(error)) (w app.Value, fns []app.Func, err error) {
	ctor := app.Window().Get("Worker")
	if ctor.IsUndefined() {
		return nil, nil, fmt.Errorf("%w: this browser has no Web Workers", errWorkerUnavailable)
	}
	w = ctor.New("/web/session-worker.js")
	msg := app.FuncOf(func(_ app.Value, args []app.Value) any {
		onMsg(args[0].Get("data"))
		return nil
	})
	fail := app.FuncOf(func(_ app.Value, args []app.Value) any {
		text := "script error"
		if len(args) > 0 && !args[0].Get("message").IsUndefined() {
			text += ": " + args[0].Get("message").String()
		}
		onErr(errors.New(text))
		return nil
	})
	w.Set("onmessage", msg)
	w.Set("onerror", fail)
	return w, []app.Func{msg, fail}, nil
}

// startClock posts the playback context's clock on the page's timeline,
// so the worker puts played_at_ms on it without asking the page. A busy
// page only makes the pair older; the mapping is linear.
func (ws *workerSession) startClock(g *audioGraph) {
	post := func() {
		ts := g.outCtx.Call("getOutputTimestamp")
		ct, pt := ts.Get("contextTime"), ts.Get("performanceTime")
		if ct.IsUndefined() || pt.IsUndefined() || pt.Float() == 0 {
			return
		}
		ws.w.Call("postMessage", map[string]any{"type": "clock", "ctx_time": ct.Float(), "perf_ms": pt.Float()})
	}
	fn := app.FuncOf(func(app.Value, []app.Value) any { post(); return nil })
	ws.fns = append(ws.fns, fn)
	ws.mu.Lock()
	ws.clockTimer = app.Window().Call("setInterval", fn, 250).Float()
	ws.mu.Unlock()
}

func (ws *workerSession) fail(err error) {
	ws.mu.Lock()
	loaded := ws.isLoaded
	ws.mu.Unlock()
	if !loaded {
		// Not started yet: the page falls back to its main thread, so
		// this is no failure of the run.
		select {
		case ws.opened <- fmt.Errorf("%w: %v", errWorkerUnavailable, err):
		default:
		}
		return
	}
	err = fmt.Errorf("the session worker failed: %w", err)
	select {
	case ws.opened <- err:
	default:
	}
	var c workerClosed
	c.Err = err
	select {
	case ws.closed <- c:
	default:
	}
	if ws.hooks.State != nil {
		ws.hooks.State(session.StateFailed, err)
	}
}

func recordFrom(s string) error {
	if s == "" {
		return nil
	}
	var r session.ErrorRecord
	if json.Unmarshal([]byte(s), &r) != nil {
		return errors.New(s)
	}
	return r.Err()
}

func (ws *workerSession) onMessage(d app.Value) {
	switch d.Get("type").String() {
	case "snapshot":
		delta, err := tracker.Decode([]byte(d.Get("delta").String()))
		if err != nil {
			// The live view misses one update (the report is built from
			// the wire log): say so in that log, and have the next
			// snapshot carry the metrics whole.
			_ = ws.Note(map[string]any{"type": "duplexscope.snapshot_error", "error": err.Error()})
			ws.w.Call("postMessage", map[string]any{"type": "resync"})
			return
		}
		if ws.hooks.Snapshot != nil && ws.hooks.Snapshot(delta) {
			ws.w.Call("postMessage", map[string]any{"type": "resync"})
		}
	case "media":
		if ws.hooks.Media == nil {
			return
		}
		in := turntaking.Input{TMs: d.Get("t_ms").Float(), Kind: d.Get("kind").String(), ResponseID: d.Get("id").String(),
			Rate: d.Get("rate").Int(), Text: d.Get("text").String()}
		var pcm, played []byte
		if p := d.Get("pcm"); !p.IsUndefined() && !p.IsNull() {
			pcm = bytesFromJS(p)
		}
		if in.Kind == turntaking.InputModel {
			in.PCM = pcm
		}
		if d.Get("played").Bool() {
			played = pcm
		}
		ws.hooks.Media(in, played)
	case "sent":
		if ws.hooks.Sent != nil {
			f := inputFrame{Seq: d.Get("seq").Int(), PCM: bytesFromJS(d.Get("pcm")), RMS: d.Get("rms").Float()}
			ws.hooks.Sent(f, d.Get("sent_ms").Float())
		}
	case "clip-start":
		if ws.hooks.ClipStart != nil {
			ws.hooks.ClipStart(d.Get("seq").Int())
		}
	case "clip-end":
		if ws.hooks.ClipEnd != nil {
			ws.hooks.ClipEnd()
		}
	case "probe-onset":
		if ws.hooks.ProbeOnset != nil {
			ws.hooks.ProbeOnset(d.Get("id").String(), d.Get("seq").Int(), d.Get("sample").Int())
		}
	case "state":
		if ws.hooks.State != nil {
			ws.hooks.State(session.State(d.Get("state").String()), recordFrom(d.Get("error").String()))
		}
	case "loaded":
		ws.mu.Lock()
		if !ws.isLoaded {
			ws.isLoaded = true
			close(ws.loaded)
		}
		ws.mu.Unlock()
	case "ready":
		ws.mu.Lock()
		ws.id, ws.tick = d.Get("session_id").String(), d.Get("tick_warning").String()
		ws.mu.Unlock()
		select {
		case ws.opened <- nil:
		default:
		}
	case "dial_error":
		select {
		case ws.opened <- recordFrom(d.Get("error").String()):
		default:
		}
	case "closed":
		select {
		case ws.closed <- decodeClosed(d):
		default:
		}
	case "fatal":
		ws.fail(errors.New(d.Get("text").String()))
	}
}

// decodeClosed reads a "closed" (or "load-closed") message.
func decodeClosed(d app.Value) workerClosed {
	var c workerClosed
	_ = json.Unmarshal([]byte(d.Get("result").String()), &c.Result)
	if t := d.Get("trace").String(); t != "" {
		var wireLog trace.Session
		if err := json.Unmarshal([]byte(t), &wireLog); err == nil {
			c.Trace = &wireLog
		} else {
			c.Err = fmt.Errorf("the session worker's wire log did not decode: %w", err)
		}
	}
	if err := recordFrom(d.Get("error").String()); err != nil {
		c.Err = err
	}
	return c
}

// ID is the session id the server gave.
func (ws *workerSession) ID() string {
	ws.mu.Lock()
	id := ws.id
	ws.mu.Unlock()
	return id
}

// TickWarning is the session's frame-size warning.
func (ws *workerSession) TickWarning() string {
	ws.mu.Lock()
	tick := ws.tick
	ws.mu.Unlock()
	return tick
}

// Note adds a wire-log annotation (in the worker's log, at its instant).
func (ws *workerSession) Note(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	ws.w.Call("postMessage", map[string]any{"type": "note", "note": string(b)})
	return nil
}

// StreamClip hands the worker the clip (16 kHz PCM16 LE) to stream on its
// own clock; the buffer is transferred.
func (ws *workerSession) StreamClip(pcm []byte) {
	u8 := bytesToJS(pcm)
	ws.w.Call("postMessage", map[string]any{"type": "clip", "pcm": u8}, []any{u8.Get("buffer")})
}

// Inject mixes a probe clip into the worker's clip stream from its next frame.
func (ws *workerSession) Inject(id string, pcm []byte) {
	u8 := bytesToJS(pcm)
	ws.w.Call("postMessage", map[string]any{"type": "inject", "id": id, "pcm": u8}, []any{u8.Get("buffer")})
}

// StopInput tells the worker to send no more frames.
func (ws *workerSession) StopInput() { ws.w.Call("postMessage", map[string]any{"type": "stop"}) }

// Finish commits, waits for the last responses and closes, in the worker;
// it returns the wire log and the result.
func (ws *workerSession) Finish(ctx context.Context) (*session.Result, *trace.Session, error) {
	ws.w.Call("postMessage", map[string]any{"type": "finish"})
	var c workerClosed
	select {
	case c = <-ws.closed:
	case <-ctx.Done():
		return nil, nil, ctx.Err()
	}
	if c.Trace == nil {
		return nil, nil, c.Err
	}
	return c.Result.Result(c.Trace, c.Err), c.Trace, c.Err
}

// release ends the worker and frees the callbacks.
func (ws *workerSession) release() {
	if ws == nil {
		return
	}
	ws.w.Call("postMessage", map[string]any{"type": "cancel"})
	ws.w.Call("terminate")
	ws.mu.Lock()
	id := ws.clockTimer
	ws.mu.Unlock()
	app.Window().Call("clearInterval", id)
	for _, f := range ws.fns {
		f.Release()
	}
	ws.fns = nil
}
