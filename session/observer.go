package session

import (
	"sync"

	"github.com/duplexscope/duplexscope/trace"
)

// State is a lifecycle stage of a Session.
type State string

// Lifecycle states, in order (StateFailed may follow any of them).
const (
	StateConnecting State = "connecting" // dialing and waiting for session.created
	StateOpen       State = "open"       // session.created received
	StateStreaming  State = "streaming"  // first input append sent (stream start)
	StateCommitted  State = "committed"  // final commit sent
	StateClosing    State = "closing"    // session.close sent
	StateDone       State = "done"       // socket closed after a complete session
	StateFailed     State = "failed"     // ended with an error (err is non-nil)
)

// Observer receives a session's wire-log entries and lifecycle changes.
// Calls come from one goroutine per session, serially and in log order, never
// from the receive loop: a slow observer delays only other observers.
type Observer interface {
	// OnEvent gets every wire-log entry ("send", "recv", "local") as it is
	// appended; ev.TMs is on the session's Clock. rx is the session's one
	// decode of a received JSON object (nil for every other entry); its
	// PCM is decoded on first use, once for all observers.
	OnEvent(ev trace.Event, rx *Received)
	// OnState gets each lifecycle change; err is set for StateFailed.
	OnState(st State, err error)
}

// ObserverFuncs adapts functions to Observer; nil fields are skipped.
type ObserverFuncs struct {
	Event func(trace.Event, *Received)
	State func(State, error)
}

// OnEvent implements Observer.
func (o ObserverFuncs) OnEvent(ev trace.Event, rx *Received) {
	if o.Event != nil {
		o.Event(ev, rx)
	}
}

// OnState implements Observer.
func (o ObserverFuncs) OnState(st State, err error) {
	if o.State != nil {
		o.State(st, err)
	}
}

// dispatcher fans entries out to observers from its own goroutine through an
// unbounded queue, so publishing never blocks.
type dispatcher struct {
	obs  []Observer
	mu   sync.Mutex
	q    []item
	wake chan struct{}
	done chan struct{}
	shut bool
}

type item struct {
	ev    trace.Event
	rx    *Received
	state State
	err   error
}

func newDispatcher(obs []Observer) *dispatcher {
	d := &dispatcher{obs: obs, wake: make(chan struct{}, 1), done: make(chan struct{})}
	if len(obs) == 0 {
		close(d.done)
		return d
	}
	go d.loop()
	return d
}

func (d *dispatcher) push(it item) {
	if len(d.obs) == 0 {
		return
	}
	d.mu.Lock()
	if d.shut {
		d.mu.Unlock()
		return
	}
	d.q = append(d.q, it)
	d.mu.Unlock()
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

// close delivers what is queued, stops the goroutine and waits for it.
func (d *dispatcher) close() {
	if len(d.obs) == 0 {
		return
	}
	d.mu.Lock()
	already := d.shut
	d.shut = true
	d.mu.Unlock()
	if !already {
		select {
		case d.wake <- struct{}{}:
		default:
		}
	}
	<-d.done
}

func (d *dispatcher) loop() {
	defer close(d.done)
	for {
		<-d.wake
		for {
			d.mu.Lock()
			q, shut := d.q, d.shut
			d.q = nil
			d.mu.Unlock()
			if len(q) == 0 {
				if shut {
					return
				}
				break
			}
			for _, it := range q {
				for _, o := range d.obs {
					if it.state != "" {
						o.OnState(it.state, it.err)
					} else {
						o.OnEvent(it.ev, it.rx)
					}
				}
			}
		}
	}
}
