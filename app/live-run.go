package app

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"

	"github.com/duplexscope/duplexscope/report"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/duplexscope/duplexscope/chart"
	"github.com/duplexscope/duplexscope/metrics"
	"github.com/duplexscope/duplexscope/session"
	"github.com/duplexscope/duplexscope/session/tracker"
	"github.com/duplexscope/duplexscope/trace"
	"github.com/duplexscope/duplexscope/turntaking"
)

// Phases of a live run, in order (phaseFailed may follow any).
const (
	phaseIdle       = "idle"
	phaseConnecting = "connecting"
	phaseStreaming  = "streaming"
	phaseFinishing  = "finishing"
	phaseSaving     = "saving"
	phaseDone       = "done"
	phaseFailed     = "failed"
)

// playState is a response's playback on the page's player (the playback
// worklet's reports); its wire state is the tracker's.
type playState struct {
	StartMs float64 // playback clock mapped to performance.now(), 0 = not played
	Played  int     // samples played
	Under   int     // underruns
	Drained bool
}

type timedPCM struct {
	TMs float64
	PCM []byte
}

// liveRun is one session driven from the page: audio graph, session,
// metrics accumulator and everything the views show. Its methods are called
// from worklet callbacks, the session's observer goroutine and the
// controller goroutine; mu guards the fields.
type liveRun struct {
	mu       sync.Mutex
	settings Settings
	ctx      context.Context
	cancel   context.CancelFunc
	publish  func(*liveSnapshot)

	graph *audioGraph
	cam   *camera // the camera source (Settings.Video == VideoCamera), else nil
	// clipVideo: the dataset clip's frames (dataset:video), when no camera
	clipVideo *session.ScheduledVideo
	tickWarn  string           // the session's frame-size warning (server tick)
	sess      *session.Session // the session on the main thread (session_thread=main), else nil
	worker    *workerSession   // the session in the session worker, else nil
	playAcks  session.PlaybackAcks
	tr        *tracker.Tracker // follows the wire log of a session on this thread (session_thread=main)
	// wire is what the views read: the tracker's Deltas, from the
	// session worker's snapshots or from tr — one drawing path.
	wire     *tracker.View
	frames   chan inputFrame
	acks     chan ackReq
	stopOnce sync.Once
	stopped  chan struct{}

	phase, status  string
	err            error
	sessionID      string
	ready          bool
	readyCtxTime   float64 // input AudioContext time when the session opened
	sentMs         float64
	framesSent     int
	framesDropped  int
	workerFallback string // why the session worker could not start (the run fell back to the main thread)
	clipMode       bool   // streaming a clip (dataset, dropped WAV), not the mic
	clipStarted    bool
	clipStartSeq   int // first frame of the clip (frames before it are not sent)
	clipEnded      bool
	clipEndSentMs  float64
	tabHidden      bool
	inputRate      float64
	outputRate     float64
	playbackUnder  int
	inLevel        float64
	outLevel       float64
	inputPCM       []byte
	userLevels     []chart.Level
	markers        []chart.Marker        // the page's own: probes and playback starts (the wire's are the tracker's)
	userCaptions   []chart.Caption       // a dataset's captions (the model's are the tracker's)
	play           map[string]*playState // by response id
	audio          map[string][]timedPCM // model audio by response, as received at 24 kHz (replay, report)
	result         *session.Result
	final          *metrics.SessionResult
	share          shareInfo
	lastPublishMs  float64
	cache          *viewCache
	cacheAccepted  int
	cacheResp      int
	cachePlayed    int
	visibilityFunc app.Func
	probes         []*probe
	tt             *report.TurnTaking // turn-taking scores, recomputed at most every ttEveryMs
	labels         *streamLabels      // a labelled dataset's cases on the stream clock (nil: derived cases)
	ttMu           sync.Mutex         // guards ttRec, held while scoring (not r.mu: the send path needs it)
	ttRec          turntaking.Recorder
	ttAtMs         float64
	userSpeech     []turntaking.Interval // VAD of the sent audio (trace clock), refreshed with the turn-taking pass
	ttBusy         bool
	probeClips     map[string]probeClipData // standard clips by kind, fetched once per run
	probeSchedule  []ProbeAt                // probe_s probes not yet injected, in time order
	notes          []map[string]any         // wire-log annotations to add (off the lock)
}

