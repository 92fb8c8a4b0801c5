//go:build security && linux

package security

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/duplexscope/duplexscope/report"
)

const (
	// idleRSS bounds a server that refused everything: it idles at ~40 MiB.
	idleRSS = 150 << 20
	// simSessionCap is --sim-max-sessions' default.
	simSessionCap = 256
)

func wsURL(s *Server, query string) string {
	return "ws" + strings.TrimPrefix(s.URL, "http") + "/v1/realtime?duplex=1&" + query
}

func simUpdate() []byte {
	return []byte(`{"type":"session.update","event_id":"evt_open","session":{"model":"m","input_audio_format":"pcm16","output_audio_format":"pcm16"}}`)
}

// openSim opens a test-profile sim session (closed when the test ends) and
// sends its session.update.
func openSim(ctx context.Context, t *testing.T, s *Server) *websocket.Conn {
	t.Helper()
	c, _, err := websocket.Dial(ctx, wsURL(s, "sim_profile=test"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.CloseNow() })
	_ = c.Write(ctx, websocket.MessageText, simUpdate())
	return c
}

func mib(n int64) string { return fmt.Sprintf("%.0f MiB", float64(n)/(1<<20)) }

// TestSimParamBombs (item 3): a huge sim_response_ms (every packet was
// scheduled up front: 1.74 GB) and NaN/Inf/negative parameters are
// refused with HTTP 400 naming the parameter, before the upgrade.
func TestSimParamBombs(t *testing.T) {
	s := Start(t)
	tests := []struct{ query, param string }{
		{"sim_response_ms=4e8", "sim_response_ms"},
		{"sim_rtf=NaN", "sim_rtf"},
		{"sim_ttfp_ms=NaN", "sim_ttfp_ms"},
		{"sim_ttfp_ms=Inf", "sim_ttfp_ms"},
		{"sim_rtf=1e-300", "sim_rtf"},
		{"sim_response_ms=-1", "sim_response_ms"},
	}
	for _, tc := range tests {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		sm := s.Sample()
		c, res, err := websocket.Dial(ctx, wsURL(s, "sim_profile=test&"+tc.query), nil)
		if err == nil { // accepted (the old behaviour): make it answer once and watch memory
			c.SetReadLimit(64 << 20)
			_ = c.Write(ctx, websocket.MessageText, simUpdate())
			_ = c.Write(ctx, websocket.MessageText, []byte(`{"type":"response.create"}`))
			for end := time.Now().Add(4 * time.Second); time.Now().Before(end) && s.RSS() < 1<<30; {
				time.Sleep(50 * time.Millisecond) // letting the server work while RSS is sampled
			}
			c.CloseNow()
		}
		u := sm.Stop()
		cancel()
		status := 0
		if res != nil {
			status = res.StatusCode
		}
		Attack(t, "3", "sim websocket ?"+tc.query, fmt.Sprintf("HTTP %d; %s", status, u))
		if status != http.StatusBadRequest {
			t.Errorf("%s: HTTP %d (err %v), want 400 before the upgrade", tc.query, status, err)
		}
		if u.MaxRSS > idleRSS {
			t.Errorf("%s: RSS reached %s, want < %s", tc.query, mib(u.MaxRSS), mib(idleRSS))
		}
	}
}

