//go:build !js

package bench

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"
)

// cpuPid is another process's user + system CPU time (/proc/PID/stat).
func cpuPid(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(u+st) * time.Second / 100 // USER_HZ = 100 on Linux
}

// rssBytes is this process's resident set size (/proc/self/status VmRSS).
func rssBytes() int64 {
	v := procField("/proc/self/status", "VmRSS")
	f := strings.Fields(v + " 0")
	kb, _ := strconv.ParseInt(f[0], 10, 64)
	return kb * 1024
}

// memSampler records the peak RSS and Go heap while a step runs.
type memSampler struct {
	stop          chan struct{}
	wg            sync.WaitGroup
	peakRSS, heap int64
}

func startMemSampler() *memSampler {
	m := &memSampler{stop: make(chan struct{})}
	m.wg.Go(func() {
		t := time.NewTicker(500 * time.Millisecond)
		defer t.Stop()
		for {
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			m.peakRSS = max(m.peakRSS, rssBytes())
			m.heap = max(m.heap, int64(ms.HeapInuse))
			select {
			case <-m.stop:
				return
			case <-t.C:
			}
		}
	})
	return m
}

func (m *memSampler) Stop() { close(m.stop); m.wg.Wait() }

// stepCost is one capacity step's measurement.
type stepCost struct {
	N                         int
	Lag, Probe, Fid           Dist    // pacing |lag|, timer-probe lag, fidelity |error|
	CPUPerSession, SimCPU     float64 // fraction of one core per session (runner) / simulator total cores
	RSSPerSession, HeapPerSes float64 // bytes per session (peak − before)
	Elapsed                   time.Duration
	Load                      float64 // 1-minute load average at the end of the step
	Err                       error
}

func measureStep(ctx context.Context, s *Sim, n int, d time.Duration, bare bool) stepCost {
	runtime.GC()
	rss0 := rssBytes()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	heap0 := int64(ms.HeapInuse)
	sim0 := cpuPid(s.Pid)
	mem := startMemSampler()
	stop := make(chan struct{})
	probe := make(chan []float64, 1)
	go func() { probe <- TimerProbe(200*time.Millisecond, stop) }()
	t0 := time.Now()
	var fr FidelityResult
	var err error
	stagger := min(2*time.Second, time.Duration(n)*20*time.Millisecond)
	if bare {
		fr, err = RunBare(ctx, s, simQuery, n, d, stagger)
	} else {
		fr, _, err = RunSessions(ctx, s, simQuery, n, d, stagger)
	}
	el := time.Since(t0)
	close(stop)
	probeLags := <-probe
	mem.Stop()
	simCPU := cpuPid(s.Pid) - sim0
	sc := stepCost{N: n, Elapsed: el, Err: err, Lag: Summarize(Abs(fr.Lags)), Probe: Summarize(probeLags), Fid: Summarize(Abs(fr.Errors.All()))}
	sc.Load = Load1()
	// CPU per session per second of input (the paced part of the step),
	// over the sessions' own window: the harness's input preparation and
	// truth comparison were a quarter of the whole step's CPU at N = 16
	// (2.46 s of CPU over the step, 1.82 s in the sessions' window).
	sc.CPUPerSession = float64(fr.CPU) / float64(d) / float64(n)
	sc.SimCPU = float64(simCPU) / float64(el)
	sc.RSSPerSession = float64(max(0, mem.peakRSS-rss0)) / float64(n)
	sc.HeapPerSes = float64(max(0, mem.heap-heap0)) / float64(n)
	return sc
}

// CapacityBound is the pacing lag p99 a step must stay under.
const CapacityBound = 5.0 // ms

// stepVerdict is "pass" or why st failed.
func stepVerdict(st stepCost) string {
	switch {
	case st.Err != nil:
		return "fail: " + oneLine(st.Err.Error())
	case !(st.Lag.P99 < CapacityBound):
		return fmt.Sprintf("fail: lag p99 %.3f ms ≥ %g ms", st.Lag.P99, CapacityBound)
	}
	return "pass"
}

// attempts measures a step, and once more when it failed on its lag alone:
// one stall of a 2-core machine makes every session's frames late at once,
// which fails a 20-second step (2026-12-06: N = 32 failed at 8.9 ms while 64
// and 128 then passed). The last attempt decides; the table shows both.
func attempts(measure func() stepCost) []stepCost {
	st := measure()
	if st.Err != nil || st.Lag.P99 < CapacityBound {
		return []stepCost{st}
	}
	return []stepCost{st, measure()}
}

