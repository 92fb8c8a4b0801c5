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
	"syscall"
	"time"
)

// cpuSelf is this process's user + system CPU time (getrusage).
func cpuSelf() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

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
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
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
	}()
	return m
}

func (m *memSampler) Stop() { close(m.stop); m.wg.Wait() }

// stepCost is one capacity step's measurement.
type stepCost struct {
	N                         int
	Lag                       Dist
	Fid                       Dist
	CPUPerSession, SimCPU     float64 // fraction of one core per session (runner) / simulator total cores
	RSSPerSession, HeapPerSes float64 // bytes per session (peak − before)
	Elapsed                   time.Duration
	Err                       error
}

func measureStep(ctx context.Context, s *Sim, n int, d time.Duration, bare bool) stepCost {
	runtime.GC()
	rss0 := rssBytes()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	heap0 := int64(ms.HeapInuse)
	cpu0, sim0 := cpuSelf(), cpuPid(s.Pid)
	mem := startMemSampler()
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
	mem.Stop()
	cpu, simCPU := cpuSelf()-cpu0, cpuPid(s.Pid)-sim0
	sc := stepCost{N: n, Elapsed: el, Err: err, Lag: Summarize(fr.Lags), Fid: Summarize(Abs(fr.Errors.All()))}
	sc.CPUPerSession = float64(cpu) / float64(el) / float64(n)
	sc.SimCPU = float64(simCPU) / float64(el)
	sc.RSSPerSession = float64(mem.peakRSS-rss0) / float64(n)
	sc.HeapPerSes = float64(mem.heap-heap0) / float64(n)
	return sc
}

// CapacityBound is the pacing lag p99 a step must stay under.
const CapacityBound = 5.0 // ms

// CapacityGroup steps the number of concurrent paced sessions (16, 32, 64,
// …) against a simulator in a child process until pacing lag p99 reaches
// CapacityBound, a session fails, or the time budget runs out.
func CapacityGroup(ctx context.Context, c *Config, sh *Shared) *Section {
	sec := &Section{Title: "Capacity — paced sessions per runner"}
	s, err := StartSimProcess()
	if err != nil {
		sec.Err = err
		return sec
	}
	defer s.Close()
	sec.printf("N concurrent headless sessions (session.Run, 200 ms appends on the absolute schedule, %v of builtin-clip input each, starts spread over ≤ 2 s) against the simulator in a **separate process** (profile `periodic`: each session receives a MiniCPM-o-like response every 3 s, 1000 ms audio packets). "+
		"A step passes when every session completes and the pooled pacing lag p99 is < %g ms. CPU per session = this process's getrusage (user+system) over the step ÷ wall time ÷ N (fraction of one core); memory per session = (peak RSS − RSS before) ÷ N and (peak Go HeapInuse − before) ÷ N, sampled every 500 ms — it includes each session's wire log (audio payloads are kept, ≈ 40 kB per second of answers). "+
		"Baseline (same run, same simulator): N bare coder/websocket clients paced by a `time.Ticker` at the first step.\n\n", c.CapacityStep, CapacityBound)
	var rows [][]string
	best := 0
	var stopReason string
	var first *stepCost
	for _, n := range c.CapacitySteps {
		if time.Now().After(c.Deadline) {
			stopReason = fmt.Sprintf("the time budget ran out before N = %d", n)
			break
		}
		c.logf("capacity: N = %d × %v", n, c.CapacityStep)
		st := measureStep(ctx, s, n, c.CapacityStep, false)
		verdict := "pass"
		switch {
		case st.Err != nil:
			verdict = "fail: " + oneLine(st.Err.Error())
		case !(st.Lag.P99 < CapacityBound):
			verdict = fmt.Sprintf("fail: lag p99 %.3f ms ≥ %g ms", st.Lag.P99, CapacityBound)
		}
		rows = append(rows, []string{fmt.Sprint(n), verdict, fmtMs(st.Lag.P50), fmtMs(st.Lag.P99), fmtMs(st.Lag.Max), fmtMs(st.Fid.P99),
			fmt.Sprintf("%.4f", st.CPUPerSession), fmt.Sprintf("%.2f", st.SimCPU), mib(st.RSSPerSession), mib(st.HeapPerSes), st.Elapsed.Round(time.Second).String()})
		if first == nil {
			stc := st
			first = &stc
		}
		if verdict != "pass" {
			stopReason = fmt.Sprintf("N = %d failed (%s)", n, verdict)
			break
		}
		best = n
	}
	if stopReason == "" {
		stopReason = "every configured step passed"
	}
	sec.table([]string{"N", "verdict", "lag p50 ms", "lag p99 ms", "lag max ms", "fidelity p99 ms", "runner CPU / session (cores)", "simulator CPU (cores)", "RSS / session MiB", "heap / session MiB", "wall"}, rows)
	if first != nil {
		c.logf("capacity: baseline: %d bare clients × %v", first.N, c.CapacityStep)
		b := measureStep(ctx, s, first.N, c.CapacityStep, true)
		if b.Err != nil {
			sec.printf("Baseline failed: `%s`\n\n", oneLine(b.Err.Error()))
		} else {
			sec.table([]string{"at N = " + fmt.Sprint(first.N), "lag p99 ms", "CPU / session (cores)", "RSS / session MiB", "heap / session MiB"}, [][]string{
				{"session driver", fmtMs(first.Lag.P99), fmt.Sprintf("%.4f", first.CPUPerSession), mib(first.RSSPerSession), mib(first.HeapPerSes)},
				{"baseline: bare client + time.Ticker", fmtMs(b.Lag.P99), fmt.Sprintf("%.4f", b.CPUPerSession), mib(b.RSSPerSession), mib(b.HeapPerSes)},
				{"ratio session ÷ bare", fmtX(Ratio(first.Lag.P99, b.Lag.P99)), fmtX(Ratio(first.CPUPerSession, b.CPUPerSession)), fmtX(Ratio(first.RSSPerSession, b.RSSPerSession)), fmtX(Ratio(first.HeapPerSes, b.HeapPerSes))},
			})
		}
	}
	sec.printf("Capacity on this machine: **%d sessions** with pacing lag p99 < %g ms (stopped: %s).\n\n", best, CapacityBound, stopReason)
	sec.goalGE("capacity (paced sessions, lag p99 < 5 ms)", float64(best), 256, "sessions",
		"Stopped because "+stopReason+"; the simulator shares the same 2 cores (its CPU is in the table) and the machine was loaded by other work.")
	return sec
}

func mib(b float64) string { return fmt.Sprintf("%.2f", b/(1<<20)) }
