//go:build !js

package bench

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/duplexscope/duplexscope/audio"
	"github.com/duplexscope/duplexscope/protocol"
	"github.com/duplexscope/duplexscope/trace"
)

// BareResult is what one bare-client session recorded.
type BareResult struct {
	SessionID string
	Events    []trace.Event // recv events stamped right after conn.Read returns
	Lags      []float64     // send lag per frame vs the absolute schedule, ms
}

// BareRun is the baseline client: coder/websocket with no session driver
// around it. It sends session.update, waits for session.created, sends pcm
// in frameMs appends paced by a naive time.Ticker, a final commit, waits
// until every response is done and nothing arrived for settle, then closes.
// Every received message is stamped with time.Since(origin) the moment Read
// returns (no JSON work before the stamp).
func BareRun(ctx context.Context, wsURL string, pcm []byte, frameMs int, settle time.Duration) (*BareResult, error) {
	u, err := protocol.BuildRealtimeURL(wsURL, map[string][]string{"model": {"sim"}})
	if err != nil {
		return nil, err
	}
	// Regression: a fixed 5-minute bound killed the 10-minute pacing
	// baseline mid-stream; the bound is the input's length plus 2 minutes.
	ctx, cancel := context.WithTimeout(ctx, audio.BytesToDuration(len(pcm), audio.InputRate)+2*time.Minute)
	defer cancel()
	conn, _, err := websocket.Dial(ctx, u, nil)
	if err != nil {
		return nil, fmt.Errorf("bench: bare dial: %w", err)
	}
	defer conn.CloseNow()
	conn.SetReadLimit(64 << 20)
	origin := time.Now()
	res := &BareResult{}
	if res.SessionID, err = bareHandshake(ctx, conn); err != nil {
		return nil, err
	}
	rd := &bareReader{res: res, origin: origin, open: responsesDone{}, last: time.Now(), closed: make(chan struct{}), err: make(chan error, 1)}
	go rd.run(ctx, conn)
	if res.Lags, err = barePace(ctx, conn, pcm, frameMs); err != nil {
		return nil, err
	}
	if err := conn.Write(ctx, websocket.MessageText, []byte(`{"type":"input_audio_buffer.commit","final":true}`)); err != nil {
		return nil, fmt.Errorf("bench: bare commit: %w", err)
	}
	if err := rd.awaitSettled(ctx, settle); err != nil {
		return nil, err
	}
	if err := conn.Write(ctx, websocket.MessageText, []byte(`{"type":"session.close"}`)); err != nil {
		return nil, fmt.Errorf("bench: bare close: %w", err)
	}
	select {
	case <-rd.closed:
	case <-time.After(5 * time.Second):
		return nil, errors.New("bench: bare: no session.closed")
	}
	rd.mu.Lock()
	defer rd.mu.Unlock()
	conn.Close(websocket.StatusNormalClosure, "")
	return res, nil
}

// bareHandshake sends session.update and returns the session id of the
// session.created that answers it.
func bareHandshake(ctx context.Context, conn *websocket.Conn) (string, error) {
	upd, err := protocol.Marshal(protocol.NewBenchmarkSessionUpdate(protocol.BenchmarkSession{Model: "sim"}))
	if err != nil {
		return "", err
	}
	if err := conn.Write(ctx, websocket.MessageText, upd); err != nil {
		return "", fmt.Errorf("bench: bare session.update: %w", err)
	}
	for {
		_, b, err := conn.Read(ctx)
		if err != nil {
			return "", fmt.Errorf("bench: bare handshake: %w", err)
		}
		ev, _ := protocol.Decode(b)
		if sc, ok := ev.(*protocol.SessionCreated); ok && sc.Session != nil {
			if id := sc.Session.SessionIdentity(); id != "" {
				return id, nil
			}
		}
		if ee, ok := ev.(*protocol.ErrorEvent); ok {
			return "", fmt.Errorf("bench: bare handshake: %s", ee.ErrorMessage())
		}
	}
}

// bareReader records every message after the handshake and tracks which
// responses are done, so the client knows when the server has settled.
type bareReader struct {
	mu     sync.Mutex
	res    *BareResult
	origin time.Time
	open   responsesDone
	last   time.Time // when the last message arrived
	closed chan struct{}
	err    chan error
}

