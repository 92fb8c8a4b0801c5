package session

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestMain fails the package when goroutines outlive the tests (sessions must
// stop their reader, processor and dispatcher goroutines on Close/failure).
func TestMain(m *testing.M) {
	base := runtime.NumGoroutine()
	code := m.Run()
	if code == 0 {
		if err := checkGoroutines(base, 5*time.Second); err != nil {
			fmt.Fprintln(os.Stderr, err)
			code = 1
		}
	}
	os.Exit(code)
}

// checkGoroutines waits up to d for the goroutine count to fall back to base.
func checkGoroutines(base int, d time.Duration) error {
	deadline := time.Now().Add(d)
	for {
		n := runtime.NumGoroutine()
		if n <= base {
			return nil
		}
		buf := make([]byte, 1<<20)
		buf = buf[:runtime.Stack(buf, true)]
		leaked := leakedStacks(string(buf))
		if leaked == "" {
			return nil // only runtime helpers (e.g. wasm's event handler) were added
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("goroutine leak: %d goroutines after the tests, %d before:\n%s", n, base, leaked)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// leakedStacks drops the test binary's own goroutine (the one running
// TestMain) and runtime helpers (wasm's js event handler) from a dump.
func leakedStacks(dump string) string {
	var keep []string
	for _, g := range strings.Split(dump, "\n\n") {
		if strings.Contains(g, "session.TestMain") || strings.Contains(g, "runtime.handleEvent") || strings.TrimSpace(g) == "" {
			continue
		}
		keep = append(keep, g)
	}
	return strings.Join(keep, "\n\n")
}
