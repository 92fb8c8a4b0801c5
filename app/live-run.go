package app

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/duplexscope/duplexscope/chart"
	"github.com/duplexscope/duplexscope/metrics"
	"github.com/duplexscope/duplexscope/session"
	"github.com/duplexscope/duplexscope/session/tracker"
)

// liveRun is one session driven from the page: audio graph, session,
// metrics accumulator and everything the views show; its course is life's
// and the model's audio playback's. Its methods are called from worklet
// callbacks, the session's observer goroutine and the controller
// goroutine; mu guards the fields (held around calls into life and
// playback, never taken by them).
type liveRun struct {
	mu       sync.Mutex
	life     *lifecycle
	playback *playback
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
	tracker   *tracker.Tracker // follows the wire log of a session on this thread (session_thread=main)
	// wire is what the views read: the tracker's Deltas, from the
	// session worker's snapshots or from wireLog — one drawing path.
	wire   *tracker.View
	frames chan inputFrame
	input  inputGate // which frames are sent, when input ends

	sessionID      string
	workerFallback string // why the session worker could not start (the run fell back to the main thread)
	tabHidden      bool
	inputRate      float64
	outputRate     float64
	inLevel        float64
	inputPCM       []byte
	userLevels     []chart.Level
	markers        []chart.Marker  // the page's own: probes and playback starts (the wire's are the tracker's)
	userCaptions   []chart.Caption // a dataset's captions (the model's are the tracker's)
	result         *session.Result
	final          *metrics.SessionResult
	lastPublishMs  float64
	cache          viewCache
	visibilityFunc app.Func
	probes         liveProbes       // guarded by mu
	turns          liveTurns        // turn-taking: its own locks
	notes          []map[string]any // wire-log annotations to add (off the lock)
}

// newLiveRun prepares a run; start begins it.
func newLiveRun(s Settings, publish func(*liveSnapshot)) *liveRun {
	ctx, cancel := context.WithCancel(context.Background())
	return &liveRun{
		settings: s, ctx: ctx, cancel: cancel, publish: publish, life: newLifecycle(), playback: newPlayback(),
		frames:  make(chan inputFrame, 512),
		tracker: tracker.New(), wire: tracker.NewView(), probes: newLiveProbes(s.Probes),
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
		r.turns.setLabels(ds.Labels)
		r.mu.Lock()
		for _, c := range ds.Captions {
			r.userCaptions = append(r.userCaptions, chart.Caption{TS: c.TS, Lane: chart.LaneUser, Text: tracker.ClipText(c.Text, 40)})
		}
		r.mu.Unlock()
	} else if r.settings.DroppedPCM != nil {
		clip = r.settings.DroppedPCM
	}
	if len(r.probes.schedule) > 0 {
		// Fetch the scheduled clips now, so each goes out at its offset; a
		// failure is reported on the probe's row when it is due.
		r.setPhase(phaseConnecting, "Loading probe clips…")
		for _, p := range r.probes.schedule {
			_, _ = r.probeClip(p.Kind)
		}
	}
	mic := clip == nil
	r.mu.Lock()
	r.input.clipMode = !mic // set before frames can be sent (r.input.ready)
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
		case <-r.life.stopped:
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
	r.openedLocked(ws)
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
	r.openedLocked(s)
	// Frames captured before this instant (queued in the worklet's port
	// while we dialed) are not sent: the stream starts with fresh audio, so
	// the first append is not already late.
	r.input.readyCtxTime = g.inputTime()
	r.mu.Unlock()
	go r.playback.ackQueue.Run(r.ctx, s)
	return nil
}

// openedLocked takes the open session's ID and tick warning, on either
// thread, and lets input frames through. The caller holds r.mu.
func (r *liveRun) openedLocked(s interface {
	ID() string
	TickWarning() string
}) {
	r.tickWarn = s.TickWarning()
	r.sessionID = s.ID()
	r.input.ready = true
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