// newLiveRun prepares a run; start begins it.
func newLiveRun(s Settings, publish func(*liveSnapshot)) *liveRun {
	ctx, cancel := context.WithCancel(context.Background())
	return &liveRun{
		settings: s, ctx: ctx, cancel: cancel, publish: publish,
		frames: make(chan inputFrame, 512), stopped: make(chan struct{}), acks: make(chan ackReq, 256),
		phase: phaseIdle, tr: tracker.New(), wire: tracker.NewView(), play: map[string]*playState{}, audio: map[string][]timedPCM{}, probeClips: map[string]probeClipData{},
		probeSchedule: append([]ProbeAt(nil), s.Probes...),
	}
}

// run is the controller goroutine: set up audio, dial, stream until stopped,
// finish the session, save the report.
func (r *liveRun) run(pageHost string, secure bool) {
	defer r.cancel()
	r.setPhase(phaseConnecting, "Setting up audio…")
	r.watchVisibility()
	var clip []byte
	if name := r.settings.DatasetName(); name != "" {
		r.setPhase(phaseConnecting, "Loading dataset "+name+"…")
		ds, err := loadDataset(r.ctx, name, r.settings.FrameMs)
		if err != nil {
			r.fail(fmt.Errorf("dataset %s: %w", name, err))
			return
		}
		clip = ds.PCM
		if len(ds.Video) > 0 && r.settings.Video != VideoCamera {
			at := ds.VideoAtMs
			r.clipVideo = &session.ScheduledVideo{List: ds.Video, Boundary: func(k int) float64 { return at[k] }}
		}
		r.mu.Lock()
		r.labels = ds.Labels
		for _, c := range ds.Captions {
			r.userCaptions = append(r.userCaptions, chart.Caption{TS: c.TS, Lane: chart.LaneUser, Text: tracker.ClipText(c.Text, 40)})
		}
		r.mu.Unlock()
	} else if r.settings.DroppedPCM != nil {
		clip = r.settings.DroppedPCM
	}
	if len(r.probeSchedule) > 0 {
		// Fetch the scheduled clips now, so each goes out at its offset; a
		// failure is reported on the probe's row when it is due.
		r.setPhase(phaseConnecting, "Loading probe clips…")
		for _, p := range r.probeSchedule {
			_, _ = r.probeClip(p.Kind)
		}
	}
	mic := clip == nil
	r.mu.Lock()
	r.clipMode = !mic // set before frames can be sent (r.ready)
	r.mu.Unlock()
	g, err := newAudioGraph(audioOptions{
		Mic: mic, FrameMs: r.settings.FrameMs,
		OnFrame: r.onFrame, OnClipStart: r.onClipStart, OnClipEnd: r.onClipEnd, OnPlayback: r.onPlayback, OnProbeOnset: r.onProbeOnset,
	})
	if err != nil {
		r.fail(err)
		return
	}
	r.mu.Lock()
	r.graph = g
	r.inputRate, r.outputRate = g.InputRate, g.OutRate
	r.mu.Unlock()
	g.resume()

	if r.settings.Video == VideoCamera {
		r.setPhase(phaseConnecting, "Opening the camera…")
		cam, err := startCamera(r.ctx)
		if err != nil {
			r.fail(err)
			return
		}
		r.mu.Lock()
		r.cam = cam
		r.mu.Unlock()
		defer cam.stop()
	}
	url, err := r.settings.DialURL(pageHost, secure)
	if err != nil {
		r.fail(err)
		return
	}
	r.setPhase(phaseConnecting, "Connecting to "+url+"…")
	if !r.dial(g, url, clip != nil) {
		return
	}
	switch {
	case clip != nil && r.worker != nil:
		// The worker cuts and paces the clip's frames on its own clock;
		// the worklet only plays it (aloud when asked to).
		r.worker.StreamClip(clip)
		g.playClip(clip, r.settings.Audible)
	case clip != nil:
		g.setClip(clip, r.settings.Audible)
	}
	if g.suspended() {
		r.setPhase(phaseStreaming, "Audio is paused by the browser: click anywhere on the page to allow sound.")
	} else {
		r.setPhase(phaseStreaming, "Streaming — speak now. Stop ends the session.")
	}
	if r.worker != nil {
		select { // the worker sends; the page follows its "sent" messages
		case <-r.stopped:
		case <-r.ctx.Done():
		}
	} else {
		r.sendLoop()
	}
	r.finish()
}

