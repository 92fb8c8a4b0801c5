//go:build !linux && !js

package main

import "time"

var processStart = time.Now()

// monotonicNs is nanoseconds on Go's monotonic clock since the process
// started (the OS monotonic clock is not exposed here).
func monotonicNs() int64 { return int64(time.Since(processStart)) }
