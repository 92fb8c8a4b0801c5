//go:build !js

package bench

import (
	"fmt"
	"io"
	"time"
)

// Config sets a run's durations and tools.
type Config struct {
	Quick    bool
	Chromium string // headless browser binary
	Root     string // module root (for go build / go test)
	Log      io.Writer
	Deadline time.Time // capacity steps stop starting after this

	Fidelity1, Fidelity16   time.Duration // input per session, concurrency 1 / 16
	PacingNative            time.Duration // the long native pacing run
	PacingBrowser           time.Duration // browser session (also its fidelity run)
	BrowserCoder            time.Duration // the coder/websocket transport's browser run
	CapacityStep            time.Duration // input per session per capacity step
	CapacitySteps           []int
	FPSWindow               time.Duration // rAF counting window
	BenchTime, ArchiveBench string        // -benchtime for metrics / server benchmarks

	// ThreadWorker and ThreadMain are the session lengths of the
	// session_thread=worker and =main rows (each run without and with the
	// main-thread stall): the worker's pacing goal is over 10 minutes, the
	// main-thread baseline needs ≥ 300 frame intervals.
	ThreadWorker, ThreadMain time.Duration
}

// FullConfig is `make bench` (≈ 50 minutes on 2 cores, plus make wasm).
func FullConfig() Config {
	return Config{
		Chromium: "/usr/bin/chromium", Root: ".",
		Fidelity1: 40 * time.Second, Fidelity16: 40 * time.Second, // the two sides run together: 2N sessions
		PacingNative: 10 * time.Minute, PacingBrowser: 2 * time.Minute, BrowserCoder: 30 * time.Second,
		ThreadWorker: 10 * time.Minute, ThreadMain: 2 * time.Minute,
		CapacityStep: 20 * time.Second, CapacitySteps: []int{16, 32, 64, 128, 256, 512, 1024},
		FPSWindow: 8 * time.Second, BenchTime: "1s", ArchiveBench: "500ms",
	}
}

// QuickConfig is the smoke run (about a minute of measuring).
func QuickConfig() Config {
	c := FullConfig()
	c.Quick = true
	// Long enough for one answer of the periodic profile (at 3 s of
	// input) in every browser row, so each table gets a row to print.
	c.Fidelity1, c.Fidelity16 = 5*time.Second, 4*time.Second
	c.PacingNative, c.PacingBrowser, c.BrowserCoder = 5*time.Second, 4*time.Second, 4*time.Second
	c.ThreadWorker, c.ThreadMain = 4*time.Second, 4*time.Second
	c.CapacityStep, c.CapacitySteps = 4*time.Second, []int{16}
	c.FPSWindow = 1 * time.Second
	c.BenchTime, c.ArchiveBench = "1x", "1x"
	return c
}

func (c *Config) logf(format string, a ...any) {
	if c.Log != nil {
		fmt.Fprintf(c.Log, "%s bench: "+format+"\n", append([]any{time.Now().UTC().Format("15:04:05")}, a...)...)
	}
}

// Shared holds figures one group measures and another uses as baseline.
type Shared struct {
	// NativeP99: "session-1" → pooled per-response |error| p99 (ms);
	// "frames-1" → per-frame |error| p99 (FrameErrors).
	NativeP99 map[string]float64
}