// inWorker reports whether this run's session goes to the session worker:
// the default, except session_thread=main and runs with video (the worker
// has no camera or clip-video source).
func (r *liveRun) inWorker() bool {
	return r.settings.SessionThread != SessionThreadMain && r.cam == nil && r.clipVideo == nil
}

// dial opens the session on the thread it runs on; false: it failed (the
// failure is shown, and the failed start saved for history).
func (r *liveRun) dial(g *audioGraph, url string, clip bool) bool {
	start := session.WorkerStart{
		URL: url, Model: r.settings.Model, FrameMs: r.settings.FrameMs, Transport: r.settings.Transport,
		NativeDuplex: strings.Contains(strings.ToLower(r.settings.Model), "minicpm-o"), ClipMode: clip,
		StallMs: r.settings.StallMs, StallEveryMs: r.settings.StallEveryMs,
	}
	if clip && r.settings.DatasetName() != "" {
		start.SampleID, start.Split = r.settings.DatasetName(), "browser"
	}
	var err error
	if r.inWorker() {
		err = r.openWorker(g, start)
		if errors.Is(err, errWorkerUnavailable) {
			// The run goes on, on the page's main thread (the baseline
			// path), and its report says so.
			r.mu.Lock()
			r.workerFallback = err.Error()
			r.mu.Unlock()
			err = r.openMain(g, start)
		}
	} else {
		err = r.openMain(g, start)
	}
	if err != nil {
		r.fail(dialFailure(r.ctx, r.settings, url, err))
		r.saveFailedStart() // history lists failed runs too (save-failed.go)
		return false
	}
	return true
}

// openWorker opens the session in the session worker.
func (r *liveRun) openWorker(g *audioGraph, start session.WorkerStart) error {
	ws, err := startWorkerSession(r.ctx, g, start, workerHooks{
		Snapshot: r.onSnapshot, Media: r.onMedia, State: r.onState, Sent: r.onSent,
		ClipStart: r.onClipStart, ClipEnd: r.onClipEnd, ProbeOnset: r.onProbeOnset,
	})
	if err != nil {
		return err
	}
	r.mu.Lock()
	r.worker = ws
	r.tickWarn = ws.TickWarning()
	r.sessionID = ws.ID()
	r.ready = true
	r.mu.Unlock()
	return nil
}

// openMain opens the session on the page's main thread (the baseline).
func (r *liveRun) openMain(g *audioGraph, start session.WorkerStart) error {
	cfg := start.Config()
	cfg.Observers = []session.Observer{session.ObserverFuncs{Event: r.onEvent, State: r.onState}}
	cfg.Thread = SessionThreadMain
	cfg.TimeOrigins = &session.TimeOrigins{Page: pageTimeOrigin()}
	switch {
	case r.cam != nil:
		cfg.Video = &r.cam.latest
	case r.clipVideo != nil:
		cfg.Video = r.clipVideo // the dataset's frames at OmniInteract's boundaries
	}
	s, err := session.Dial(r.ctx, cfg)
	if err != nil {
		return err
	}
	r.mu.Lock()
	r.sess = s
	r.tickWarn = s.TickWarning()
	r.sessionID = s.ID()
	r.ready = true
	// Frames captured before this instant (queued in the worklet's port
	// while we dialed) are not sent: the stream starts with fresh audio, so
	// the first append is not already late.
	r.readyCtxTime = g.inputTime()
	r.mu.Unlock()
	go r.ackLoop(s)
	return nil
}

