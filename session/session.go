package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"sync"
	"time"

	"github.com/duplexscope/duplexscope/audio"
	"github.com/duplexscope/duplexscope/protocol"
	"github.com/duplexscope/duplexscope/trace"
)

// socketRealm is a Conn that can say where its socket ran: the socket
// worker's timeOrigin (0: not in one) and why it is not, when it was asked
// to be.
type socketRealm interface {
	socketRealm() (origin float64, warning string)
}

// noteRealm records in the wire log where the socket ran.
func (s *Session) noteRealm(conn Conn) {
	r, ok := conn.(socketRealm)
	if !ok {
		return
	}
	origin, warn := r.socketRealm()
	if warn != "" {
		s.warnings = append(s.warnings, warn)
	}
	if origin != 0 && s.cfg.TimeOrigins != nil {
		to := *s.cfg.TimeOrigins
		to.Socket = origin
		s.cfg.TimeOrigins = &to
	}
}

// Session is one duplex session. Methods are safe for concurrent use; the
// usual order is Dial → Stream (or SendFrame… then Commit) → Wait → Close.
type Session struct {
	cfg   Config
	url   string
	clock Clock
	conn  Conn
	disp  *dispatcher

	wmu     sync.Mutex // serialises writes and their log entries
	closeMu sync.Mutex // one Close at a time

	mu         sync.Mutex
	notify     chan struct{} // closed and replaced on every state change
	log        []trace.Event
	id         string
	created    bool
	chunkMs    int
	streamAt   *time.Duration
	sentBytes  int
	holdback   []byte // externally clocked mode: last sample held for the tail rule
	lags       []time.Duration
	resp       map[string]*respState
	respOrder  []string
	lastSeq    int64
	haveSeq    bool
	committed  bool // committed event received
	commitSent bool
	decision   bool
	streamDone bool
	lastRecv   time.Duration
	fatal      error
	closeSent  bool
	closedOK   bool // session.closed after our session.close
	readErr    error
	warnings   []string
	handled    int // messages processed (tests wait for quiescence on it)
	player     *player
	state      State
	appends    int  // appends sent (video source index)
	tickSeen   bool // the server advertised capabilities.chunk_period_ms
	videoSent  int  // video frames sent

	msgs     chan inMsg
	readDone chan struct{}
	procDone chan struct{}
	cancel   context.CancelFunc
	closed   bool
	result   *Result
}

type respState struct {
	created, done bool
	openAtCommit  bool
}

// Result is what a finished session produced.
type Result struct {
	SessionID  string          `json:"session_id"`
	Trace      *trace.Session  `json:"-"`
	PacingLag  []time.Duration `json:"-"`
	Pacing     LagStats        `json:"pacing"`
	Incomplete bool            `json:"incomplete"`
	Warnings   []string        `json:"warnings,omitempty"`
	Err        error           `json:"-"`
}

// Dial opens the websocket, sends session.update and waits for
// session.created. Failures are *HandshakeError.
func Dial(ctx context.Context, cfg *Config) (*Session, error) {
	if cfg == nil {
		return nil, errors.New("session: nil config")
	}
	frameGiven := cfg.FrameMs > 0
	c := cfg.withDefaults()
	q := url.Values{}
	if c.Model != "" {
		q.Set("model", c.Model)
	}
	if c.NativeDuplex {
		q.Set("minicpmo45_native_duplex", "1")
	}
	u, err := protocol.BuildRealtimeURL(c.URL, q)
	if err != nil {
		return nil, &HandshakeError{Err: err}
	}
	s := &Session{
		cfg: c, url: u, clock: c.Clock,
		disp:    newDispatcher(c.Observers),
		notify:  make(chan struct{}),
		resp:    map[string]*respState{},
		chunkMs: 1000,
		player:  newPlayer(),
		msgs:    make(chan inMsg, 1024),
	}
	if !c.ExternalPlayback {
		s.player.note = s.notePlaybackLocked
	}
	s.setState(StateConnecting, nil)
	hctx, hcancel := context.WithTimeout(ctx, c.HandshakeTimeout)
	defer hcancel()
	dialFn := c.Dialer
	if dialFn == nil {
		dialFn = func(ctx context.Context, u string, clock Clock) (Conn, error) {
			return dial(ctx, c.Transport, u, c.SocketWorker, clock)
		}
	}
	conn, err := dialFn(hctx, u, c.Clock)
	if err != nil {
		herr := &HandshakeError{Err: err}
		s.setState(StateFailed, herr)
		s.disp.close()
		return nil, herr
	}
	s.conn = conn
	s.noteRealm(conn)
	rctx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	s.readDone, s.procDone = make(chan struct{}), make(chan struct{})
	go s.readLoop(rctx)
	go s.procLoop()

	fail := func(err error) (*Session, error) {
		s.abort()
		s.setState(StateFailed, err)
		s.disp.close()
		return nil, err
	}
	if err := s.send(hctx, sessionUpdate(&c)); err != nil {
		return fail(&HandshakeError{Err: err})
	}
	err = s.waitFor(hctx, func() bool { return s.created || s.fatal != nil || s.readErr != nil })
	s.mu.Lock()
	fatal, rerr, created := s.fatal, s.readErr, s.created
	s.mu.Unlock()
	switch {
	case created:
	case fatal != nil:
		if se, ok := errors.AsType[*ServerError](fatal); ok {
			return fail(&HandshakeError{Code: se.Code, Err: fatal})
		}
		return fail(&HandshakeError{Err: fatal})
	case rerr != nil:
		return fail(&HandshakeError{Err: dropped(rerr)})
	default:
		return fail(&HandshakeError{Err: fmt.Errorf("no session.created within %v: %w", c.HandshakeTimeout, err)})
	}
	s.settleFrame(frameGiven)
	s.setState(StateOpen, nil)
	return s, nil
}

