//go:build linux

package metrics_test

import (
	"syscall"
	"time"
)

// cpuTime is this process's user+system CPU time, so benchmarks can report
// CPU per op, which a shared, overloaded machine distorts far less than
// wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