// CapacityGroup steps the number of concurrent paced sessions (16, 32, 64,
// …) against a simulator in a child process until pacing lag p99 reaches
// CapacityBound, a session fails, or the time budget runs out.
func CapacityGroup(ctx context.Context, c *Config, sh *Shared) *Section {
	sec, s := simSection("Capacity — paced sessions per runner", StartSimProcess)
	if s == nil {
		return sec
	}
	defer s.Close()
	sec.printf("N concurrent headless sessions (session.Run, 200 ms appends on the absolute schedule, %v of builtin-clip input each, starts spread over ≤ 2 s) against the simulator in a **separate process** (profile `periodic`: each session receives a MiniCPM-o-like response every 3 s, 1000 ms audio packets). "+
		"A step passes when every session completes and the pooled pacing lag p99 is < %g ms. CPU per session = this process's getrusage (user+system) from the first session's start to the last one's end ÷ N ÷ seconds of input (CPU seconds per session-second, i.e. the fraction of one core a session needs; dialing and the answer tail are included in the numerator; the harness's input preparation before and its truth comparison after are not); memory per session = (peak RSS − RSS before) ÷ N and (peak Go HeapInuse − before) ÷ N, sampled every 500 ms — it includes each session's wire log (audio payloads are kept, ≈ 40 kB per second of answers). "+
		"Baselines (same run): a timer probe in this process during every step (sleep until start + k·200 ms, no I/O: what the machine's timers and scheduler alone cost a paced sender at that moment), and N bare coder/websocket clients paced by a `time.Ticker` at the first step against the same simulator. "+
		"A step that fails on its lag alone is measured once more and the second attempt decides (both are in the table): one stall of this 2-core machine makes every session late at once. The harness stops at the first failing step, but runs up to two more steps (≤ 256) marked informational to show the trend.\n\n", c.CapacityStep, CapacityBound)
	var rows [][]string
	best := 0
	var stopReason string
	var first *stepCost
	extra := 0 // informational steps after the first failure
	for _, n := range c.CapacitySteps {
		if time.Now().After(c.Deadline) {
			if stopReason == "" {
				stopReason = fmt.Sprintf("the time budget ran out before N = %d", n)
			}
			break
		}
		if stopReason != "" && (extra >= 2 || n > 256) {
			break
		}
		c.logf("capacity: N = %d × %v", n, c.CapacityStep)
		tries := attempts(func() stepCost { return measureStep(ctx, s, n, c.CapacityStep, false) })
		st := tries[len(tries)-1]
		verdict := stepVerdict(st)
		if stopReason != "" {
			extra++
			verdict += " (informational, after the first failure)"
		}
		for i, try := range tries {
			label, v := fmt.Sprint(n), verdict
			if i < len(tries)-1 {
				v = stepVerdict(try) + " (measured again)"
			} else if i > 0 {
				label += " (again)"
			}
			rows = append(rows, []string{label, v, fmtMs(try.Lag.P50), fmtMs(try.Lag.P99), fmtMs(try.Lag.Max), fmtMs(try.Probe.P99), fmtX(Ratio(try.Lag.P99, try.Probe.P99)), fmtMs(try.Fid.P99),
				fmt.Sprintf("%.4f", try.CPUPerSession), fmt.Sprintf("%.2f", try.SimCPU), mib(try.RSSPerSession), mib(try.HeapPerSes), try.Elapsed.Round(time.Second).String(), fmt.Sprintf("%.1f", try.Load)})
		}
		if first == nil {
			stc := st
			first = &stc
		}
		switch {
		case stopReason != "":
		case verdict != "pass":
			stopReason = fmt.Sprintf("N = %d failed (%s)", n, verdict)
		default:
			best = n
		}
		if st.Err != nil {
			break // sessions fail from here on: no informational steps
		}
	}
	if stopReason == "" {
		stopReason = "every configured step passed"
	}
	sec.table([]string{"N", "verdict", "lag p50 ms", "lag p99 ms", "lag max ms", "timer-probe lag p99 ms", "lag p99 ÷ probe", "fidelity p99 ms", "runner CPU s per session-second", "simulator CPU (cores, over the step)", "RSS / session MiB", "heap / session MiB", "wall", "load avg (1 min)"}, rows)
	if first != nil {
		c.logf("capacity: baseline: %d bare clients × %v", first.N, c.CapacityStep)
		b := measureStep(ctx, s, first.N, c.CapacityStep, true)
		if b.Err != nil {
			sec.printf("Baseline failed: `%s`\n\n", oneLine(b.Err.Error()))
		} else {
			sec.table([]string{"at N = " + fmt.Sprint(first.N), "lag p99 ms", "CPU s per session-second", "RSS / session MiB", "heap / session MiB"}, [][]string{
				{"session driver", fmtMs(first.Lag.P99), fmt.Sprintf("%.4f", first.CPUPerSession), mib(first.RSSPerSession), mib(first.HeapPerSes)},
				{"baseline: bare client + time.Ticker", fmtMs(b.Lag.P99), fmt.Sprintf("%.4f", b.CPUPerSession), mib(b.RSSPerSession), mib(b.HeapPerSes)},
				{"ratio session ÷ bare", fmtX(Ratio(first.Lag.P99, b.Lag.P99)), fmtX(Ratio(first.CPUPerSession, b.CPUPerSession)), fmtX(Ratio(first.RSSPerSession, b.RSSPerSession)), fmtX(Ratio(first.HeapPerSes, b.HeapPerSes))},
			})
		}
	}
	sec.printf("Capacity on this machine: **%d sessions** with pacing lag p99 < %g ms (stopped: %s).\n\n", best, CapacityBound, stopReason)
	sec.goalGE("capacity (paced sessions, lag p99 < 5 ms)", float64(best), 256, "sessions",
		"Stopped because "+stopReason+". Compare the timer probe's lag p99 at that step: when the probe (no I/O at all) is itself near the bound, the machine's scheduler is the limit (2 cores shared with the simulator, whose CPU is in the table, and with other work), not the session driver.")
	return sec
}

func mib(b float64) string { return fmt.Sprintf("%.2f", b/(1<<20)) }
