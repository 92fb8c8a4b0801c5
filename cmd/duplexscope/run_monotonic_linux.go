//go:build linux

package main

import "golang.org/x/sys/unix"

// monotonicNs is CLOCK_MONOTONIC in ns, what Python's time.monotonic_ns()
// returns on Linux (the last part of OmniInteract's session id).
func monotonicNs() int64 {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts) != nil {
		return 0
	}
	return ts.Nano()
}
