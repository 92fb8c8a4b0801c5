//go:build !js

package sim

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// TestParamBounds: every per-session parameter outside its documented
// range (or not finite) is refused, naming the parameter; the edges pass.
func TestParamBounds(t *testing.T) {
	t.Parallel()
	base := mustProfile(t, ProfileTest)
	turns := strings.Repeat("1,", MaxTurns) + "1"
	// Each refused value's error names the parameter.
	tests := []struct {
		param             string
		refused, accepted []string
	}{
		{"sim_response_ms", []string{"4e8", "NaN", "+Inf", "0"}, []string{fmt.Sprint(MaxResponseMs)}},
		{"sim_rtf", []string{"NaN", "Inf", "1e-300", "11"}, []string{fmt.Sprintf("%g", MinRTF), fmt.Sprintf("%g", MaxRTF)}},
		{"sim_ttfp_ms", []string{"NaN", "-Inf", "-1", "1e9"}, []string{fmt.Sprint(MaxTTFPMs)}},
		{"sim_packet_ms", []string{"9", "10001", "40.5", "NaN"}, []string{fmt.Sprint(MinPacketMs), fmt.Sprint(MaxPacketMs)}},
		{"sim_turns_ms", []string{turns, "99999999999"}, nil},
	}
	resolve := func(query string) error {
		q, err := parseQuery(query)
		if err != nil {
			t.Fatal(err)
		}
		_, err = (&Options{}).resolve(base, q)
		return err
	}
	for _, tc := range tests {
		for _, v := range tc.refused {
			query := tc.param + "=" + v
			if err := resolve(query); err == nil || !strings.Contains(err.Error(), tc.param) {
				t.Errorf("%.60s: err %v, want one naming %s", query, err, tc.param)
			}
		}
		for _, v := range tc.accepted {
			if err := resolve(tc.param + "=" + v); err != nil {
				t.Errorf("%s=%s: %v, want accepted", tc.param, v, err)
			}
		}
	}
}

// TestFlagAndScenarioBounds: --sim-rtf and scenario files get the same ranges.
func TestFlagAndScenarioBounds(t *testing.T) {
	t.Parallel()
	for _, rtf := range []float64{-1, 1e-9, 1e9} {
		if _, err := New(&Options{RTF: rtf}); err == nil || !strings.Contains(err.Error(), "--sim-rtf") {
			t.Errorf("--sim-rtf %g: %v, want refused", rtf, err)
		}
	}
	if _, err := New(&Options{MaxSessions: -1}); err == nil {
		t.Error("--sim-max-sessions -1 accepted")
	}
	bad := []string{
		`{"rtf": 0}`, `{"rtf": 1e300}`, `{"packet_ms": 1}`, `{"chunk_period_ms": 0}`, `{"stall_ms": 999999999}`,
		`{"handshake_delay_ms": -5}`, `{"vad": {"threshold_dbfs": -40, "min_speech_ms": -1, "silence_ms": 10, "max_turn_ms": 0}}`,
		`{"turns_ms": [-1]}`,
	}
	for _, b := range bad {
		if _, err := ParseScenario([]byte(b)); err == nil {
			t.Errorf("scenario %s accepted", b)
		}
	}
	if _, err := ParseScenario([]byte(`{"rtf": 0.5, "packet_ms": 20}`)); err != nil {
		t.Errorf("a realistic scenario refused: %v", err)
	}
}

// TestHugeDrawsClamped: a scenario whose distributions reach absurd
// values still schedules a response within the documented maxima.
func TestHugeDrawsClamped(t *testing.T) {
	t.Parallel()
	sc := mustProfile(t, ProfileTest)
	sc.TTFPMs, sc.ResponseMs = Fixed(1e300), Fixed(1e300)
	h := newHarness(t, sc, "")
	h.update(0)
	h.send(time.Millisecond, map[string]any{"type": "response.create"})
	r := h.e.active
	if r == nil {
		t.Fatal("no response started")
	}
	if got := r.samples * 1000 / h.e.outRate; got > MaxResponseMs {
		t.Errorf("response of %d ms, want ≤ %d", got, MaxResponseMs)
	}
	if at := r.pktAt(0) - r.start; at > time.Duration(MaxTTFPMs)*time.Millisecond {
		t.Errorf("first audio %v after the start, want ≤ %d ms", at, MaxTTFPMs)
	}
}