// note adds a wire-log annotation wherever the session runs.
func (r *liveRun) note(s *session.Session, ws *workerSession, v any) {
	switch {
	case ws != nil:
		_ = ws.Note(v)
	case s != nil:
		_ = s.Note(v)
	}
}

// onSent follows a frame the worker sent (its "sent" message).
func (r *liveRun) onSent(f inputFrame, sentMs float64) {
	r.ttMu.Lock()
	r.ttRec.AddInput(turntaking.Input{TMs: sentMs, Kind: turntaking.InputUser, PCM: f.PCM, Rate: 16000})
	r.ttMu.Unlock()
	r.afterSendAt(f, sentMs)
}

// onSnapshot takes the session worker's tracker snapshot (its "snapshot"
// message): the page draws the worker's session without reading its wire.
func (r *liveRun) onSnapshot(d tracker.Delta) {
	r.mu.Lock()
	m := r.wire.Merge(d)
	for _, rs := range m.FirstAudio {
		r.probeCreatedLocked(cmp.Or(rs.CreatedMs, rs.FirstAudioMs))
	}
	r.mu.Unlock()
	r.maybePublish(m.Boundary)
}

// onMedia takes what the worker decoded of a received event for the page:
// model audio it played (replay, the report) and the turn-taking inputs.
func (r *liveRun) onMedia(in turntaking.Input, played []byte) {
	if played != nil {
		r.mu.Lock()
		r.audio[in.ResponseID] = append(r.audio[in.ResponseID], timedPCM{TMs: in.TMs, PCM: played})
		r.mu.Unlock()
	}
	if in.Kind != "" {
		r.ttMu.Lock()
		r.ttRec.AddInput(in)
		r.ttMu.Unlock()
	}
}

// sendLoop forwards worklet frames to the session until stopped.
func (r *liveRun) sendLoop() {
	for {
		select {
		case <-r.stopped:
			return
		case <-r.ctx.Done():
			return
		case f := <-r.frames:
			if err := r.sess.SendFrame(r.ctx, f.PCM); err != nil {
				r.mu.Lock()
				r.err = err
				r.mu.Unlock()
				r.stop()
				return
			}
			r.afterSend(f)
		}
	}
}

func (r *liveRun) afterSend(f inputFrame) { r.afterSendAt(f, perfNow()) }

// afterSendAt is the page's bookkeeping of a sent frame (levels, probes,
// the input kept for the report, the end of input).
func (r *liveRun) afterSendAt(f inputFrame, sentAt float64) {
	r.mu.Lock()
	r.probeSentLocked(f.Seq, sentAt)
	var due string
	if len(r.probeSchedule) > 0 && r.sentMs >= r.probeSchedule[0].OffsetS*1000 {
		due, r.probeSchedule = r.probeSchedule[0].Kind, r.probeSchedule[1:]
	}
	notes := r.notes
	r.notes = nil
	s, ws := r.sess, r.worker
	ms := float64(len(f.PCM)) * 1000 / 32000
	r.framesSent++
	r.sentMs += ms
	r.inputPCM = append(r.inputPCM, f.PCM...)
	r.inLevel = f.RMS
	r.userLevels = append(r.userLevels, chart.Level{TS: (r.sentMs - ms) / 1000, Level: math.Min(1, f.RMS*4)})
	sent := r.sentMs
	dur := r.settings.DurationS
	clipDone := r.clipEnded && sent-r.clipEndSentMs >= clipTailMs
	r.mu.Unlock()
	for _, n := range notes {
		r.note(s, ws, n)
	}
	if due != "" {
		go r.injectProbe(due)
	}
	r.maybeScoreTT(sentAt)
	if (dur > 0 && sent >= dur*1000) || (dur <= 0 && clipDone) {
		r.stop()
	}
	r.maybePublish(false)
}

