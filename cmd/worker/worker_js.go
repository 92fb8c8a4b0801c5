//go:build js

package main

// Messages (postMessage; JSON payloads are strings so Go decodes them with
// encoding/json, not field by field through syscall/js):
//
// page → worker
//
//	{type:"start", config: JSON session.WorkerStart, input: MessagePort, playback: MessagePort}
//	{type:"note", note: JSON}              a wire-log annotation (session.Note)
//	{type:"clock", ctx_time, perf_ms}      the playback context's clock on the page's timeline
//	{type:"clip", pcm}                     clip mode: stream this clip (16 kHz PCM16 LE) on the worker's clock
//	{type:"inject", id, pcm}               clip mode: mix a probe clip in from the next frame
//	{type:"stop"}                          input ended: send no more frames
//	{type:"resync"}                        the page missed a snapshot: send the next one's metrics whole
//	{type:"finish"}                        commit, wait for the responses, close; answers "closed"
//	{type:"cancel"}                        abandon the session
//	{type:"load-open", …}, {type:"load-stop"}  load mode (/load: many sessions), see load_js.go
//
// worker → page
//
//	{type:"loaded"}                        the worker's Go code runs (before any dial)
//	{type:"ready", session_id, tick_warning, worker_origin}
//	{type:"dial_error", error: JSON session.ErrorRecord}
//	{type:"snapshot", delta: JSON tracker.Delta, at_ms, boundary}  what the live views draw changed
//	                                       (≤ 10 a second, and at once — boundary — at a response's first
//	                                       audio and its end, and at the end of the session); at_ms: the
//	                                       worker's performance.now() when it went; its metrics carry the
//	                                       rows that may have changed since the last (tracker.Metrics)
//	{type:"media", kind, t_ms, id, rate, text, pcm, played}  a received event's part in the page's
//	                                       turn-taking pass (kind: turntaking.Input*, "" none) and the audio
//	                                       the player was given (played; pcm: Uint8Array, transferred)
//	{type:"state", state, error}           lifecycle (error: JSON or "")
//	{type:"sent", seq, rms, sent_ms, pcm}  a frame went out (pcm: Uint8Array, transferred)
//	{type:"clip-start", seq}               clip mode: frame seq begins with the clip
//	{type:"clip-end", seq}                 clip mode: the clip's last sample went out in frame seq
//	{type:"probe-onset", id, seq, sample}  clip mode: a probe starts in frame seq (before its "sent")
//	{type:"closed", result: JSON session.WorkerResult, trace: JSON, error: JSON or ""}
//	{type:"fatal", text}                   the worker itself failed
//
// input port (from the input AudioWorklet): {type:"frame", seq, pcm, rms, …}
// (mic mode; in clip mode the worker cuts the frames itself, see streamClip).
// playback port (to and from the playback
// AudioWorklet): push/done/clear out; start/progress/drained/cleared/underrun in.

import (
	"context"
	"encoding/json"
	"runtime"
	"runtime/debug"
	"sync"
	"syscall/js"
	"time"

	"github.com/duplexscope/duplexscope/audio"
	"github.com/duplexscope/duplexscope/metrics/turntaking"
	"github.com/duplexscope/duplexscope/session"
	"github.com/duplexscope/duplexscope/session/tracker"
	"github.com/duplexscope/duplexscope/trace"
)

// socketWorkerScript is the socket worker each session's WebSocket lives in.
const socketWorkerScript = "/web/socket-worker.js"

// memoryLimit is the worker's soft memory limit (GOMEMLIMIT): the Go
// runtime collects only when the heap approaches it.
const memoryLimit = 384 << 20

type frame struct {
	seq int
	pcm []byte
	rms float64
}

type worker struct {
	self js.Value
	ctx  context.Context
	stop context.CancelFunc

	mu         sync.Mutex
	cfg        session.WorkerStart
	sess       *session.Session
	ready      bool
	stopped    bool
	lastSeq    int // last input frame seen (−1: none)
	minSeq     int // first frame to send
	frames     chan frame
	inject     *injection    // clip mode: a probe to mix into the next frame
	paced      chan struct{} // clip mode: closed when streamClip returns
	acks       *session.AckQueue
	tracker    *tracker.Tracker // follows the wire log: the page's snapshots, the player's rule
	snapMs     float64          // when the last snapshot went (performance.now())
	resultMs   float64          // … and the last one with the metrics
	playAcks   session.PlaybackAcks
	play       js.Value // the playback worklet's port
	clockCtx   float64  // playback context time …
	clockPerf  float64  // … and the same instant on the page's timeline
	clockKnown bool
	funcs      []js.Func
}

