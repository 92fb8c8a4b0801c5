//go:build !js

package sim

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
)

// shutdownGrace bounds how long Close waits for a blocked frame write.
const shutdownGrace = 2 * time.Second

// Frame-size cap. The largest legitimate client frame is one append of
// MaxAppendMs of 16 kHz PCM16 plus two camera frames of at most
// MaxVideoFrameBytes (JPEG), all base64, plus JSON; a bigger frame closes
// the session with 1009 (message too big) instead of being buffered.
const (
	MaxAppendMs = 10000
	// MaxVideoFrameBytes bounds one decoded camera frame (the CLI and the
	// page cap their JPEGs at the same size; video.go checks it per frame).
	MaxVideoFrameBytes = 256 << 10
	frameJSONOverhead  = 16 << 10
	// MaxFrameBytes is the read limit per client frame (≈ 1.1 MiB).
	MaxFrameBytes = (2*16000*MaxAppendMs/1000+2)/3*4 + 2*((MaxVideoFrameBytes+2)/3*4) + frameJSONOverhead
)

// Server is the simulator: an http.Handler serving the duplex websocket at
// /v1/realtime and ground truth at /sim/sessions/{id}/truth.
type Server struct {
	opts   Options
	base   Scenario
	clock  Clock
	truths *truthStore
	mux    *http.ServeMux

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	n      atomic.Uint64
	open   atomic.Int64 // websocket sessions open now (the contended behaviour)
	closed atomic.Bool
}

// New validates opts (nil = defaults) and returns a Server.
func New(opts *Options) (*Server, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.ScenarioFile != "" && o.Profile != "" {
		return nil, errors.New("sim: give either --sim-profile or --sim-scenario (a scenario file names its profile in \"base\")")
	}
	if err := o.validate(); err != nil {
		return nil, err
	}
	if o.MaxSessions == 0 {
		o.MaxSessions = DefaultMaxSessions
	}
	base, err := o.baseScenario()
	if err != nil {
		return nil, err
	}
	if _, err := o.resolve(base, nil); err != nil { // validates fault, names, behaviour flags
		return nil, err
	}
	if o.Clock == nil {
		o.Clock = SystemClock()
	}
	s := &Server{opts: o, base: base, clock: o.Clock, truths: newTruthStore(o.KeepSessions), mux: http.NewServeMux()}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.mux.HandleFunc("GET /v1/realtime", s.serveWS)
	s.mux.HandleFunc("GET /sim/sessions/{id}/truth", s.serveTruth)
	s.mux.HandleFunc("GET /sim/sessions", s.serveList)
	s.mux.HandleFunc("GET /sim/options", serveOptions)
	return s, nil
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

// Clock returns the server-monotonic clock truth times are read from.
func (s *Server) Clock() Clock { return s.clock }

// Close ends every live session (websocket close 1001) and waits for their
// goroutines. New sessions are refused afterwards.
func (s *Server) Close() error {
	s.closed.Store(true)
	s.cancel()
	s.wg.Wait()
	return nil
}

// Truth returns a copy of a session's truth (ok false when unknown or evicted).
func (s *Server) Truth(id string) (Truth, bool) {
	rec := s.truths.get(id)
	if rec == nil {
		return Truth{}, false
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	b, _ := json.Marshal(&rec.t)
	var t Truth
	_ = json.Unmarshal(b, &t)
	return t, true
}

func (s *Server) serveTruth(w http.ResponseWriter, r *http.Request) {
	rec := s.truths.get(r.PathValue("id"))
	if rec == nil {
		http.Error(w, "unknown session (the simulator keeps the last sessions only)", http.StatusNotFound)
		return
	}
	b, err := rec.snapshot()
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write(b)
}

func (s *Server) serveList(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"sessions": s.truths.ids()})
}

// newSessionID returns a unique session id and the session's ordinal.
// named is one entry of GET /sim/options.
type named struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

