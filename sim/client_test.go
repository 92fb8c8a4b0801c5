//go:build !js

package sim

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/duplexscope/duplexscope/internal/testkit"
)

// speechPCM returns 16 kHz PCM16 bytes: for each (speechMs, silenceMs)
// pair a 200 Hz tone at −12 dBFS with vibrato, then digital silence.
func speechPCM(turns ...[2]int) []byte {
	var out []byte
	n := 0
	for _, t := range turns {
		for i := 0; i < t[0]*16; i++ {
			x := 0.25 * math.Sin(2*math.Pi*200*float64(n)/16000+0.3*math.Sin(float64(n)/900))
			out = binary.LittleEndian.AppendUint16(out, uint16(int16(x*32767)))
			n++
		}
		for i := 0; i < t[1]*16; i++ {
			out = append(out, 0, 0)
			n++
		}
	}
	return out
}

// rawClient is a duplex client written only from docs/protocol.md: plain
// websocket + JSON maps, no duplexscope packages.
type rawClient struct {
	t    testing.TB
	conn *websocket.Conn
	recv chan map[string]any
	raw  chan []byte
	err  chan error
}

func dialRaw(ctx context.Context, t testing.TB, srvURL, query string) *rawClient {
	t.Helper()
	u := "ws" + strings.TrimPrefix(srvURL, "http") + "/v1/realtime?duplex=1&autostart=0&model=test-model"
	if query != "" {
		u += "&" + query
	}
	conn, _, err := websocket.Dial(ctx, u, nil)
	if err != nil {
		t.Fatalf("dial %s: %v", u, err)
	}
	conn.SetReadLimit(64 << 20)
	c := &rawClient{t: t, conn: conn, recv: make(chan map[string]any, 4096), raw: make(chan []byte, 4096), err: make(chan error, 1)}
	go func() {
		defer close(c.recv)
		for {
			_, b, err := conn.Read(ctx)
			if err != nil {
				c.err <- err
				return
			}
			c.raw <- b
			var m map[string]any
			if json.Unmarshal(b, &m) != nil {
				m = map[string]any{"type": "<malformed>"}
			}
			c.recv <- m
		}
	}()
	return c
}

func (c *rawClient) send(ctx context.Context, v map[string]any) {
	if err := c.write(ctx, v); err != nil {
		c.t.Fatal(err)
	}
}

func (c *rawClient) write(ctx context.Context, v map[string]any) error {
	b, _ := json.Marshal(v)
	if err := c.conn.Write(ctx, websocket.MessageText, b); err != nil {
		return fmt.Errorf("send %v: %w", v["type"], err)
	}
	return nil
}

// until reads events until pred returns true, returning them all.
func (c *rawClient) until(ctx context.Context, pred func(m map[string]any) bool) ([]map[string]any, error) {
	var got []map[string]any
	for {
		select {
		case m, ok := <-c.recv:
			if !ok {
				return got, errors.New("connection ended")
			}
			got = append(got, m)
			if pred(m) {
				return got, nil
			}
		case <-ctx.Done():
			return got, ctx.Err()
		}
	}
}

func typeIs(t string) func(map[string]any) bool {
	return func(m map[string]any) bool { return m["type"] == t }
}

func str(m map[string]any, path ...string) string {
	var v any = m
	for _, p := range path {
		mm, ok := v.(map[string]any)
		if !ok {
			return ""
		}
		v = mm[p]
	}
	s, _ := v.(string)
	return s
}

func num(m map[string]any, path ...string) (float64, bool) {
	var v any = m
	for _, p := range path {
		mm, ok := v.(map[string]any)
		if !ok {
			return 0, false
		}
		v = mm[p]
	}
	f, ok := v.(float64)
	return f, ok
}

func sessionUpdate() map[string]any {
	return map[string]any{"type": "session.update", "event_id": "evt_open", "session": map[string]any{
		"model": "test-model", "modalities": []string{"audio", "text"}, "input_audio_format": "pcm16", "output_audio_format": "pcm16",
		"sample_rate_hz": 16000, "audio": map[string]any{"input": map[string]any{"sample_rate_hz": 16000}, "output": map[string]any{"sample_rate_hz": 24000}},
		"turn_detection": nil, "instructions": "Streaming Omni Conversation.", "overlap_policy": "listen_only", "playback_commit_policy": "ack_only",
		"extra_body": map[string]any{"auto_response": true, "force_listen_count": 0, "return_stage_metrics": true}}}
}

// streamPCM sends pcm as 200 ms appends with benchmark-style fields,
// without real-time pacing (the simulator's input clock is byte-based).
func (c *rawClient) streamPCM(ctx context.Context, pcm []byte, chunk int) {
	if err := c.tryStreamPCM(ctx, pcm, chunk); err != nil {
		c.t.Fatal(err)
	}
}

// tryStreamPCM sends pcm as appends until a write fails, and returns that
// error.
func (c *rawClient) tryStreamPCM(ctx context.Context, pcm []byte, chunk int) error {
	end := 0
	for off := 0; off < len(pcm); off += chunk {
		b := pcm[off:min(off+chunk, len(pcm))]
		end += len(b)
		if err := c.write(ctx, map[string]any{"type": "input_audio_buffer.append", "event_id": fmt.Sprintf("evt_a%d", off),
			"audio": base64.StdEncoding.EncodeToString(b), "input_audio_format": "pcm16", "format": "pcm16", "sample_rate_hz": 16000,
			"duration_ms": len(b) * 1000 / 32000, "audio_end_ms": end * 1000 / 32000}); err != nil {
			return err
		}
	}
	return nil
}