type injection struct {
	id  string
	pcm []byte
}

func main() {
	// A collection stops the worker's only thread, so a message that
	// arrives during one is stamped late (measured: receive-stamp error
	// p99 25.7 ms with the default GOGC, 17.7 ms without collections, in
	// one 40 s bench session). Collect only near a memory limit: a
	// session's heap is its wire log plus decode garbage, a few MB a
	// minute, so a 10-minute session never reaches it.
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(memoryLimit)
	// Every session here (the page's, /load's) opens its WebSocket in a
	// socket worker; the page's app.wasm never links that dial.
	session.UseSocketWorker()
	ctx, cancel := context.WithCancel(context.Background())
	w := &worker{self: js.Global(), ctx: ctx, stop: cancel, lastSeq: -1,
		frames: make(chan frame, 512), acks: session.NewAckQueue(256), tracker: tracker.New()}
	onMsg := js.FuncOf(func(_ js.Value, args []js.Value) any {
		w.onPage(args[0].Get("data"))
		return nil
	})
	w.self.Set("onmessage", onMsg)
	w.post(map[string]any{"type": "loaded"})
	// Messages that came while the wasm compiled (session-worker.js queued them).
	if q := w.self.Get("__dsQueue"); q.Type() == js.TypeObject {
		for i := 0; i < q.Length(); i++ {
			w.onPage(q.Index(i).Get("data"))
		}
		w.self.Set("__dsQueue", js.Undefined())
	}
	<-ctx.Done()
}

func (w *worker) post(m map[string]any, transfer ...any) {
	if len(transfer) > 0 {
		w.self.Call("postMessage", m, transfer)
		return
	}
	w.self.Call("postMessage", m)
}

func (w *worker) fatal(text string) { w.post(map[string]any{"type": "fatal", "text": text}) }

func (w *worker) onPage(d js.Value) {
	if d.Type() != js.TypeObject {
		return
	}
	switch d.Get("type").String() {
	case "start":
		var cfg session.WorkerStart
		if err := json.Unmarshal([]byte(d.Get("config").String()), &cfg); err != nil {
			w.fatal("bad start message: " + err.Error())
			return
		}
		w.start(cfg, d.Get("input"), d.Get("playback"))
	case "note":
		var n json.RawMessage
		if json.Unmarshal([]byte(d.Get("note").String()), &n) == nil {
			if s := w.session(); s != nil {
				_ = s.Note(n)
			}
		}
	case "clock":
		w.mu.Lock()
		w.clockCtx, w.clockPerf, w.clockKnown = d.Get("ctx_time").Float(), d.Get("perf_ms").Float(), true
		w.mu.Unlock()
	case "clip":
		w.startClip(bytesFrom(d.Get("pcm")))
	case "inject":
		w.mu.Lock()
		w.inject = &injection{id: d.Get("id").String(), pcm: bytesFrom(d.Get("pcm"))}
		w.mu.Unlock()
	case "stop":
		w.mu.Lock()
		w.stopped, w.ready = true, false
		w.mu.Unlock()
	case "resync": // the page missed a snapshot
		w.mu.Lock()
		w.tracker.ResendMetrics()
		w.mu.Unlock()
	case "finish":
		go w.finish()
	case "cancel":
		w.stop()
	case "load-open":
		w.loadOpen(d)
	case "load-stop":
		loadStop.Lock()
		loadStop.on = true
		loadStop.Unlock()
	}
}

func (w *worker) session() *session.Session {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.sess
}

// start maps the clock, wires both worklet ports and dials.
func (w *worker) start(cfg session.WorkerStart, input, playback js.Value) {
	perf := w.self.Get("performance")
	workerOrigin := perf.Get("timeOrigin").Float()
	session.SetTimelineOffset(workerOrigin - cfg.PageOrigin)
	w.mu.Lock()
	w.cfg, w.play = cfg, playback
	w.mu.Unlock()
	in := js.FuncOf(func(_ js.Value, args []js.Value) any { w.onInput(args[0].Get("data")); return nil })
	out := js.FuncOf(func(_ js.Value, args []js.Value) any { w.onPlayback(args[0].Get("data")); return nil })
	w.funcs = append(w.funcs, in, out)
	input.Set("onmessage", in)
	playback.Set("onmessage", out)
	go w.dial(workerOrigin)
}