// clipTailMs of silence follows a clip so the server can answer its last turn.
const clipTailMs = 3000

// onFrame runs in the worklet's message callback: never block.
func (r *liveRun) onFrame(f inputFrame) {
	r.mu.Lock()
	var ready bool
	if r.clipMode {
		// Silence before the clip is not sent: the first append is the
		// clip's first frame, so stream ms = clip ms (labels, captions).
		// The clip is posted only once r.ready holds, so every frame from
		// its clip-start on is fresh; the audio-clock test below must not
		// judge them: ctxTime is the start of the render quantum that
		// completes a frame, so the first sample's estimate falls up to
		// one quantum (2.7 ms at 48 kHz) early — before readyCtxTime when
		// the clip starts in the quantum readyCtxTime was read in (≈ 1 run
		// in 150) — and dropping the clip's first frame moved every label
		// a frame (200 ms) off its audio.
		ready = r.ready && r.clipStarted && f.Seq >= r.clipStartSeq
	} else {
		ready = r.ready && f.CtxTime-float64(len(f.PCM))/32000 >= r.readyCtxTime
	}
	r.mu.Unlock()
	if !ready {
		return
	}
	select {
	case r.frames <- f:
	default:
		r.mu.Lock()
		r.framesDropped++
		r.mu.Unlock()
	}
}

func (r *liveRun) onClipStart(seq int) {
	r.mu.Lock()
	r.clipStarted, r.clipStartSeq = true, seq
	r.mu.Unlock()
}

func (r *liveRun) onClipEnd() {
	r.mu.Lock()
	if r.ready && !r.clipEnded {
		r.clipEnded = true
		r.clipEndSentMs = r.sentMs
	}
	r.mu.Unlock()
}

// stop ends input (Stop button, duration_s, end of clip); idempotent.
func (r *liveRun) stop() {
	r.stopOnce.Do(func() {
		r.mu.Lock()
		r.ready = false
		ws := r.worker
		r.mu.Unlock()
		if ws != nil {
			ws.StopInput()
		}
		close(r.stopped)
	})
}

// release stops the run and closes its audio contexts (a new run starts;
// browsers allow only a few AudioContexts per page).
func (r *liveRun) release() {
	r.stop()
	r.cancel()
	r.mu.Lock()
	g, ws := r.graph, r.worker
	r.graph = nil
	r.mu.Unlock()
	ws.release()
	g.close()
}

// finish commits, waits for completion, closes and saves.
func (r *liveRun) finish() {
	if g := r.graph; g != nil {
		g.stopInput()
	}
	if r.cam != nil {
		r.cam.stop() // input ended: no more pictures
	}
	r.setPhase(phaseFinishing, "Input ended — waiting for the last responses…")
	res, tr, sessErr := r.closeSession()
	r.drainPlayback()
	if tr == nil {
		r.fail(cmp.Or(sessErr, errors.New("the session worker returned no wire log")))
		return
	}
	final := metrics.ScoreSession(*tr)
	tt := traceTurnTaking(tr, r.labels, r.probeOnsets(), "")
	r.ttMu.Lock()
	user := r.ttRec.UserSpeech(nil) // every event is in by now: the whole input
	r.ttMu.Unlock()
	r.mu.Lock()
	r.tt = tt
	r.userSpeech = user
	r.result = res
	r.final = &final
	if sessErr != nil && r.err == nil {
		r.err = sessErr
	}
	r.mu.Unlock()
	r.setPhase(phaseSaving, "Saving the report…")
	info, kept, err := saveRun(r.ctx, r.buildSaveInput(tr))
	r.mu.Lock()
	r.share = info
	r.mu.Unlock()
	switch {
	case err != nil && kept != nil && !errors.Is(err, errSignIn):
		r.setShareProgress(fmt.Sprintf("Upload attempt 1 of %d failed: %s. Trying again in %s; the run is kept in this browser meanwhile.", maxUploadAttempts, uploadWords(err), secondsText(uploadDelay(2))))
		r.setPhase(phaseDone, "Saving failed: "+uploadWords(err)+". The run is kept in this browser; retrying now.")
		go r.retrySave(kept, false)
	case err != nil:
		r.setPhase(phaseDone, "Saving failed: "+uploadWords(err)+". The run is kept in this browser and will be retried.")
	case sessErr != nil:
		r.setPhase(phaseDone, "Session ended with an error: "+errorWords(sessErr)+" — partial report saved.")
	default:
		r.setPhase(phaseDone, "Done — report saved.")
	}
}