// TestSimFrameBomb (item 3): 8 sessions each send one 64 MiB append
// (3.5 GB before); frames over ≈1.1 MiB now close the session with 1009,
// while a legitimate 10 s append still works.
func TestSimFrameBomb(t *testing.T) {
	// frameBombRSS: 8 sessions × the 1.1 MiB frame cap, plus the idle server.
	const frameBombRSS = 250 << 20
	s := Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	legit := openSim(ctx, t, s)
	tenSeconds := base64.StdEncoding.EncodeToString(make([]byte, 2*16000*10))
	_ = legit.Write(ctx, websocket.MessageText, []byte(`{"type":"input_audio_buffer.append","event_id":"e1","audio":"`+tenSeconds+`"}`))
	_ = legit.Write(ctx, websocket.MessageText, []byte(`{"type":"session.heartbeat"}`))
	if !readUntil(ctx, legit, "session.heartbeat_ack") {
		t.Fatal("a 10 s append (the largest legitimate one) ended the session")
	}

	big := make([]byte, 0, 64<<20)
	big = append(big, `{"type":"input_audio_buffer.append","event_id":"big","audio":"`...)
	big = append(big, bytes.Repeat([]byte("AAAA"), (64<<20-200)/4)...)
	big = append(big, `"}`...)
	sm := s.Sample()
	var wg sync.WaitGroup
	closed := make([]bool, 8)
	for i := range 8 {
		wg.Go(func() {
			c, _, err := websocket.Dial(ctx, wsURL(s, "sim_profile=test"), nil)
			if err != nil {
				t.Error(err)
				return
			}
			defer c.CloseNow()
			_ = c.Write(ctx, websocket.MessageText, simUpdate())
			_ = c.Write(ctx, websocket.MessageText, big)
			rctx, rcancel := context.WithTimeout(ctx, 5*time.Second)
			defer rcancel()
			for {
				if _, _, err := c.Read(rctx); err != nil {
					closed[i] = rctx.Err() == nil // the server ended it, not our wait
					return
				}
			}
		})
	}
	wg.Wait()
	u := sm.Stop()
	n := 0
	for _, c := range closed {
		if c {
			n++
		}
	}
	Attack(t, "3", "8 sim sessions × one 64 MiB append frame", fmt.Sprintf("%d of 8 sessions closed by the server; %s", n, u))
	if n != 8 {
		t.Errorf("%d of 8 sessions with a 64 MiB frame were ended, want all 8", n)
	}
	if u.MaxRSS > frameBombRSS {
		t.Errorf("RSS reached %s, want < %s", mib(u.MaxRSS), mib(frameBombRSS))
	}
}

func readUntil(ctx context.Context, c *websocket.Conn, typ string) bool {
	rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	for {
		_, b, err := c.Read(rctx)
		if err != nil {
			return false
		}
		var ev struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(b, &ev) == nil && ev.Type == typ {
			return true
		}
	}
}

// TestSimSessionCap (item 3): past --sim-max-sessions (default 256) a new
// simulator session gets HTTP 503 with the reason instead of one more
// session.
func TestSimSessionCap(t *testing.T) {
	s := Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var open []*websocket.Conn
	defer func() {
		for _, c := range open {
			c.CloseNow()
		}
	}()
	for range simSessionCap {
		c, _, err := websocket.Dial(ctx, wsURL(s, "sim_profile=test"), nil)
		if err != nil {
			t.Fatalf("session %d of the cap refused: %v", len(open)+1, err)
		}
		open = append(open, c)
	}
	c, res, err := websocket.Dial(ctx, wsURL(s, "sim_profile=test"), nil)
	status := 0
	if res != nil {
		status = res.StatusCode
	}
	if err == nil {
		c.CloseNow()
	}
	Attack(t, "3", fmt.Sprintf("sim session %d (default cap %d)", simSessionCap+1, simSessionCap), fmt.Sprintf("HTTP %d", status))
	if status != http.StatusServiceUnavailable {
		t.Errorf("session %d: HTTP %d (err %v), want 503", simSessionCap+1, status, err)
	}
}

// rowsReportJSON returns a valid report of n minimal rows (optionally a shard of run).
func rowsReportJSON(t testing.TB, model string, n int, seed int, run string, shard, shards int) []byte {
	t.Helper()
	var b strings.Builder
	b.WriteString(`{"duplex_request_metrics":[`)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		v := 200 + float64((i*7919+seed*104729)%1000)/2
		fmt.Fprintf(&b, `{"session_id":"s","request_index":%d,"response_id":"r%d","source":%q,"ttft_ms":%.1f,"ttfp_ms":%.1f,"rtf":0.5}`, i, i, report.SourceServer, v-20, v)
	}
	b.WriteString(`]}`)
	r := report.Run{TargetURL: "ws://127.0.0.1:8080/v1/realtime", Model: model, FrameMs: 200, Version: "test", Client: report.ClientCLI,
		Source: report.Source{Kind: report.SourceDataset, Dataset: "builtin"}, Concurrency: 1, StartedAt: "2026-12-03T11:00:00Z", RunID: run}
	if shards > 0 {
		r.Shard = &report.Shard{Index: shard, Count: shards}
	}
	rep, err := report.New(r, []byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	report.Finish(rep)
	out, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// uploadReport posts a report and returns its id.
func uploadReport(t testing.TB, s *Server, body []byte) string {
	t.Helper()
	res, b := s.Do(t, Request{Method: "POST", Path: "/api/reports", Body: body, Header: map[string]string{"Content-Type": "application/json"}})
	if res.StatusCode != http.StatusCreated {
		t.Fatalf("upload: %d %.300s", res.StatusCode, b)
	}
	var up struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(b, &up); err != nil {
		t.Fatal(err)
	}
	return up.ID
}
