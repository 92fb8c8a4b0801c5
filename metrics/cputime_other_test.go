//go:build !linux

package metrics_test

import "time"

// cpuTime is unavailable here; benchmarks then report cpu-ns/op as 0.
func cpuTime() time.Duration { return 0 }