// closeSession commits, waits for the last responses and closes, on the
// thread the session runs on; it returns the wire log (nil only when the
// worker lost it, with the reason).
func (r *liveRun) closeSession() (*session.Result, *trace.Session, error) {
	if ws := r.worker; ws != nil {
		res, tr, err := ws.Finish(r.ctx)
		ws.release()
		return res, tr, err
	}
	return r.sess.Finish(r.ctx)
}

// setShareProgress updates the share box's upload words.
func (r *liveRun) setShareProgress(words string) {
	r.mu.Lock()
	r.share.Progress = words
	r.mu.Unlock()
}

// retrySave retries a failed upload now, with backoff, and shows the
// share link once delivered. It outlives the run (its context is ended by
// then); it publishes only while this run is the page's current one.
func (r *liveRun) retrySave(k *keptUpload, keepStatus bool) {
	retryUpload(context.Background(), k.attempt, sleepCtx, func(p uploadProgress) {
		r.mu.Lock()
		if p.Delivered {
			p.Info.Progress = p.Words
			r.share = p.Info
		} else {
			r.share.Progress = p.Words
			r.share.SignIn = r.share.SignIn || p.SignIn
		}
		r.mu.Unlock()
		if !r.isCurrent() {
			return
		}
		if p.Delivered && keepStatus { // a failed start: its error stays the status
			r.mu.Lock()
			phase, status := r.phase, r.status
			r.mu.Unlock()
			r.setPhase(phase, status)
		} else if p.Delivered {
			r.setPhase(phaseDone, "Done — report saved (after "+strconv.Itoa(p.Attempt)+" upload attempts).")
		} else {
			r.maybePublish(true)
		}
	})
}

// isCurrent reports whether r is the page's current run (an older run's
// upload retries must not overwrite a newer run's view).
func (r *liveRun) isCurrent() bool {
	currentMu.Lock()
	defer currentMu.Unlock()
	return currentRun == r
}

// drainPlayback tells the player every response is finished.
func (r *liveRun) drainPlayback() {
	r.mu.Lock()
	ids := append([]string(nil), r.wire.Order()...)
	r.mu.Unlock()
	for _, id := range ids {
		r.graph.done(id)
	}
}

func (r *liveRun) setPhase(phase, status string) {
	r.mu.Lock()
	r.phase, r.status = phase, status
	r.mu.Unlock()
	r.maybePublish(true)
}

func (r *liveRun) fail(err error) {
	r.mu.Lock()
	r.err = err
	r.mu.Unlock()
	r.setPhase(phaseFailed, errorWords(err))
	if r.graph != nil {
		r.graph.stopInput()
	}
}