// serveOptions lists profiles, faults and behaviours (for the page's menus).
func serveOptions(w http.ResponseWriter, _ *http.Request) {
	var profiles, faults, behaviors []named
	for _, p := range Profiles() {
		sc, _ := Profile(p)
		profiles = append(profiles, named{p, sc.Description})
	}
	for _, f := range Faults() {
		faults = append(faults, named{f[0], f[1]})
	}
	for _, b := range Behaviors() {
		behaviors = append(behaviors, named{b[0], b[1]})
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"default_profile": DefaultProfile, "profiles": profiles, "faults": faults,
		"behaviors": behaviors, "event_names": []string{EventNamesCurrent, EventNamesLegacy}})
}

func (s *Server) newSessionID() (string, uint64) {
	var b [6]byte
	_, _ = rand.Read(b[:])
	n := s.n.Add(1)
	return fmt.Sprintf("duplex-%d%s", n, hex.EncodeToString(b[:])), n
}

func (s *Server) serveWS(w http.ResponseWriter, r *http.Request) {
	if s.closed.Load() {
		http.Error(w, "simulator shutting down", http.StatusServiceUnavailable)
		return
	}
	cfg, err := s.opts.resolve(s.base, r.URL.Query())
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	// Reserve a session slot before upgrading: over the cap is an HTTP
	// error the client can read, not a dropped websocket.
	if n := s.open.Add(1); n > int64(s.opts.MaxSessions) {
		s.open.Add(-1)
		w.Header().Set("Retry-After", "5")
		http.Error(w, fmt.Sprintf("simulator busy: %d sessions are open, the most it runs at once (--sim-max-sessions); close one or raise the cap", s.opts.MaxSessions), http.StatusServiceUnavailable)
		return
	}
	defer s.open.Add(-1)
	conn, err := websocket.Accept(w, r, &websocket.AcceptOptions{InsecureSkipVerify: true})
	if err != nil {
		return // Accept wrote the HTTP error
	}
	conn.SetReadLimit(MaxFrameBytes)
	s.wg.Add(1)
	defer s.wg.Done()

	id, n := s.newSessionID()
	seed := uint64(cfg.seed)
	if !cfg.seedFixed { // distinct but reproducible per session ordinal
		h := fnv.New64a()
		fmt.Fprintf(h, "%d/%d", cfg.seed, n)
		seed = h.Sum64()
	}
	rec := &truthRec{}
	eng := newEngine(cfg, id, seed, s.clock.Now(), rec)
	eng.others = func() int { return int(max(0, s.open.Load()-1)) }
	s.truths.add(id, rec)

	// The read context is not tied to shutdown: cancelling a coder/websocket
	// Read drops the TCP connection, so shutdown goes through the writer,
	// which sends close 1001 first.
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	(&session{conn: conn, eng: eng, clock: s.clock, wake: make(chan struct{}, 1), shutdown: s.ctx}).run(ctx, cancel)
}

// session runs one websocket: a reader goroutine feeds the engine, this
// goroutine writes its outputs when they are due. Reading never waits for
// writing.
type session struct {
	conn     *websocket.Conn
	eng      *engine
	mu       sync.Mutex // guards eng
	clock    Clock
	wake     chan struct{}
	shutdown context.Context
}

func (ss *session) poke() {
	select {
	case ss.wake <- struct{}{}:
	default:
	}
}

func (ss *session) run(ctx context.Context, cancel context.CancelFunc) {
	readerDone := make(chan struct{})
	go func() {
		defer close(readerDone)
		defer cancel()
		ss.read(ctx)
	}()
	// A frame being written when shutdown starts may finish (cancelling a
	// coder/websocket write drops the connection); a client that stopped
	// reading gets shutdownGrace before its connection is dropped.
	wctx, wcancel := context.WithCancel(ctx)
	var grace *time.Timer
	var graceMu sync.Mutex
	stop := context.AfterFunc(ss.shutdown, func() {
		graceMu.Lock()
		grace = time.AfterFunc(shutdownGrace, wcancel)
		graceMu.Unlock()
	})
	reason := ss.write(wctx)
	stop()
	graceMu.Lock()
	if grace != nil {
		grace.Stop()
	}
	graceMu.Unlock()
	wcancel()
	if ss.shutdown.Err() != nil && reason == "client_gone" {
		reason = "server_shutdown"
	}
	ss.mu.Lock()
	now := ss.clock.Now()
	switch {
	case reason == "server_shutdown":
		ss.eng.transportEnded(now, reason)
		ss.mu.Unlock()
		_ = ss.conn.Close(websocket.StatusGoingAway, "simulator shutting down")
	default:
		ss.eng.transportEnded(now, reason)
		ss.mu.Unlock()
		_ = ss.conn.CloseNow()
	}
	cancel()
	<-readerDone
}

