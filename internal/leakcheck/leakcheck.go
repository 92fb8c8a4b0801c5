package leakcheck

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"
)

// ignored marks goroutines that are not the tests' own: this one (running
// Main), the wasm runtime's js event handler, and signal handling (started
// for -fuzz).
var ignored = []string{"leakcheck.Main", "runtime.handleEvent", "os/signal.signal_recv", "testing.(*F).Fuzz", "runtime.ensureSigM"}

// Main runs the tests and, when they pass, waits up to wait for goroutines
// they started to end (closing connections wind down), then exits with
// status 1 and their stacks if any remain.
func Main(m *testing.M, wait time.Duration) {
	base := runtime.NumGoroutine()
	code := m.Run()
	if code == 0 {
		if leaked := Leaked(base, wait); leaked != "" {
			fmt.Fprintf(os.Stderr, "goroutine leak: goroutines outlived the tests:\n%s\n", leaked)
			code = 1
		}
	}
	os.Exit(code)
}

// Leaked polls (every 20 ms, for the goroutines to exit, up to wait) until
// the goroutine count is back to base or only ignored goroutines remain,
// and returns the stacks of the others.
func Leaked(base int, wait time.Duration) string {
	deadline := time.Now().Add(wait)
	for {
		if runtime.NumGoroutine() <= base {
			return ""
		}
		buf := make([]byte, 1<<20)
		buf = buf[:runtime.Stack(buf, true)]
		var keep []string
		for _, g := range strings.Split(string(buf), "\n\n") {
			if strings.TrimSpace(g) != "" && !ignore(g) {
				keep = append(keep, g)
			}
		}
		if len(keep) == 0 || time.Now().After(deadline) {
			return strings.Join(keep, "\n\n")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func ignore(stack string) bool {
	for _, s := range ignored {
		if strings.Contains(stack, s) {
			return true
		}
	}
	return false
}
