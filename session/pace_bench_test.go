package session

import (
	"context"
	"sort"
	"testing"
	"time"
)

// Pacing benchmarks (issue 9): send-time jitter and drift of the absolute
// schedule (Pacer, what Stream uses) against two naive baselines measured in
// the same run — a time.Ticker and a relative time.Sleep(frame) after each
// send (Omni-DuplexEval's pacing). Each iteration paces benchFrames frames of
// benchFrameMs on the real clock; reported per run:
//
//	jitter-p99-ms  p99 of |actual − scheduled| over all frames
//	drift-ms       lateness of the last frame (accumulated error)
//
// go test -run '^$' -bench Pacing -benchtime 3x ./session/
const (
	benchFrames  = 100
	benchFrameMs = 20
)

func benchPacing(b *testing.B, pace func(ctx context.Context, c Clock, start time.Duration, k int, frame time.Duration)) {
	c := SystemClock()
	frame := benchFrameMs * time.Millisecond
	var all []float64
	var drift float64
	for range b.N {
		start := c.Now()
		for k := 1; k < benchFrames; k++ {
			pace(context.Background(), c, start, k, frame)
			lag := c.Now() - (start + time.Duration(k)*frame)
			if lag < 0 {
				lag = -lag
			}
			all = append(all, durMs(lag))
			if k == benchFrames-1 {
				drift += durMs(lag)
			}
		}
	}
	sort.Float64s(all)
	b.ReportMetric(all[min(len(all)-1, int(float64(len(all))*0.99))], "jitter-p99-ms")
	b.ReportMetric(drift/float64(b.N), "drift-ms")
	b.ReportMetric(0, "ns/op")
}

func BenchmarkPacingAbsolute(b *testing.B) {
	benchPacing(b, func(ctx context.Context, c Clock, start time.Duration, k int, frame time.Duration) {
		p := Pacer{Start: start, Rate: 16000}
		_, _, _ = p.Wait(ctx, c, c.(Sleeper), k*int(frame/time.Millisecond)*32)
	})
}

func BenchmarkPacingRelativeSleep(b *testing.B) {
	benchPacing(b, func(_ context.Context, _ Clock, _ time.Duration, _ int, frame time.Duration) {
		time.Sleep(frame)
	})
}

func BenchmarkPacingTicker(b *testing.B) {
	var tk *time.Ticker
	var last time.Duration
	benchPacing(b, func(_ context.Context, _ Clock, start time.Duration, k int, frame time.Duration) {
		if tk == nil || start != last {
			if tk != nil {
				tk.Stop()
			}
			tk, last = time.NewTicker(frame), start
		}
		<-tk.C
	})
	if tk != nil {
		tk.Stop()
	}
}
