package leakcheck

import (
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestLeaked: a goroutine the test started is reported with its stack
// until it ends; then nothing is.
func TestLeaked(t *testing.T) {
	base := runtime.NumGoroutine()
	stop := make(chan struct{})
	done := make(chan struct{})
	go blockUntil(stop, done)
	if got := Leaked(base, 50*time.Millisecond); !strings.Contains(got, "leakcheck.blockUntil") {
		t.Errorf("Leaked with a blocked goroutine = %q, want its stack", got)
	}
	close(stop)
	<-done
	if got := Leaked(base, 5*time.Second); got != "" {
		t.Errorf("Leaked after it ended = %q, want none", got)
	}
}

func blockUntil(stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	<-stop
}