// TestLazyPackets: a maximal response keeps the output queue O(1) while
// it plays, and it still sends every packet.
func TestLazyPackets(t *testing.T) {
	t.Parallel()
	h := newHarness(t, mustProfile(t, ProfileTest), fmt.Sprintf("sim_response_ms=%d&sim_rtf=%g", MaxResponseMs, MinRTF))
	h.update(0)
	h.send(time.Millisecond, map[string]any{"type": "response.create"})
	packets := h.e.active.packets
	if packets < 2000 {
		t.Fatalf("only %d packets: the test needs a long response", packets)
	}
	peak := 0
	for step := time.Duration(0); step < 20*time.Minute; step += 50 * time.Millisecond {
		h.runUntil(step)
		peak = max(peak, len(h.e.queue))
		if len(h.ofType("response.done")) > 0 {
			break
		}
	}
	if peak > 16 {
		t.Errorf("queue peaked at %d items for a %d-packet response, want O(1)", peak, packets)
	}
	if got := len(h.ofType("response.output_audio.delta")); got != packets {
		t.Errorf("%d audio deltas, want %d", got, packets)
	}
	if len(h.ofType("response.done")) != 1 {
		t.Error("response never finished")
	}
}

// TestIdleTimeoutCapped: idle_timeout_s above MaxIdleTimeout is capped.
func TestIdleTimeoutCapped(t *testing.T) {
	t.Parallel()
	for _, s := range []float64{1e12, 1e300, 900} {
		h := newHarness(t, mustProfile(t, ProfileTest), "")
		u := sessionUpdate()
		u["session"].(map[string]any)["idle_timeout_s"] = s
		h.send(0, u)
		want := min(time.Duration(s*float64(time.Second)), MaxIdleTimeout)
		if s > MaxIdleTimeout.Seconds() {
			want = MaxIdleTimeout
		}
		if h.e.idle != want {
			t.Errorf("idle_timeout_s %g: idle %v, want %v", s, h.e.idle, want)
		}
	}
}

// TestSessionCap: the session over --sim-max-sessions gets HTTP 503 with
// the reason; closing one frees its slot.
func TestSessionCap(t *testing.T) {
	t.Parallel()
	_, hs := newTestServer(t, &Options{Profile: ProfileTest, MaxSessions: 2})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	u := "ws" + strings.TrimPrefix(hs.URL, "http") + "/v1/realtime"
	var open []*websocket.Conn
	for range 2 {
		c, _, err := websocket.Dial(ctx, u, nil)
		if err != nil {
			t.Fatal(err)
		}
		open = append(open, c)
	}
	_, res, err := websocket.Dial(ctx, u, nil)
	if err == nil || res == nil || res.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("third session: %v %v, want HTTP 503", err, res)
	}
	open[0].Close(websocket.StatusNormalClosure, "")
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, _, err := websocket.Dial(ctx, u, nil)
		if err == nil {
			c.CloseNow()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("slot never freed: %v", err)
		}
		time.Sleep(20 * time.Millisecond) // the server ends the closed session asynchronously
	}
	open[1].CloseNow()
}

// TestFrameCap: a 10 s append plus two camera frames at the JPEG cap fits;
// one byte over MaxFrameBytes closes the session with 1009.
func TestFrameCap(t *testing.T) {
	t.Parallel()
	audio := base64.StdEncoding.EncodeToString(make([]byte, 2*16000*MaxAppendMs/1000))
	video := base64.StdEncoding.EncodeToString(make([]byte, MaxVideoFrameBytes))
	legit := fmt.Sprintf(`{"type":"input_audio_buffer.append","event_id":"evt_big","audio":%q,"format":"pcm16","sample_rate_hz":16000,"video":[%q,%q]}`, audio, video, video)
	if len(legit) > MaxFrameBytes {
		t.Fatalf("the largest legitimate append is %d bytes, over MaxFrameBytes %d", len(legit), MaxFrameBytes)
	}
	_, hs := newTestServer(t, &Options{Profile: ProfileTest})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := dialRaw(ctx, t, hs.URL, "")
	c.send(ctx, sessionUpdate())
	if err := c.conn.Write(ctx, websocket.MessageText, []byte(legit)); err != nil {
		t.Fatal(err)
	}
	c.send(ctx, map[string]any{"type": "session.heartbeat"})
	if _, err := c.until(ctx, typeIs("session.heartbeat_ack")); err != nil {
		t.Fatalf("the largest legitimate append ended the session: %v", err)
	}
	over := []byte(`{"type":"input_audio_buffer.append","audio":"` + strings.Repeat("A", MaxFrameBytes) + `"}`)
	_ = c.conn.Write(ctx, websocket.MessageText, over)
	if _, err := c.until(ctx, func(map[string]any) bool { return false }); errors.Is(err, context.DeadlineExceeded) {
		t.Fatal("an oversized frame did not end the session")
	}
	if err := <-c.err; websocket.CloseStatus(err) != websocket.StatusMessageTooBig {
		t.Logf("session ended by %v (close 1009 expected; a reset first is also a refusal)", err)
	}
}
