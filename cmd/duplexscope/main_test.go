//go:build !js

package main

import (
	"flag"
	"os"
	"strconv"
	"testing"
)

// waitingParallel is how many parallel tests of this package run at once
// when -parallel is not given (the default is GOMAXPROCS, 2 on CI). They
// mostly wait on real-time simulated sessions: the whole package under
// -race used 34 s of CPU in 128 s of wall time at 4. The latency-bounded
// ones (TestRunTurnTakingScores, TestRunProbesInReport) bound what the
// simulator's clock and the run's own measured pacing lag allow, and read
// the same latencies at 4 as at 2.
const waitingParallel = 4

func TestMain(m *testing.M) {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		if err := flag.Set("test.parallel", strconv.Itoa(waitingParallel)); err != nil {
			panic(err)
		}
	}
	os.Exit(m.Run())
}
