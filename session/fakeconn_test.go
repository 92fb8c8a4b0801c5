package session

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"
)

// fakeServer is an in-memory scripted duplex server: a Conn whose writes go
// to script, which answers by calling emit. Receive stamps come from the
// session's clock when the session reads, as with the coder transport.
type fakeServer struct {
	clock  Clock
	script func(fs *fakeServer, ev map[string]any)

	mu        sync.Mutex
	out       [][]byte
	wake      chan struct{}
	closed    bool
	drop      bool // Read fails as if the transport dropped
	got       []map[string]any
	delivered int
}

// quiesce returns a FakeClock.Settle hook that waits until every emitted
// message was read and handled by s (*s is set after Dial).
func (f *fakeServer) quiesce(s **Session) func() {
	return func() {
		for {
			f.mu.Lock()
			pending, delivered, gone := len(f.out), f.delivered, f.closed || f.drop
			f.mu.Unlock()
			if *s == nil {
				return
			}
			if gone {
				for {
					f.mu.Lock()
					closed := f.closed
					f.mu.Unlock()
					(*s).mu.Lock()
					done := (*s).readErr != nil || closed
					(*s).mu.Unlock()
					if done {
						return
					}
					time.Sleep(50 * time.Microsecond)
				}
			}
			(*s).mu.Lock()
			handled := (*s).handled
			(*s).mu.Unlock()
			if pending == 0 && handled == delivered {
				return
			}
			time.Sleep(50 * time.Microsecond)
		}
	}
}

// runFake is Run with the fake clock made to wait for quiescence.
func runFake(c *FakeClock, srv *fakeServer, cfg *Config, pcm []byte) (*Result, error) {
	var s *Session
	c.Settle = srv.quiesce(&s)
	s, err := Dial(context.Background(), cfg)
	if err != nil {
		return nil, err
	}
	if err := s.Stream(context.Background(), pcm); err != nil {
		s.Fail(err)
	} else if err := s.Wait(context.Background()); err != nil {
		s.Fail(err)
	}
	return s.Close(context.Background())
}

func newFakeServer(script func(fs *fakeServer, ev map[string]any)) *fakeServer {
	return &fakeServer{script: script, wake: make(chan struct{}, 1)}
}

func (f *fakeServer) dialer() func(context.Context, string, Clock) (Conn, error) {
	return func(_ context.Context, _ string, c Clock) (Conn, error) {
		f.clock = c
		return f, nil
	}
}

func (f *fakeServer) emit(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	f.emitRaw(b)
}

func (f *fakeServer) emitRaw(b []byte) { f.update(func() { f.out = append(f.out, b) }) }

func (f *fakeServer) dropNow() { f.update(func() { f.drop = true }) }

// update changes the server's state under its lock and wakes its reader.
func (f *fakeServer) update(change func()) {
	f.mu.Lock()
	change()
	f.mu.Unlock()
	select {
	case f.wake <- struct{}{}:
	default:
	}
}

func (f *fakeServer) received(typ string) []map[string]any {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []map[string]any
	for _, ev := range f.got {
		if ev["type"] == typ {
			out = append(out, ev)
		}
	}
	return out
}

func (f *fakeServer) Write(_ context.Context, b []byte) error {
	var ev map[string]any
	if err := json.Unmarshal(b, &ev); err != nil {
		return err
	}
	f.mu.Lock()
	if f.closed || f.drop {
		f.mu.Unlock()
		return errors.New("fake: write on closed conn")
	}
	f.got = append(f.got, ev)
	f.mu.Unlock()
	if f.script != nil {
		f.script(f, ev)
	}
	return nil
}

func (f *fakeServer) Read(ctx context.Context) (Message, error) {
	for {
		f.mu.Lock()
		if len(f.out) > 0 {
			b := f.out[0]
			f.out = f.out[1:]
			f.delivered++
			f.mu.Unlock()
			return Message{Data: b, At: f.clock.Now()}, nil
		}
		closed, drop := f.closed, f.drop
		f.mu.Unlock()
		if drop {
			return Message{}, errors.New("fake: connection reset")
		}
		if closed {
			return Message{}, errors.New("fake: closed")
		}
		select {
		case <-f.wake:
		case <-ctx.Done():
			return Message{}, ctx.Err()
		}
	}
}

func (f *fakeServer) Close(int, string) error {
	f.update(func() { f.closed = true })
	return nil
}

// happyScript answers like a minimal conforming server: session.created with
// chunk_period_ms, one response per commit (created, transcript, two 100 ms
// audio deltas, done), session.closed on close.
func happyScript(chunkMs int) func(fs *fakeServer, ev map[string]any) {
	audio100 := make([]byte, 4800)
	b64 := func(b []byte) string { return base64Std(b) }
	return func(fs *fakeServer, ev map[string]any) {
		switch ev["type"] {
		case "session.update":
			fs.emit(map[string]any{"type": "session.created", "session": map[string]any{"id": "sess_1", "capabilities": map[string]any{"chunk_period_ms": chunkMs}}})
		case "input_audio_buffer.commit":
			fs.emit(map[string]any{"type": "input_audio_buffer.committed", "item_id": "item_1", "event": map[string]any{"type": "input.committed", "input_commit_seq": 1}})
			fs.emit(map[string]any{"type": "response.created", "response_id": "r1", "response": map[string]any{"id": "r1", "status": "in_progress"}})
			fs.emit(map[string]any{"type": "response.output_audio_transcript.delta", "response_id": "r1", "delta": "hi"})
			fs.emit(map[string]any{"type": "response.output_audio.delta", "response_id": "r1", "delta": b64(audio100), "sample_rate_hz": 24000, "metadata": map[string]any{"audio_duration_ms": 100}})
			fs.emit(map[string]any{"type": "response.output_audio.delta", "response_id": "r1", "delta": b64(audio100), "sample_rate_hz": 24000, "metadata": map[string]any{"audio_duration_ms": 200}})
			fs.emit(map[string]any{"type": "response.output_audio.done", "response_id": "r1"})
			fs.emit(map[string]any{"type": "response.done", "response_id": "r1", "response": map[string]any{"id": "r1", "status": "completed"}})
		case "session.close":
			fs.emit(map[string]any{"type": "session.closed", "reason": "client_close"})
		}
	}
}
