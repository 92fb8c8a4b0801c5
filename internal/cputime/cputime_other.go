//go:build !unix

package cputime

import "time"

// Self is 0 here: the process's CPU time is unavailable, and benchmarks
// then report no CPU figure.
func Self() time.Duration { return 0 }
