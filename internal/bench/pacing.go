//go:build !js

package bench

import (
	"context"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/duplexscope/duplexscope/session"
)

// SleepPacer is the second naive baseline: time.Sleep(frame) after each
// frame (relative pacing, as Omni-DuplexEval does), frames frames; it
// returns each wake-up's lag against the absolute schedule in ms.
func SleepPacer(ctx context.Context, frame time.Duration, frames int) []float64 {
	lags := make([]float64, 0, frames)
	start := time.Now()
	for k := 0; k < frames && ctx.Err() == nil; k++ {
		if k > 0 {
			time.Sleep(frame)
		}
		lags = append(lags, float64(time.Since(start)-time.Duration(k)*frame)/1e6)
	}
	return lags
}

// TimerProbe sleeps until absolute deadlines start + k·frame (no I/O, no
// work) until stop closes and returns each wake-up's lag in ms: what the
// machine's timers and scheduler alone cost a paced sender at that moment.
func TimerProbe(frame time.Duration, stop <-chan struct{}) []float64 {
	var lags []float64
	start := time.Now()
	for k := 1; ; k++ {
		due := start.Add(time.Duration(k) * frame)
		select {
		case <-stop:
			return lags
		case <-time.After(time.Until(due)):
		}
		lags = append(lags, float64(time.Since(due))/1e6)
	}
}

// PacingGroup runs the long native pacing measurement: one session.Run
// (absolute schedule) of c.PacingNative input against the in-process
// simulator, and in the same window the two baselines: the bare client
// paced by a time.Ticker (same simulator, same input) and a
// time.Sleep(frame) loop.
func PacingGroup(ctx context.Context, c *Config, sh *Shared) *Section {
	sec, s := simSection("Pacing — native", StartSimInProcess)
	if s == nil {
		return sec
	}
	defer s.Close()
	d := c.PacingNative
	frame := 200 * time.Millisecond
	c.logf("pacing: native %v: session + time.Ticker bare client + time.Sleep loop, concurrently", d)
	pcm, err := InputPCM(d, 0)
	if err != nil {
		sec.Err = err
		return sec
	}
	var wg sync.WaitGroup
	var res *session.Result
	var bare *BareResult
	var errS, errB error
	var sleepLags []float64
	wg.Add(3)
	go func() {
		defer wg.Done()
		cfg := &session.Config{URL: s.WS(simQuery), Model: "sim", SampleID: "pacing", Split: "bench", CompletionTimeout: 2 * time.Minute}
		res, errS = session.Run(ctx, cfg, pcm)
	}()
	go func() {
		defer wg.Done()
		bare, errB = BareRun(ctx, s.WS(simQuery), pcm, 200, 2*time.Second)
	}()
	go func() {
		defer wg.Done()
		sleepLags = SleepPacer(ctx, frame, int(d/frame))
	}()
	wg.Wait()
	if errS != nil {
		sec.Err = fmt.Errorf("bench: pacing session: %w", errS)
		return sec
	}
	if errB != nil {
		sec.printf("**The time.Ticker baseline failed:** `%s`\n\n", oneLine(errB.Error()))
		bare = &BareResult{}
	}
	lags := PacingLags(res.Trace.Events)
	sd, bd, ld := Summarize(Abs(lags)), Summarize(Abs(bare.Lags)), Summarize(Abs(sleepLags))
	drift, bdrift, ldrift := Drift(lags), Drift(bare.Lags), Drift(sleepLags)
	sec.printf("One headless session streams %v of input in 200 ms appends (the session's absolute schedule: frame k due at stream start + k·200 ms) against the in-process simulator (profile `periodic`: the session also receives a response every 3 s). "+
		"Jitter = the per-frame pacing lag the session records (wire-log `local` entries `duplexscope.pacing`, `lag_ms` = actual − scheduled send instant, client send clock). "+
		"Drift = median lag of the last 50 frames − median lag of the first 50 (how far the schedule slipped over the run). "+
		"Baselines in the same window: the bare client paced by a naive `time.Ticker` (same simulator and input), and a `time.Sleep(200 ms)`-after-each-frame loop.\n\n", d)
	row := func(name string, x Dist, dr float64) []string {
		return []string{name, fmt.Sprint(x.N), fmtMs(x.P50), fmtMs(x.P99), fmtMs(x.Max), fmtMs(dr), fmtX(Ratio(x.P99, bd.P99))}
	}
	sec.table([]string{"pacer", "frames", "\\|lag\\| p50 ms", "\\|lag\\| p99 ms (jitter)", "\\|lag\\| max ms", "drift ms", "jitter ÷ Ticker jitter"}, [][]string{
		row("session (absolute schedule)", sd, drift),
		row("baseline: time.Ticker (bare client)", bd, bdrift),
		row("baseline: time.Sleep(frame) loop", ld, ldrift),
	})
	sec.goalLE(fmt.Sprintf("send jitter p99, native, %v", d), sd.P99, 2, "ms",
		fmt.Sprintf("The worst frame was %.0f ms late: the process was not scheduled in time on this loaded 2-core machine (load average %s at the end); the absolute schedule catches up without drift. In the same window the naive time.Ticker baseline had jitter p99 %.3f ms and drift %.3f ms (a stall longer than a frame drops a tick: every later frame is a frame late).", sd.Max, LoadAverage(), bd.P99, bdrift))
	sec.goalLE(fmt.Sprintf("drift after %v, native (absolute value)", d), math.Abs(drift), 200, "ms",
		fmt.Sprintf("The time.Ticker baseline drifted %.3f ms and the sleep loop %.3f ms in the same window.", bdrift, ldrift))
	return sec
}