func (ss *session) read(ctx context.Context) {
	for {
		typ, data, err := ss.conn.Read(ctx)
		if err != nil {
			return
		}
		if typ != websocket.MessageText {
			continue // binary frames are never used; ignore them
		}
		ss.mu.Lock()
		now := ss.clock.Now()
		stall := ss.eng.handle(now, data)
		ss.mu.Unlock()
		ss.poke()
		if stall > 0 {
			ch, stop := ss.clock.After(now + stall)
			select {
			case <-ch:
			case <-ctx.Done():
				stop()
				return
			}
		}
	}
}

// write emits due outputs until the session ends; it returns the end reason
// for the truth when the engine did not decide it.
func (ss *session) write(ctx context.Context) string {
	for {
		ss.mu.Lock()
		due := ss.eng.dueItem(ss.clock.Now())
		ss.mu.Unlock()
		if due != nil {
			due.runPrepare() // heavy work before the emit time is read
		}
		ss.mu.Lock()
		out, ok := ss.eng.pop(ss.clock.Now())
		next, hasNext := ss.eng.next()
		ss.mu.Unlock()
		if ok {
			if out.frame != nil {
				if err := ss.send(ctx, out); err != nil {
					return "client_gone"
				}
			}
			switch out.act {
			case actClose:
				_ = ss.conn.Close(websocket.StatusNormalClosure, "")
				return "closed"
			case actClosePolicy:
				_ = ss.conn.Close(websocket.StatusPolicyViolation, "config_timeout")
				return "closed"
			case actDisconnect:
				_ = ss.conn.CloseNow()
				return "disconnect"
			}
			continue
		}
		if hasNext { // prepare the next frame while waiting for it, so it leaves on time
			ss.mu.Lock()
			head := ss.eng.dueItem(next)
			ss.mu.Unlock()
			if head != nil && head.prepare != nil && !head.prepared {
				head.runPrepare()
				continue
			}
		}
		var timer <-chan struct{}
		stop := func() {}
		if hasNext {
			timer, stop = ss.clock.After(next)
		}
		select {
		case <-timer:
		case <-ss.wake:
		case <-ss.shutdown.Done():
			stop()
			return "server_shutdown"
		case <-ctx.Done():
			stop()
			return "client_gone"
		}
		stop()
	}
}

// slowChunk and slowPause shape the slow_writer fault.
const (
	slowChunk = 1024
	slowPause = 20 * time.Millisecond
)

func (ss *session) send(ctx context.Context, out output) error {
	if !out.slow {
		return ss.conn.Write(ctx, websocket.MessageText, out.frame)
	}
	w, err := ss.conn.Writer(ctx, websocket.MessageText)
	if err != nil {
		return err
	}
	for b := out.frame; len(b) > 0; {
		n := min(slowChunk, len(b))
		if _, err := w.Write(b[:n]); err != nil {
			return err
		}
		b = b[n:]
		if len(b) > 0 {
			ch, stop := ss.clock.After(ss.clock.Now() + slowPause)
			select {
			case <-ch:
			case <-ctx.Done():
				stop()
				return ctx.Err()
			}
		}
	}
	return w.Close()
}

// Routes lists the paths to mount the Server on: mux.Handle(p, srv) for each.
func Routes() []string { return []string{"/v1/realtime", "/sim/"} }
