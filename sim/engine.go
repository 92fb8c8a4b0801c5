//go:build !js

package sim

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"sort"
	"time"

	"github.com/duplexscope/duplexscope/protocol"
)

// Protocol timeouts the simulator applies (docs/protocol.md#timeouts).
const (
	ConfigTimeout      = 10 * time.Second  // first message must be session.update
	DefaultIdleTimeout = 300 * time.Second // when session.update names none
)

type sessionState int

const (
	stAwaiting sessionState = iota
	stOpen
	stClosed
)

// engine is one simulated session as a pure state machine: handle feeds a
// client frame accepted at now; pop returns the next due output at now;
// next tells when the next output is due. It never reads a clock.
type engine struct {
	cfg        *sessionConfig
	sc         *Scenario
	rng        *rand.Rand
	id         string
	idHex      string
	model      string
	truth      *truthRec
	state      sessionState
	queue      outputQueue
	seq        int
	eventSeq   uint64
	opened     time.Duration
	handshaken bool // created sent (or scheduled)

	inRate, outRate int
	inBytes         int64
	sinceCommit     int64
	commitSeq       int
	lastItemID      *string
	vad             vad
	turns           turnClock
	serverVAD       bool
	stageMetrics    bool
	idle            time.Duration
	lastInput       time.Duration

	responseCount int
	responses     map[string]*response
	active        *response
	pending       bool // a user turn ended while a response was active

	firstSpeak  *response // the session's first spoken response (fault anchor)
	firstDone   bool
	closing     bool          // session.close accepted: only session.closed follows
	replay      replayLog     // replayed_events
	bargeArmed  bool          // ignores_backchannels: user speech during a response, not yet long enough to truncate
	stall       time.Duration // stalled_reader: how long handle asks the reader to stop
	speechItems int           // server-VAD input items
	// others counts the other sessions open on the simulator (contended).
	others func() int
	video  videoState // video_frames bookkeeping (video.go)
}

func newEngine(cfg *sessionConfig, id string, seed uint64, now time.Duration, truth *truthRec) *engine {
	h := fnv.New64a()
	h.Write([]byte(id))
	e := &engine{
		cfg: cfg, sc: &cfg.sc, id: id, idHex: fmt.Sprintf("%016x", h.Sum64()), truth: truth,
		rng:    rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15)),
		opened: now, inRate: protocol.DefaultInputRateHz, outRate: protocol.DefaultOutputRateHz,
		responses: map[string]*response{}, idle: DefaultIdleTimeout, lastInput: now,
	}
	e.video.frameMs = cfg.videoFrameMs
	e.model = cfg.queryModel
	if e.model == "" {
		e.model = cfg.sc.Model
	}
	e.vad = vad{cfg: cfg.sc.VAD, rate: e.inRate}
	e.turns = newTurnClock(&cfg.sc)
	truth.mu.Lock()
	truth.t = Truth{SessionID: id, Profile: cfg.sc.Name, Faults: cfg.faults.list(), Behaviors: keys(cfg.behaviors),
		EventNames: EventNamesCurrent, OpenedMs: msOf(now), Responses: []TruthResponse{}, Events: []TruthEvent{}}
	if cfg.legacy {
		truth.t.EventNames = EventNamesLegacy
	}
	truth.mu.Unlock()
	return e
}

func keys(m map[string]bool) []string {
	out := []string{}
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func (e *engine) fault(name string) bool { return e.cfg.faults[name] }

// schedule inserts an item keeping (at, seq) order.
func (e *engine) schedule(at time.Duration, r *response, cancellable bool, render func(time.Duration) ([]byte, action)) *item {
	e.seq++
	return e.scheduleSeq(at, e.seq, r, cancellable, render)
}

// scheduleSeq inserts an item with a sequence number reserved earlier.
func (e *engine) scheduleSeq(at time.Duration, seq int, r *response, cancellable bool, render func(time.Duration) ([]byte, action)) *item {
	it := &item{at: at, seq: seq, resp: r, cancellable: cancellable, render: render}
	e.queue.insert(it)
	return it
}

// dueItem returns the item pop would render at now, if any, so the writer
// can run its prepare step (PCM synthesis, base64) before reading the emit
// time, keeping heavy work out of the stamp-to-write interval.
func (e *engine) dueItem(now time.Duration) *item {
	if e.state == stClosed {
		return nil
	}
	return e.queue.due(now)
}

// next returns when the next output (or deadline) is due.
func (e *engine) next() (time.Duration, bool) {
	if e.state == stClosed {
		return 0, false
	}
	var t time.Duration
	ok := false
	consider := func(d time.Duration) {
		if !ok || d < t {
			t, ok = d, true
		}
	}
	if len(e.queue) > 0 {
		consider(e.queue[0].at)
	}
	switch e.state {
	case stAwaiting:
		consider(e.opened + ConfigTimeout)
	case stOpen:
		consider(e.lastInput + e.idle)
	}
	return t, ok
}

// pop returns the next output due at now, rendering it at now.
func (e *engine) pop(now time.Duration) (output, bool) {
	for {
		if e.state == stClosed {
			return output{}, false
		}
		if e.state == stAwaiting && now >= e.opened+ConfigTimeout && !e.handshaken {
			e.state = stClosed
			f := e.errorFrame(now, protocol.CodeConfigTimeout, "Timeout waiting for session.update", "")
			e.end(now, "config_timeout")
			return output{frame: f, act: actClosePolicy}, true
		}
		if e.state == stOpen && now >= e.lastInput+e.idle {
			e.state = stClosed
			f := e.emit(now, &protocol.SessionStatus{ServerHeader: e.header(protocol.TypeSessionExpired), SessionID: e.id, Reason: "idle_timeout"}, "")
			e.end(now, "idle_timeout")
			return output{frame: f, act: actClose}, true
		}
		if e.queue.due(now) == nil {
			return output{}, false
		}
		it := e.queue.take()
		f, act := it.render(now)
		if f == nil && act == actNone {
			continue
		}
		if f != nil && e.fault(FaultReplayedEvents) && !it.replay {
			e.remember(now, f)
		}
		return output{frame: f, act: act, slow: e.fault(FaultSlowWriter)}, true
	}
}

// end records the session end in the truth.
func (e *engine) end(now time.Duration, reason string) {
	e.truth.mu.Lock()
	defer e.truth.mu.Unlock()
	if e.truth.t.EndedMs == nil {
		ms := msOf(now)
		e.truth.t.EndedMs, e.truth.t.EndReason = &ms, reason
	}
}

// transportEnded records an end the engine did not decide (client gone,
// server shutdown).
func (e *engine) transportEnded(now time.Duration, reason string) {
	e.state = stClosed
	e.end(now, reason)
}