func (w *worker) dial(workerOrigin float64) {
	w.mu.Lock()
	cfg := w.cfg
	w.mu.Unlock()
	scfg := cfg.Config()
	scfg.Thread = "worker"
	// A Go timer here is a setTimeout rounded up to a whole ms: it wakes
	// 1–2 ms late (|lag| p50 1.4 ms in a quiet 3-minute bench). Wake 2 ms
	// early and spin to the due instant: ≤ 2 ms of CPU per frame.
	scfg.PaceSpin = 2 * time.Millisecond
	scfg.TimeOrigins = &session.TimeOrigins{Page: cfg.PageOrigin, Worker: workerOrigin}
	// The WebSocket lives in a worker of its own that only stamps and
	// relays: decoding a second of audio here (several ms in wasm) would
	// otherwise delay the stamp of every message that arrives meanwhile.
	scfg.SocketWorker = socketWorkerScript
	scfg.Observers = []session.Observer{session.ObserverFuncs{Event: w.onEvent, State: w.onState}}
	s, err := session.Dial(w.ctx, scfg)
	if err != nil {
		b, _ := json.Marshal(session.RecordError(err))
		w.post(map[string]any{"type": "dial_error", "error": string(b)})
		return
	}
	w.mu.Lock()
	w.sess = s
	w.ready = !w.stopped
	// Frames captured while we dialed are not sent: the stream starts with
	// fresh audio (the frame in progress now is partly old: skip it too).
	w.minSeq = w.lastSeq + 2
	w.mu.Unlock()
	w.post(map[string]any{"type": "ready", "session_id": s.ID(), "tick_warning": s.TickWarning(), "worker_origin": workerOrigin})
	go w.acks.Run(w.ctx, s)
	go w.sendLoop(s)
}

func bytesFrom(u8 js.Value) []byte {
	if u8.Type() != js.TypeObject {
		return nil
	}
	b := make([]byte, u8.Get("byteLength").Int())
	js.CopyBytesToGo(b, js.Global().Get("Uint8Array").New(u8.Get("buffer"), u8.Get("byteOffset"), len(b)))
	return b
}

// onInput gets the input worklet's messages (JS callback: never block).
// In clip mode the worker cuts its own frames, so the worklet's are not
// sent.
func (w *worker) onInput(d js.Value) {
	switch d.Get("type").String() {
	case "frame":
		seq := d.Get("seq").Int()
		w.mu.Lock()
		w.lastSeq = seq
		send := w.ready && seq >= w.minSeq && !w.cfg.ClipMode
		w.mu.Unlock()
		if !send {
			return
		}
		pcm := bytesFrom(d.Get("pcm"))
		select {
		case w.frames <- frame{seq: seq, pcm: pcm, rms: d.Get("rms").Float()}:
		default: // the page counts what was not sent from the "sent" messages
		}
	}
}

// sendLoop writes frames in order, off the port callback.
func (w *worker) sendLoop(s *session.Session) {
	for {
		select {
		case <-w.ctx.Done():
			return
		case f := <-w.frames:
			w.mu.Lock()
			stopped := w.stopped
			w.mu.Unlock()
			if stopped {
				continue
			}
			if err := s.SendFrame(w.ctx, f.pcm); err != nil {
				// The page stops its run on a failed send, as its own
				// send loop does on the main thread.
				w.onState(session.StateFailed, err)
				return
			}
			w.postSent(f.seq, f.rms, session.PerfNow(), f.pcm)
		}
	}
}

// postSent tells the page a frame went out.
func (w *worker) postSent(seq int, rms, sentAt float64, pcm []byte) {
	u8 := js.Global().Get("Uint8Array").New(len(pcm))
	js.CopyBytesToJS(u8, pcm)
	w.post(map[string]any{"type": "sent", "seq": seq, "rms": rms, "sent_ms": sentAt, "pcm": u8}, u8.Get("buffer"))
}

// startClip streams the page's clip on the worker's own clock (once, and
// only on a ready session in clip mode).
func (w *worker) startClip(clip []byte) {
	w.mu.Lock()
	s, ok := w.sess, w.cfg.ClipMode && w.ready && w.paced == nil
	if ok {
		w.paced = make(chan struct{})
	}
	w.mu.Unlock()
	if ok {
		go w.streamClip(s, clip)
	}
}