// ID is the session id from session.created ("" when the server sent none).
func (s *Session) ID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.id
}

// URL is the websocket URL actually dialed.
func (s *Session) URL() string { return s.url }

// ChunkPeriodMs is the model unit from session.created capabilities
// (1000 when absent); it sizes the final-commit tail rule.
func (s *Session) ChunkPeriodMs() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.chunkMs
}

func (s *Session) setState(st State, err error) {
	s.mu.Lock()
	s.state = st
	s.mu.Unlock()
	s.disp.push(item{state: st, err: err})
}

// changedLocked wakes waiters; s.mu must be held.
func (s *Session) changedLocked() {
	close(s.notify)
	s.notify = make(chan struct{})
}

// waitFor blocks until pred (called with s.mu held) is true or ctx ends.
func (s *Session) waitFor(ctx context.Context, pred func() bool) error {
	for {
		s.mu.Lock()
		if pred() {
			s.mu.Unlock()
			return nil
		}
		ch := s.notify
		s.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// appendLocked adds a wire-log entry and publishes it; s.mu must be held.
func (s *Session) appendLocked(e trace.Event) { s.appendReceivedLocked(e, nil) }

// appendReceivedLocked adds a wire-log entry and publishes it with its
// decoded frame (nil but for received JSON objects); s.mu must be held.
func (s *Session) appendReceivedLocked(e trace.Event, rx *Received) {
	s.log = append(s.log, e)
	s.disp.push(item{ev: e, rx: rx})
}

// Note adds a "local" annotation to the wire log (metrics ignore it), e.g.
// the page's playback start or underruns. v must marshal to a JSON object
// with a "type" key.
func (s *Session) Note(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("session note: %w", err)
	}
	s.mu.Lock()
	s.appendLocked(trace.Event{TMs: durMs(s.clock.Now()), Dir: trace.DirLocal, Event: b})
	s.mu.Unlock()
	return nil
}

// send marshals ev, logs it with the instant just before the write, and
// writes it.
func (s *Session) send(ctx context.Context, ev protocol.Event) error {
	_, err := s.sendAt(ctx, ev, nil)
	return err
}

// sendAt is send with a hook run under the log lock at the send instant
// (used to set stream start); it returns that instant.
func (s *Session) sendAt(ctx context.Context, ev protocol.Event, hook func(at time.Duration)) (time.Duration, error) {
	b, err := protocol.Marshal(ev)
	if err != nil {
		return 0, err
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	s.mu.Lock()
	at := s.clock.Now()
	if hook != nil {
		hook(at)
	}
	logged := b
	if a, ok := ev.(*protocol.InputAudioBufferAppend); ok && len(a.VideoFrames) > 0 {
		s.videoSent += len(a.VideoFrames)
		if !s.cfg.KeepVideo {
			logged = logVideo(b, a.VideoFrames)
		}
	}
	s.appendLocked(trace.Event{TMs: durMs(at), Dir: trace.DirSend, Event: logged})
	s.mu.Unlock()
	if err := s.conn.Write(ctx, b); err != nil {
		return at, fmt.Errorf("send %s: %w", ev.EventType(), err)
	}
	return at, nil
}

// inMsg is a received message, or the read error that ended the stream.
type inMsg struct {
	m   Message
	err error
}

// PlaybackNote is the "local" wire-log entry of the simulated playback clock
// (headless mode): the instant a response's first sample is played
// ("duplexscope.playback_start") and the instant it ends
// ("duplexscope.playback_end": fully played, or cleared by barge-in).
type PlaybackNote struct {
	Type       string  `json:"type"`
	ResponseID string  `json:"response_id"`
	PlayedMs   int     `json:"played_ms"`
	Cleared    bool    `json:"cleared,omitempty"`
	UnderrunMs float64 `json:"underrun_ms,omitempty"`
	Clock      string  `json:"clock"` // "simulated_playback"
}

// notePlaybackLocked logs a playback event; s.mu must be held (the player
// only runs under it).
func (s *Session) notePlaybackLocked(at time.Duration, kind string, t *track) {
	n := PlaybackNote{Type: kind, ResponseID: t.id, PlayedMs: int(int64(t.played) * 1000 / int64(s.player.rate)), Cleared: t.cleared, Clock: "simulated_playback"}
	if kind == "duplexscope.playback_end" {
		n.UnderrunMs = durMs(t.underrun)
	}
	b, _ := json.Marshal(n)
	s.appendLocked(trace.Event{TMs: durMs(at), Dir: trace.DirLocal, Event: b})
}

func (s *Session) warnedLegacy() bool {
	for _, w := range s.warnings {
		if len(w) > 6 && w[:6] == "legacy" {
			return true
		}
	}
	return false
}

// failLocked records the first fatal error; s.mu must be held.
func (s *Session) failLocked(err error) {
	if s.fatal == nil {
		s.fatal = err
	}
}

// Err is the session's first fatal error so far (nil while healthy).
func (s *Session) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.errLocked()
}

func (s *Session) errLocked() error {
	if s.fatal != nil {
		return s.fatal
	}
	// A normal closure after our session.close is the end we asked for,
	// even from a server that sends no session.closed.
	if s.readErr != nil && !s.closedOK && !s.closed && !(s.closeSent && closeStatus(s.readErr) == 1000) {
		return dropped(s.readErr)
	}
	return nil
}

// abort tears the transport down without the close handshake.
func (s *Session) abort() {
	s.cancel()
	_ = s.conn.Close(1001, "client abort")
	<-s.readDone
	<-s.procDone
}

// Trace returns a copy of the wire log so far as a duplex-trace/v1 session.
func (s *Session) Trace() *trace.Session {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.traceLocked()
}

// Extra is the "duplexscope" object of a wire log's session meta.
type Extra struct {
	URL           string   `json:"url"`
	Model         string   `json:"model"`
	FrameMs       int      `json:"frame_ms"`
	ChunkPeriodMs int      `json:"chunk_period_ms"`
	Transport     string   `json:"transport"`
	Clock         string   `json:"clock"`
	Playback      string   `json:"playback"`
	Pacing        LagStats `json:"pacing"`
	InputBytes    int      `json:"input_bytes"`
	Incomplete    bool     `json:"incomplete"`
	Error         string   `json:"error,omitempty"`
	Warnings      []string `json:"warnings,omitempty"`
	// ServerSessionID is the server's session.id when Config.SessionID
	// replaced it as session.session_id.
	ServerSessionID string `json:"server_session_id,omitempty"`
	VideoFramesSent int    `json:"video_frames_sent,omitempty"`
	// SessionThread and TimeOrigins: see Config.Thread.
	SessionThread string       `json:"session_thread,omitempty"`
	TimeOrigins   *TimeOrigins `json:"time_origins,omitempty"`
	// StallMs and StallEveryMs: Config's debug main-thread stall.
	StallMs      int `json:"stall_ms,omitempty"`
	StallEveryMs int `json:"stall_every_ms,omitempty"`
}

func (s *Session) traceLocked() *trace.Session {
	t := &trace.Session{Format: trace.Format, Kind: trace.KindSession}
	if s.cfg.SampleID != "" {
		t.Session.SampleID = ptr(s.cfg.SampleID)
		t.Session.Split = ptr(s.cfg.Split)
	}
	switch {
	case s.cfg.SessionID != "":
		t.Session.SessionID = ptr(s.cfg.SessionID)
	case s.id != "":
		t.Session.SessionID = ptr(s.id)
	}
	if s.streamAt != nil {
		t.Session.StreamStartMs = ptr(durMs(*s.streamAt))
	}
	t.Session.InputAudioDurationMs = ptr(audio.BytesToMs(s.sentBytes, audio.InputRate))
	pb := "simulated_serial"
	if s.cfg.ExternalPlayback {
		pb = "external"
	}
	ex := Extra{
		URL: s.url, Model: s.cfg.Model, FrameMs: s.cfg.FrameMs, ChunkPeriodMs: s.chunkMs,
		Transport: s.cfg.Transport, Clock: "client_monotonic", Playback: pb,
		Pacing: SummarizeLag(s.lags), InputBytes: s.sentBytes,
		Warnings: append([]string(nil), s.warnings...), VideoFramesSent: s.videoSent,
		SessionThread: s.cfg.Thread, TimeOrigins: s.cfg.TimeOrigins,
		StallMs: s.cfg.StallMs, StallEveryMs: s.cfg.StallEveryMs,
	}
	if s.cfg.SessionID != "" {
		ex.ServerSessionID = s.id
	}
	if err := s.errLocked(); err != nil {
		ex.Incomplete, ex.Error = true, err.Error()
	}
	t.Session.Extra, _ = json.Marshal(ex)
	t.Events = append([]trace.Event(nil), s.log...)
	return t
}
