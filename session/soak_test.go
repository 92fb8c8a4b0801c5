//go:build soak && !js

package session_test

import (
	"context"
	"flag"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/duplexscope/duplexscope/dataset"
	"github.com/duplexscope/duplexscope/session"
)

var (
	soakDuration = flag.Duration("soak.duration", 30*time.Second, "how long TestSoak keeps sessions running")
	soakSessions = flag.Int("soak.sessions", 64, "concurrent sessions in TestSoak")
)

// TestSoak (issue 10) keeps soak.sessions concurrent headless sessions
// running against the in-process simulator for soak.duration, each worker
// starting a new session when its last one ends, and checks that every
// session completes, that goroutines return to the baseline afterwards, and
// that the live heap stays flat (after GC, the end heap is within 1.5× + 16
// MiB of the heap measured once the first round of sessions was running).
//
//	go test -tags soak -run TestSoak -soak.duration=30s ./session/
func TestSoak(t *testing.T) {
	samples, err := dataset.Load(dataset.BuiltinName, nil)
	if err != nil {
		t.Fatal(err)
	}
	pcms := make([][]byte, len(samples))
	for i, s := range samples {
		if pcms[i], err = s.PCM(context.Background(), nil); err != nil {
			t.Fatal(err)
		}
	}
	baseGoroutines := runtime.NumGoroutine()
	ts := startSim(t)
	deadline := time.Now().Add(*soakDuration)
	var done, failed atomic.Int64
	var lags sync.Map
	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapInuse
	}
	var warm uint64
	var warmOnce sync.Once
	var wg sync.WaitGroup
	for w := 0; w < *soakSessions; w++ {
		wg.Go(func() {
			for k := 0; time.Now().Before(deadline); k++ {
				res, err := session.Run(context.Background(), &session.Config{URL: wsURL(ts), Model: "sim", Settle: time.Second, CompletionTimeout: 2 * time.Minute},
					pcms[(w+k)%len(pcms)])
				if err != nil {
					failed.Add(1)
					t.Errorf("worker %d session %d: %v", w, k, err)
					continue
				}
				done.Add(1)
				lags.Store([2]int{w, k}, res.Pacing.P99Ms)
			}
		})
	}
	// Warm-up heap: once the first sessions are mid-stream.
	time.Sleep(min(*soakDuration/3, 5*time.Second))
	warmOnce.Do(func() { warm = heap() })
	var peakG int
	for time.Now().Before(deadline) {
		peakG = max(peakG, runtime.NumGoroutine())
		time.Sleep(time.Second)
	}
	wg.Wait()
	ts.CloseClientConnections()
	end := heap()
	var worst float64
	lags.Range(func(_, v any) bool { worst = max(worst, v.(float64)); return true })
	t.Logf("%d sessions completed, %d failed; goroutines base %d peak %d; heap warm %.1f MiB end %.1f MiB; worst session pacing lag p99 %.2f ms",
		done.Load(), failed.Load(), baseGoroutines, peakG, float64(warm)/(1<<20), float64(end)/(1<<20), worst)
	if done.Load() < int64(*soakSessions) {
		t.Errorf("only %d sessions completed, want ≥ %d", done.Load(), *soakSessions)
	}
	if end > warm+warm/2+16<<20 {
		t.Errorf("heap grew from %d to %d bytes: not flat", warm, end)
	}
	// The simulator and httptest server are still up (t.Cleanup); allow
	// their listener goroutines.
	for i := 0; ; i++ {
		g := runtime.NumGoroutine()
		if g <= baseGoroutines+8 {
			break
		}
		if i == 100 {
			buf := make([]byte, 1<<20)
			t.Fatalf("goroutines did not return to baseline: %d now, %d before\n%s", g, baseGoroutines, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(50 * time.Millisecond)
	}
}