// streamClip sends the clip, then silence until the page says stop, frame
// k at stream start + k·frame on performance.now(): the input worklet's
// audio clock drifts against it, and a main thread that is busy delays
// nothing here. Frame 0 is the clip's first sample, so stream ms = clip ms.
func (w *worker) streamClip(s *session.Session, clip []byte) {
	defer close(w.paced)
	feed := session.NewClipFeed(clip, w.cfg.FrameMs)
	next := func() (session.FeedFrame, bool) {
		w.mu.Lock()
		stopped, inj := w.stopped, w.inject
		w.inject = nil
		w.mu.Unlock()
		if stopped {
			return session.FeedFrame{}, false
		}
		if inj != nil {
			feed.Inject(inj.id, inj.pcm)
		}
		return feed.Next(), true
	}
	sent := func(f session.FeedFrame, _ time.Duration) {
		at := session.PerfNow()
		if f.Seq == 0 {
			w.post(map[string]any{"type": "clip-start", "seq": 0})
		}
		if f.ProbeID != "" {
			w.post(map[string]any{"type": "probe-onset", "id": f.ProbeID, "seq": f.Seq, "sample": 0})
		}
		w.postSent(f.Seq, f.RMS, at, f.PCM)
		if f.ClipEnd {
			w.post(map[string]any{"type": "clip-end", "seq": f.Seq})
		}
	}
	if err := s.PaceFrames(w.ctx, next, sent); err != nil && w.ctx.Err() == nil {
		w.onState(session.StateFailed, err)
	}
}

// onEvent follows each wire-log entry: the tracker decodes it once, the
// player gets its audio, and the page gets what it draws — snapshots and
// the decoded media, never the wire traffic itself.
func (w *worker) onEvent(ev trace.Event, rx *session.Received) {
	w.mu.Lock()
	u := w.tracker.Add(ev, rx)
	play := w.play
	w.mu.Unlock()
	if u.OK {
		r := u.Received
		switch u.Action {
		case session.PlayPush:
			u8 := bytesToJS(r.PCM())
			play.Call("postMessage", map[string]any{"type": "push", "id": r.ID, "pcm": u8}, []any{u8.Get("buffer")})
		case session.PlayDone:
			play.Call("postMessage", map[string]any{"type": "done", "id": r.ID})
		case session.PlayClear:
			play.Call("postMessage", map[string]any{"type": "clear", "id": r.ID})
		}
		w.postMedia(tracker.TurnInput(ev.TMs, r), r, u.Action == session.PlayPush)
	}
	w.maybeSnapshot(u.Boundary)
}

// bytesToJS copies b into a new Uint8Array (its buffer is then transferred).
func bytesToJS(b []byte) js.Value {
	u8 := js.Global().Get("Uint8Array").New(len(b))
	js.CopyBytesToJS(u8, b)
	return u8
}

// postMedia sends the page a received event's part in its turn-taking
// pass (in) and the audio the player was given (the page's replay and
// report).
func (w *worker) postMedia(in turntaking.Input, r *session.Received, played bool) {
	if in.Kind == "" && !played {
		return
	}
	m := map[string]any{"type": "media", "kind": in.Kind, "t_ms": in.TMs, "id": r.ID, "rate": audio.OutputRate, "text": in.Text, "played": played}
	if pcm := r.PCM(); len(pcm) > 0 && (played || in.Kind == turntaking.InputModel) {
		u8 := bytesToJS(pcm)
		m["pcm"] = u8
		w.post(m, u8.Get("buffer"))
		return
	}
	w.post(m)
}

// Snapshot pacing: the page draws at most this often (a snapshot costs
// the worker an encode, the page a decode and a redraw), the metrics
// (O(responses) to build, the changed rows to send) less often; a
// response's first audio or end goes at once.
const (
	snapshotEveryMs = 100
	resultEveryMs   = 500
)

