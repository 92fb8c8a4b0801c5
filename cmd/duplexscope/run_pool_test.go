//go:build !js

package main

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// poolWait bounds how long a pool test waits for an event before it fails
// (a bound on a hang, never a sleep that a pass depends on).
const poolWait = 10 * time.Second

// TestRunPoolRunsEveryIndexOnce: every index runs exactly once, its outcome
// lands at its index, done counts every session, and no more than workers
// sessions are in flight while all workers are used.
func TestRunPoolRunsEveryIndexOnce(t *testing.T) {
	t.Parallel()
	cases := []struct{ n, workers, wantPeak int }{
		{0, 1, 0},
		{1, 1, 1},
		{5, 1, 1},
		{6, 3, 3},
		{3, 10, 3}, // never more workers than sessions
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("%d sessions %d workers", tc.n, tc.workers), func(t *testing.T) {
			t.Parallel()
			var inFlight, peak, dones atomic.Int64
			calls := make([]atomic.Int64, tc.n)
			// The first wantPeak sessions wait until all of them have
			// started: the pool must run that many at once.
			var started sync.WaitGroup
			started.Add(tc.wantPeak)
			allStarted := make(chan struct{})
			go func() { started.Wait(); close(allStarted) }()
			do := func(i int) outcome {
				now := inFlight.Add(1)
				for p := peak.Load(); now > p && !peak.CompareAndSwap(p, now); p = peak.Load() {
				}
				if i < tc.wantPeak {
					started.Done()
					select {
					case <-allStarted:
					case <-time.After(poolWait):
						t.Errorf("session %d: the pool never ran %d sessions at once", i, tc.wantPeak)
					}
				}
				calls[i].Add(1)
				inFlight.Add(-1)
				return outcome{err: fmt.Errorf("session %d", i)}
			}
			got := runPool(context.Background(), tc.n, tc.workers, do, func() { dones.Add(1) })
			if len(got) != tc.n || dones.Load() != int64(tc.n) {
				t.Fatalf("%d outcomes, done called %d times; want %d", len(got), dones.Load(), tc.n)
			}
			for i, oc := range got {
				if !oc.ran || oc.err == nil || oc.err.Error() != fmt.Sprintf("session %d", i) || calls[i].Load() != 1 {
					t.Errorf("outcome %d: ran %v err %v after %d calls; want its own, run once", i, oc.ran, oc.err, calls[i].Load())
				}
			}
			if peak.Load() != int64(tc.wantPeak) {
				t.Errorf("peak %d sessions at once, want %d", peak.Load(), tc.wantPeak)
			}
		})
	}
}

// TestRunPoolStopsFeedingWhenInterrupted: once ctx ends, the sessions that
// run finish and the rest are never handed out (ran false), so the outputs
// name them as not run.
func TestRunPoolStopsFeedingWhenInterrupted(t *testing.T) {
	t.Parallel()
	cases := []struct{ n, workers int }{
		{3, 1},
		{5, 2},
		{4, 4}, // every session already running: all of them finish
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("%d sessions %d workers", tc.n, tc.workers), func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithCancelCause(context.Background())
			defer cancel(nil)
			started := make(chan int, tc.n)
			release := make(chan struct{})
			do := func(i int) outcome {
				started <- i
				<-release
				return outcome{err: context.Cause(ctx)}
			}
			result := make(chan []outcome, 1)
			go func() { result <- runPool(ctx, tc.n, tc.workers, do, func() {}) }()
			// Every worker holds a session; the feeder waits for a free one.
			running := map[int]bool{}
			for range tc.workers {
				select {
				case i := <-started:
					running[i] = true
				case <-time.After(poolWait):
					t.Fatalf("only %d of %d workers started", len(running), tc.workers)
				}
			}
			interrupted := errors.New("interrupted")
			cancel(interrupted)
			close(release)
			var got []outcome
			select {
			case got = <-result:
			case <-time.After(poolWait):
				t.Fatal("the pool did not return after ctx ended")
			}
			for i, oc := range got {
				if oc.ran != running[i] {
					t.Errorf("outcome %d ran %v, want %v (running when interrupted: %v)", i, oc.ran, running[i], running)
				}
				if oc.ran && !errors.Is(oc.err, interrupted) {
					t.Errorf("outcome %d err %v, want the session's own", i, oc.err)
				}
			}
		})
	}
}