func (r *bareReader) run(ctx context.Context, conn *websocket.Conn) {
	for {
		_, b, err := conn.Read(ctx)
		t := float64(time.Since(r.origin)) / 1e6
		if err != nil {
			r.err <- err
			return
		}
		r.mu.Lock()
		r.res.Events = append(r.res.Events, trace.Event{TMs: t, Dir: trace.DirRecv, Event: b})
		r.last = time.Now()
		typ := r.open.observe(b)
		r.mu.Unlock()
		if typ == protocol.TypeSessionClosed {
			close(r.closed)
		}
	}
}

// awaitSettled returns once every response is done and nothing arrived for
// settle, or with the reader's error.
func (r *bareReader) awaitSettled(ctx context.Context, settle time.Duration) error {
	for {
		select {
		case err := <-r.err:
			return fmt.Errorf("bench: bare read: %w", err)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
		r.mu.Lock()
		done := time.Since(r.last) >= settle && r.open.allDone()
		r.mu.Unlock()
		if done {
			return nil
		}
	}
}

// responsesDone maps a response id to whether its response.done arrived.
type responsesDone map[string]bool

// observe notes a response's creation or end in b and returns b's type.
func (m responsesDone) observe(b []byte) string {
	var h struct {
		Type string `json:"type"`
	}
	json.Unmarshal(b, &h)
	if id, ok := protocol.ResponseIdentity(b); ok {
		switch h.Type {
		case protocol.TypeResponseCreated:
			m[id] = false
		case protocol.TypeResponseDone:
			m[id] = true
		}
	}
	return h.Type
}

func (m responsesDone) allDone() bool {
	for _, done := range m {
		if !done {
			return false
		}
	}
	return true
}

// barePace sends pcm in frameMs appends on a naive ticker and returns each
// frame's lag behind the absolute schedule, ms.
func barePace(ctx context.Context, conn *websocket.Conn, pcm []byte, frameMs int) ([]float64, error) {
	frame := audio.FrameBytes(audio.InputRate, frameMs)
	period := time.Duration(frameMs) * time.Millisecond
	tk := time.NewTicker(period)
	defer tk.Stop()
	start := time.Now()
	var lags []float64
	for k, off := 0, 0; off < len(pcm); k++ {
		if k > 0 {
			<-tk.C
		}
		lag := time.Since(start) - time.Duration(k)*period
		lags = append(lags, float64(lag)/1e6)
		end := min(off+frame, len(pcm))
		msg, _ := json.Marshal(map[string]string{"type": protocol.TypeInputAudioBufferAppend, "audio": base64.StdEncoding.EncodeToString(pcm[off:end])})
		if err := conn.Write(ctx, websocket.MessageText, msg); err != nil {
			return nil, fmt.Errorf("bench: bare append: %w", err)
		}
		off = end
	}
	return lags, nil
}

// RunBare runs n concurrent bare sessions (the baseline of RunSessions).
func RunBare(ctx context.Context, s *Sim, query string, n int, d, stagger time.Duration) (FidelityResult, error) {
	pcms, err := inputs(n, d)
	if err != nil {
		return FidelityResult{Sessions: n}, err
	}
	return runBare(ctx, s, query, pcms, slots(n, stagger, 0))
}

func runBare(ctx context.Context, s *Sim, query string, pcms [][]byte, at func(i int) time.Duration) (FidelityResult, error) {
	n := len(pcms)
	res, results, errs := staggered(pcms, at, func(_ int, pcm []byte) (*BareResult, error) {
		return BareRun(ctx, s.WS(query), pcm, 200, 2*time.Second)
	})
	for i, r := range results {
		if errs[i] != nil {
			return res, fmt.Errorf("bench: bare session %d of %d: %w", i, n, errs[i])
		}
		truth, err := GetTruth(ctx, s.Base, r.SessionID)
		if err != nil {
			return res, err
		}
		res.Errors.Add(CompareTruth(ReceiveStamps(r.Events), truth))
		res.Lags = append(res.Lags, r.Lags...)
	}
	return res, nil
}