// maybeSnapshot posts the tracker's changes when due (or now).
func (w *worker) maybeSnapshot(now bool) {
	at := session.PerfNow()
	w.mu.Lock()
	if !now && at-w.snapMs < snapshotEveryMs {
		w.mu.Unlock()
		return
	}
	withResult := now || at-w.resultMs >= resultEveryMs
	w.snapMs = at
	if withResult {
		w.resultMs = at
	}
	d := w.tracker.Delta(withResult)
	w.mu.Unlock()
	b, err := tracker.Encode(d)
	if err != nil {
		w.fatal("snapshot: " + err.Error())
		return
	}
	w.post(map[string]any{"type": "snapshot", "delta": string(b), "at_ms": at, "boundary": now})
}

func (w *worker) onState(st session.State, err error) {
	e := ""
	if err != nil {
		b, _ := json.Marshal(session.RecordError(err))
		e = string(b)
	}
	w.post(map[string]any{"type": "state", "state": string(st), "error": e})
}

// onPlayback turns the playback worklet's reports into acks and notes,
// here, so a busy page delays neither.
func (w *worker) onPlayback(d js.Value) {
	kind := d.Get("type").String()
	id := ""
	if v := d.Get("id"); v.Type() == js.TypeString {
		id = v.String()
	}
	num := func(k string) int {
		if v := d.Get(k); v.Type() == js.TypeNumber {
			return v.Int()
		}
		return 0
	}
	w.mu.Lock()
	s := w.sess
	known := id != "" && w.tracker.Known(id)
	var note map[string]any
	ack, ok := 0, false
	if known {
		ack, ok = w.playAcks.Report(kind, id, num("played"), audio.OutputRate)
	}
	switch kind {
	case "start":
		if known && ok {
			note = map[string]any{"type": "duplexscope.playback", "event": "start", "response_id": id, "played_at_ms": w.ctxToPerfLocked(d.Get("ctxTime").Float()), "clock": "playback"}
		}
	case "cleared":
		if known {
			note = map[string]any{"type": "duplexscope.playback", "event": "cleared", "response_id": id, "played_ms": num("played") * 1000 / audio.OutputRate, "dropped_ms": num("dropped") * 1000 / audio.OutputRate}
		}
	case "underrun":
		note = map[string]any{"type": "duplexscope.playback", "event": "underrun", "response_id": id, "count": num("count")}
	}
	w.mu.Unlock()
	if s == nil {
		return
	}
	if note != nil {
		_ = s.Note(note)
	}
	if ok {
		w.acks.Queue(id, ack)
	}
}

// ctxToPerfLocked maps a playback context time (s) onto the page's
// timeline with the page's last getOutputTimestamp pair (the audio clock
// and performance.now() run at the same rate to within ppm).
func (w *worker) ctxToPerfLocked(ctxTime float64) float64 {
	if !w.clockKnown {
		return session.PerfNow()
	}
	return w.clockPerf + (ctxTime-w.clockCtx)*1000
}

// finish commits, waits, closes and sends the page the wire log.
func (w *worker) finish() {
	s := w.session()
	if s == nil {
		w.post(map[string]any{"type": "closed", "result": "{}", "trace": "", "error": ""})
		return
	}
	w.mu.Lock()
	w.stopped, w.ready = true, false
	paced := w.paced
	w.mu.Unlock()
	if paced != nil {
		<-paced // the last frame is out before the commit
	}
	_ = s.Note(runtimeNote())
	res, wireLog, sessErr := s.Finish(w.ctx)
	w.maybeSnapshot(true) // the last events, before the page scores the wire log
	out := session.NewWorkerResult(res)
	rb, _ := json.Marshal(out)
	tb, _ := json.Marshal(wireLog)
	e := ""
	if sessErr != nil {
		b, _ := json.Marshal(session.RecordError(sessErr))
		e = string(b)
	}
	w.post(map[string]any{"type": "closed", "result": string(rb), "trace": string(tb), "error": e})
}

// runtimeNote is the worker's Go runtime at the end of the input, for the
// wire log: a collection stops the worker's only thread, so a late send
// or stamp can be told apart from one the browser delayed.
func runtimeNote() map[string]any {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	var maxPause uint64
	for _, p := range ms.PauseNs {
		maxPause = max(maxPause, p)
	}
	return map[string]any{
		"type": "duplexscope.worker_runtime", "gc_count": ms.NumGC,
		"gc_pause_total_ms": float64(ms.PauseTotalNs) / 1e6, "gc_pause_max_ms": float64(maxPause) / 1e6,
		"heap_alloc_bytes": ms.HeapAlloc, "total_alloc_bytes": ms.TotalAlloc, "memory_limit_bytes": memoryLimit,
	}
}
