//go:build !js

package bench

import (
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestTransportFidelityRows(t *testing.T) {
	t.Parallel()
	e := Errors{CreatedText: []float64{-1, 2}, CreatedAudio: []float64{3}, AudioSpan: nil}
	want := [][]string{
		{"coder", "created → first text", "2", "1.000", "2.000", "2.000", "1.00×"},
		{"coder", "created → first audio", "1", "3.000", "3.000", "3.000", "1.50×"},
		{"coder", "first → last audio", "0", "n/a", "n/a", "n/a", "n/a"},
		{"coder", "all three pooled", "3", "2.000", "3.000", "3.000", "1.50×"},
	}
	if got := transportFidelityRows("coder", e, 2); !reflect.DeepEqual(got, want) {
		t.Errorf("rows =\n%q\nwant\n%q", got, want)
	}
	// Without a native figure the ratio column says so.
	for _, r := range transportFidelityRows("browser", e, math.NaN()) {
		if r[6] != "n/a" {
			t.Errorf("row %q: ratio without a native base = %q, want n/a", r[1], r[6])
		}
	}
}

// TestDroppedFrames: only the page's pacing_lag warnings count, summed.
func TestDroppedFrames(t *testing.T) {
	t.Parallel()
	lag := func(n string) pageWarning {
		return pageWarning{"pacing_lag", n + " input frames could not be sent in time and were dropped"}
	}
	for want, warnings := range map[int][]pageWarning{
		0:  {{"pacing_lag", "the page fell behind"}, {"clock_skew", "5 input frames could not be sent in time and were dropped"}},
		3:  {lag("3")},
		7:  {lag("3"), lag("4")},
		11: {lag("11"), {"clock_skew", "2 input frames could not be sent in time and were dropped"}},
	} {
		if got := droppedFrames(warnings); got != want {
			t.Errorf("droppedFrames(%v) = %d, want %d", warnings, got, want)
		}
	}
	if got := droppedFrames(nil); got != 0 {
		t.Errorf("droppedFrames(nil) = %d", got)
	}
}

// TestSessionThread: only a worker time origin, even at 0, means the worker.
func TestSessionThread(t *testing.T) {
	t.Parallel()
	for extra, want := range map[string]string{
		"":                            "main",
		`{"frame_ms":200}`:            "main",
		`{"time_origins":{"page":0}}`: "main",
		`{"time_origins":{"page":0,"worker":12.5}}`: "worker",
		`{"time_origins":{"worker":0}}`:             "worker",
		`{`:                                         "main",
	} {
		if got := sessionThread(json.RawMessage(extra)); got != want {
			t.Errorf("sessionThread(%s) = %q, want %q", extra, got, want)
		}
	}
}

// TestEachSession: the full run starts one session at a time and none after
// one failed; the quick run starts two at once (the first two must overlap:
// each waits for the other).
func TestEachSession(t *testing.T) {
	t.Parallel()
	for _, quick := range []bool{false, true} {
		c := &Config{Quick: quick}
		var (
			mu             sync.Mutex
			inflight, most int
			calls          []int
			arrived        atomic.Int32
		)
		barrier := make(chan struct{})
		err := c.eachSession(5, func(i int) error {
			mu.Lock()
			inflight++
			most = max(most, inflight)
			calls = append(calls, i)
			mu.Unlock()
			defer func() { mu.Lock(); inflight--; mu.Unlock() }()
			if quick && i < 2 {
				if arrived.Add(1) == 2 {
					close(barrier)
				}
				select {
				case <-barrier:
				case <-time.After(time.Minute):
					return errors.New("the other session never started")
				}
			}
			if i == 2 {
				return errors.New("session 2 failed")
			}
			return nil
		})
		if err == nil || err.Error() != "session 2 failed" {
			t.Errorf("quick=%v: error %v, want session 2's", quick, err)
		}
		want, started := 1, []int{0, 1, 2}
		if quick {
			want, started = 2, nil // after the failure, which slot starts first is a race
		}
		if most != want || (started != nil && !slices.Equal(calls, started)) {
			t.Errorf("quick=%v: %d at once (want %d), sessions started %v (want %v)", quick, most, want, calls, started)
		}
	}
}