// errorWords turns an error into a sentence for a person.
func errorWords(err error) string {
	var se *session.ServerError
	var he *session.HandshakeError
	var ae *actionError
	var ce *session.CloseError
	switch {
	case errors.As(err, &ae):
		return ae.Error()
	case errors.As(err, &ce) && ce.Opened && ce.Code != 1006:
		// The server (or the proxy) closed with a code: say both.
		return errorWords(classifyDial(ce, "", false, probeNone))
	case errors.As(err, &ce) && ce.Opened && errors.Is(err, session.ErrTransportDropped):
		return err.Error() + " (the connection dropped without a close code: the server or the network ended it; check the server's log)"
	case errors.As(err, &se):
		return "the server reported an error: " + se.Error()
	case errors.As(err, &he):
		return "the server did not open a session: " + he.Error()
	case errors.Is(err, context.Canceled):
		return "stopped"
	}
	return err.Error()
}

// onState follows the session lifecycle.
func (r *liveRun) onState(st session.State, err error) {
	if st == session.StateFailed && err != nil {
		r.mu.Lock()
		if r.err == nil {
			r.err = err
		}
		r.mu.Unlock()
		r.stop()
	}
}

// onEvent gets every wire-log entry (observer goroutine).
func (r *liveRun) onEvent(ev trace.Event) {
	r.ttMu.Lock()
	r.ttRec.Add(ev) // decoded once here, so a live turn-taking pass costs VAD only
	r.ttMu.Unlock()
	r.mu.Lock()
	u := r.tr.Add(ev)
	r.wire.Merge(r.tr.Delta(false)) // O(change); the metrics come when a snapshot is drawn
	if !u.OK {
		r.mu.Unlock()
		return
	}
	in := u.Received
	if u.Action == session.PlayPush {
		r.audio[in.ID] = append(r.audio[in.ID], timedPCM{TMs: ev.TMs, PCM: in.PCM})
	}
	if u.FirstAudio {
		r.probeCreatedLocked(u.CreatedMs)
	}
	g := r.graph
	if r.worker != nil {
		g = nil // the session worker feeds the player itself
	}
	r.mu.Unlock()
	if g != nil {
		switch u.Action {
		case session.PlayPush:
			g.play(in.ID, in.PCM)
		case session.PlayClear:
			g.clear(in.ID)
		case session.PlayDone:
			g.done(in.ID)
		}
	}
	r.maybePublish(u.Boundary)
}

// playLocked returns id's playback state, creating it.
func (r *liveRun) playLocked(id string) *playState {
	p := r.play[id]
	if p == nil {
		p = &playState{}
		r.play[id] = p
	}
	return p
}

// respViewLocked is what the views and the report show of response id.
func (r *liveRun) respViewLocked(id string) respView {
	v := respView{ID: id}
	if rs := r.wire.Response(id); rs != nil {
		v.CreatedMs, v.Truncated, v.Transcript = rs.CreatedMs, rs.Truncated, rs.Transcript
	}
	if p := r.play[id]; p != nil {
		v.PlayStartMs, v.Underruns = p.StartMs, p.Under
	}
	return v
}

