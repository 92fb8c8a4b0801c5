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
	now := func() float64 { return float64(time.Since(origin)) / 1e6 }
	upd, err := protocol.Marshal(protocol.NewBenchmarkSessionUpdate(protocol.BenchmarkSession{Model: "sim"}))
	if err != nil {
		return nil, err
	}
	if err := conn.Write(ctx, websocket.MessageText, upd); err != nil {
		return nil, fmt.Errorf("bench: bare session.update: %w", err)
	}
	res := &BareResult{}
	for res.SessionID == "" {
		_, b, err := conn.Read(ctx)
		if err != nil {
			return nil, fmt.Errorf("bench: bare handshake: %w", err)
		}
		ev, _ := protocol.Decode(b)
		if sc, ok := ev.(*protocol.SessionCreated); ok && sc.Session != nil {
			res.SessionID = sc.Session.SessionIdentity()
		}
		if ee, ok := ev.(*protocol.ErrorEvent); ok {
			return nil, fmt.Errorf("bench: bare handshake: %s", ee.ErrorMessage())
		}
	}

	var mu sync.Mutex
	open := map[string]bool{} // response id → done
	last := time.Now()
	closed := make(chan struct{})
	readErr := make(chan error, 1)
	go func() {
		for {
			_, b, err := conn.Read(ctx)
			t := now()
			if err != nil {
				readErr <- err
				return
			}
			mu.Lock()
			res.Events = append(res.Events, trace.Event{TMs: t, Dir: trace.DirRecv, Event: b})
			last = time.Now()
			var h struct {
				Type string `json:"type"`
			}
			json.Unmarshal(b, &h)
			if id, ok := protocol.ResponseIdentity(b); ok {
				switch h.Type {
				case protocol.TypeResponseCreated:
					open[id] = false
				case protocol.TypeResponseDone:
					open[id] = true
				}
			}
			mu.Unlock()
			if h.Type == protocol.TypeSessionClosed {
				close(closed)
			}
		}
	}()

	frame := audio.FrameBytes(audio.InputRate, frameMs)
	period := time.Duration(frameMs) * time.Millisecond
	tk := time.NewTicker(period)
	defer tk.Stop()
	start := time.Now()
	for k, off := 0, 0; off < len(pcm); k++ {
		if k > 0 {
			<-tk.C
		}
		lag := time.Since(start) - time.Duration(k)*period
		res.Lags = append(res.Lags, float64(lag)/1e6)
		end := min(off+frame, len(pcm))
		msg, _ := json.Marshal(map[string]string{"type": protocol.TypeInputAudioBufferAppend, "audio": base64.StdEncoding.EncodeToString(pcm[off:end])})
		if err := conn.Write(ctx, websocket.MessageText, msg); err != nil {
			return nil, fmt.Errorf("bench: bare append: %w", err)
		}
		off = end
	}
	if err := conn.Write(ctx, websocket.MessageText, []byte(`{"type":"input_audio_buffer.commit","final":true}`)); err != nil {
		return nil, fmt.Errorf("bench: bare commit: %w", err)
	}
	for {
		select {
		case err := <-readErr:
			return nil, fmt.Errorf("bench: bare read: %w", err)
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
		mu.Lock()
		done := time.Since(last) >= settle
		for _, d := range open {
			done = done && d
		}
		mu.Unlock()
		if done {
			break
		}
	}
	if err := conn.Write(ctx, websocket.MessageText, []byte(`{"type":"session.close"}`)); err != nil {
		return nil, fmt.Errorf("bench: bare close: %w", err)
	}
	select {
	case <-closed:
	case <-time.After(5 * time.Second):
		return nil, errors.New("bench: bare: no session.closed")
	}
	mu.Lock()
	defer mu.Unlock()
	conn.Close(websocket.StatusNormalClosure, "")
	return res, nil
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
	res := FidelityResult{Sessions: n, Start: time.Now()}
	results := make([]*BareResult, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i, pcm := range pcms {
		wg.Add(1)
		go func() {
			defer wg.Done()
			time.Sleep(at(i))
			results[i], errs[i] = BareRun(ctx, s.WS(query), pcm, 200, 2*time.Second)
		}()
	}
	wg.Wait()
	res.Elapsed = time.Since(res.Start)
	for i, r := range results {
		if errs[i] != nil {
			return res, fmt.Errorf("bench: bare session %d of %d: %w", i, n, errs[i])
		}
		tr, err := GetTruth(ctx, s.Base, r.SessionID)
		if err != nil {
			return res, err
		}
		res.Errors.Add(CompareTruth(ReceiveStamps(r.Events), tr))
		res.Lags = append(res.Lags, r.Lags...)
	}
	return res, nil
}
