//go:build !js

package server_test

import (
	"context"
	"errors"
	"math"
	"net/url"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/duplexscope/duplexscope/audio"
	"github.com/duplexscope/duplexscope/metrics"
	"github.com/duplexscope/duplexscope/server"
	"github.com/duplexscope/duplexscope/session"
	"github.com/duplexscope/duplexscope/sim"
)

// TestProxyFaults runs a session through the websocket proxy (/proxy, what
// the page uses with proxy=1) against the embedded simulator with each
// transport-level fault. The proxy must pass each fault through so the
// client ends the same way it does direct (a dropped upstream reaches the
// client as a dropped session, a stalled upstream reader does not stall the
// downstream), and no proxy goroutine outlives the session.
func TestProxyFaults(t *testing.T) {
	simSrv, err := sim.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { simSrv.Close() })
	e := newEnv(t, func(c *server.Config) { c.Sim = simSrv })
	x := make([]float32, 2200*audio.InputRate/1000) // 1 s tone, 1.2 s silence: one turn
	for k := range audio.InputRate {
		x[k] = float32(0.25 * math.Sin(2*math.Pi*220*float64(k)/audio.InputRate))
	}
	pcm := audio.FloatToPCM16(x)
	var ue *session.UnexpectedCloseError
	var se *session.ServerError
	cases := []struct {
		fault string
		ok    func(error) bool // nil: must succeed
	}{
		{"none", nil},
		{"stalled_reader", nil},
		{"slow_writer", nil},
		{"malformed_json", nil},
		{"disconnect_mid_response", func(err error) bool {
			return errors.Is(err, session.ErrTransportDropped) && strings.Contains(err.Error(), "upstream dropped the connection")
		}},
		{"unexpected_close", func(err error) bool { return errors.As(err, &ue) && ue.Reason == "server_shutdown" }},
		{"error_event", func(err error) bool { return errors.As(err, &se) && se.Code == "engine_error" }},
	}
	for _, tc := range cases {
		t.Run(tc.fault, func(t *testing.T) {
			target := "ws" + strings.TrimPrefix(e.http.URL, "http") + "/v1/realtime?" +
				url.Values{"sim_profile": {"test"}, "sim_fault": {tc.fault}}.Encode()
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			res, err := session.Run(ctx, &session.Config{URL: proxyURL(e, target), Model: "sim", Settle: 300 * time.Millisecond,
				CompletionTimeout: 20 * time.Second}, pcm)
			if tc.ok == nil && err != nil {
				t.Fatalf("through the proxy: %v, want success", err)
			}
			if tc.ok != nil && !tc.ok(err) {
				t.Fatalf("through the proxy: err %v (%T), not the fault's documented failure", err, err)
			}
			if res == nil || res.Incomplete != (tc.ok != nil) {
				t.Fatalf("result %+v: want Incomplete = %v", res, tc.ok != nil)
			}
			rows := metrics.ScoreSession(*res.Trace).Rows
			if len(rows) == 0 || rows[0].Raw == nil {
				t.Errorf("no metrics of what arrived through the proxy (%d rows)", len(rows))
			}
			if left := proxyGoroutines(5 * time.Second); left != "" {
				t.Errorf("proxy goroutines still running after the session:\n%s", left)
			}
			t.Logf("%s through /proxy: err=%v, %d rows", tc.fault, err, len(rows))
		})
	}
}

// proxyGoroutines polls (up to d) until no goroutine runs the proxy's
// handler or pumps, and returns the stacks of those that remain.
func proxyGoroutines(d time.Duration) string {
	deadline := time.Now().Add(d)
	for {
		buf := make([]byte, 1<<20)
		buf = buf[:runtime.Stack(buf, true)]
		var left []string
		for _, g := range strings.Split(string(buf), "\n\n") {
			if strings.Contains(g, "server.(*Server).handleProxy") || strings.Contains(g, "server.pump") {
				left = append(left, g)
			}
		}
		if len(left) == 0 || time.Now().After(deadline) {
			return strings.Join(left, "\n\n")
		}
		time.Sleep(20 * time.Millisecond)
	}
}