// onPlayback gets the playback worklet's messages (JS callback: no blocking).
// With the session in the worker, the worker gets the same messages and
// sends the acks and notes; the page only draws.
func (r *liveRun) onPlayback(m playbackMsg) {
	r.mu.Lock()
	s, ws := r.sess, r.worker
	var rs *playState
	if r.wire.Response(m.ID) != nil {
		rs = r.playLocked(m.ID)
	}
	ack, doAck := 0, false
	if rs != nil && ws == nil {
		ack, doAck = r.playAcks.Report(m.Type, m.ID, m.Played, 24000)
	}
	var note map[string]any
	switch m.Type {
	case "level":
		r.outLevel = m.RMS
	case "start":
		if rs != nil && rs.StartMs == 0 {
			rs.StartMs = m.PerfMs
			r.markers = append(r.markers, chart.Marker{TS: (m.PerfMs - r.wire.StreamStartMs()) / 1000, Kind: chart.MarkPlaybackStart, ResponseID: m.ID})
			note = map[string]any{"type": "duplexscope.playback", "event": "start", "response_id": m.ID, "played_at_ms": m.PerfMs, "clock": "playback"}
		}
	case "progress", "drained", "cleared":
		if rs != nil {
			rs.Played = m.Played
			ms := m.Played * 1000 / 24000
			if m.Type == "cleared" {
				note = map[string]any{"type": "duplexscope.playback", "event": "cleared", "response_id": m.ID, "played_ms": ms, "dropped_ms": m.Dropped * 1000 / 24000}
				r.probeStoppedLocked(m.ID, m.PerfMs, ms)
			}
			if m.Type == "drained" {
				rs.Drained = true
				r.probeDrainedLocked(m.ID)
			}
		}
	case "underrun":
		r.playbackUnder++
		if rs != nil {
			rs.Under++
		}
		note = map[string]any{"type": "duplexscope.playback", "event": "underrun", "response_id": m.ID, "count": m.Count}
	}
	r.mu.Unlock()
	if s != nil { // main thread: this page acks and notes
		if note != nil {
			_ = s.Note(note)
		}
		if doAck {
			select {
			case r.acks <- ackReq{id: m.ID, ms: ack}:
			default: // queue full: a later (cumulative) ack supersedes this one
			}
		}
	}
	if m.Type == "start" {
		r.maybePublish(true)
	}
}

// ackReq is one playback.ack to send.
type ackReq struct {
	id string
	ms int
}

// ackLoop sends playback acks in order, off the worklet callback.
func (r *liveRun) ackLoop(s *session.Session) {
	for {
		select {
		case <-r.ctx.Done():
			return
		case a := <-r.acks:
			_ = s.Played(r.ctx, a.id, a.ms)
		}
	}
}

// watchVisibility records whether the tab was hidden during the run.
func (r *liveRun) watchVisibility() {
	doc := app.Window().Get("document")
	r.visibilityFunc = app.FuncOf(func(app.Value, []app.Value) any {
		if doc.Get("hidden").Bool() {
			r.mu.Lock()
			if r.phase == phaseStreaming || r.phase == phaseFinishing {
				r.tabHidden = true
			}
			r.mu.Unlock()
		}
		return nil
	})
	doc.Call("addEventListener", "visibilitychange", r.visibilityFunc)
}

// publishEveryMs spaces routine view updates (levels, pacing, log); new
// rows and phase changes publish at once. Every update costs main-thread
// time, which delays the receive stamps taken in onmessage.
const publishEveryMs = 500

// maybePublish sends a snapshot to the page at most every publishEveryMs
// unless forced (response done, first audio, phase change).
func (r *liveRun) maybePublish(force bool) {
	now := perfNow()
	r.mu.Lock()
	if !force && now-r.lastPublishMs < publishEveryMs {
		r.mu.Unlock()
		return
	}
	if r.worker == nil && r.awaitingAudioLocked(now) && r.phase == phaseStreaming {
		// A response was created and its first audio is due: keep the main
		// thread free so onmessage stamps that audio on time (a redraw here
		// would delay the receive stamp and shorten the measured interval).
		// A session in the worker is stamped there: draw at will.
		r.mu.Unlock()
		return
	}
	r.lastPublishMs = now
	snap := r.snapshotLocked()
	r.mu.Unlock()
	if r.publish != nil {
		r.publish(snap)
	}
}

// quietWindowMs bounds how long publishing waits for a first audio packet.
const quietWindowMs = 1500

// awaitingAudioLocked reports whether a response created less than
// quietWindowMs ago has no audio yet.
func (r *liveRun) awaitingAudioLocked(now float64) bool {
	order := r.wire.Order()
	for i := len(order) - 1; i >= 0 && i >= len(order)-3; i-- {
		rs := r.wire.Response(order[i])
		if rs.CreatedMs > 0 && rs.FirstAudioMs == 0 && !rs.Done && now-rs.CreatedMs < quietWindowMs {
			return true
		}
	}
	return false
}