func newTestServer(t testing.TB, opts *Options) (*Server, *httptest.Server) {
	t.Helper()
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return s, testkit.Serve(t, s, s)
}

// newManualServer starts a ProfileTest simulator on a manual clock at 0,
// with a context that ends after timeout or with the test.
func newManualServer(t testing.TB, timeout time.Duration) (*ManualClock, *httptest.Server, context.Context) {
	t.Helper()
	clk := NewManualClock(0)
	_, hs := newTestServer(t, &Options{Profile: ProfileTest, Clock: clk})
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	t.Cleanup(cancel)
	return clk, hs, ctx
}

// TestRawClientFullSession runs a whole session the way vLLM-Omni's Python
// client does (handshake, streamed input, final commit, completion rule,
// acks, session.close) and checks it receives audio and metrics and ends
// with session.closed and close code 1000.
func TestRawClientFullSession(t *testing.T) {
	t.Parallel()
	srv, hs := newTestServer(t, &Options{Profile: ProfileTest})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c := dialRaw(ctx, t, hs.URL, "")
	c.send(ctx, sessionUpdate())
	evs, err := c.until(ctx, typeIs("session.created"))
	if err != nil {
		t.Fatalf("handshake: %v (%v)", err, evs)
	}
	created := evs[len(evs)-1]
	sid := str(created, "session", "id")
	if sid == "" || str(created, "session", "model") != "test-model" {
		t.Fatalf("session.created = %v", created)
	}
	if v, _ := num(created, "session", "capabilities", "chunk_period_ms"); v != 1000 {
		t.Errorf("chunk_period_ms = %v", v)
	}
	pcm := speechPCM([2]int{600, 400}, [2]int{500, 400}, [2]int{700, 300})
	c.streamPCM(ctx, pcm, 6400)
	c.send(ctx, map[string]any{"type": "input_audio_buffer.commit", "final": true})

	// Completion: committed, every created done, a post-commit decision.
	open := map[string]bool{}
	openAtCommit := map[string]bool{}
	var all []map[string]any
	committed, decided := false, false
	audio := map[string]int{}
	var rrmSeen int
	for !(committed && decided && len(open) == 0) {
		evs, err := c.until(ctx, func(map[string]any) bool { return true })
		if err != nil {
			t.Fatalf("waiting for completion: %v", err)
		}
		m := evs[0]
		all = append(all, m)
		rid := str(m, "response_id")
		switch m["type"] {
		case "response.created":
			open[rid] = true
		case "response.done":
			if !open[rid] {
				t.Fatalf("response.done without open response.created: %v", m)
			}
			delete(open, rid)
			if committed && !openAtCommit[rid] && str(m, "response", "status") != "cancelled" {
				decided = true
			}
		case "response.listen":
			if committed && rid != "" && m["response"].(map[string]any)["metadata"].(map[string]any)["model_listen"] == true {
				decided = true
			}
		case "input_audio_buffer.committed":
			committed = true
			for id := range open {
				openAtCommit[id] = true
			}
		case "response.output_audio.delta":
			b, err := base64.StdEncoding.DecodeString(str(m, "delta"))
			if err != nil || len(b)%2 != 0 {
				t.Fatalf("bad audio payload: %v", err)
			}
			audio[rid] += len(b)
			if _, ok := num(m, "metadata", "vllm_omni", "response_request_metrics", "ttfp_ms"); ok {
				rrmSeen++
			}
			c.send(ctx, map[string]any{"type": "playback.ack", "response_id": rid, "item_id": "item_" + rid,
				"played_ms": audio[rid] * 1000 / 48000, "committed_ms": audio[rid] * 1000 / 48000})
		case "error":
			t.Fatalf("error event: %v", m)
		}
	}
	// Input is streamed faster than real time, so turns that end while a
	// response plays are answered together afterwards: ≥ 1 spoken response.
	if len(audio) < 1 || rrmSeen < len(audio) {
		t.Errorf("responses with audio = %d, deltas with ttfp_ms = %d", len(audio), rrmSeen)
	}
	c.send(ctx, map[string]any{"type": "session.close"})
	evs, err = c.until(ctx, typeIs("session.closed"))
	if err != nil {
		t.Fatalf("waiting for session.closed: %v", err)
	}
	if cl := evs[len(evs)-1]; str(cl, "reason") != "client_close" || str(cl, "session_id") != sid {
		t.Errorf("session.closed = %v", cl)
	}
	for range c.recv {
	}
	var ce websocket.CloseError
	if err := <-c.err; !errors.As(err, &ce) || ce.Code != websocket.StatusNormalClosure {
		t.Errorf("close: %v, want 1000", err)
	}
	tr, ok := srv.Truth(sid)
	nCreated := 0
	for _, m := range all {
		if m["type"] == "response.created" {
			nCreated++
		}
	}
	if !ok || tr.EndReason != "client_close" || len(tr.Responses) != nCreated {
		t.Errorf("truth: ok=%v end=%q responses=%d, client saw %d created", ok, tr.EndReason, len(tr.Responses), nCreated)
	}
}
