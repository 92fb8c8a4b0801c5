package session

import (
	"context"
	"sort"
	"time"

	"github.com/duplexscope/duplexscope/audio"
	"github.com/duplexscope/duplexscope/metrics"
)

// Frame sizes the reference clients use (docs/protocol.md#pacing).
const (
	FrameOmniInteract = 200  // ms, OmniInteract and the browser demo (default)
	FramePersonaPlex  = 80   // ms, PersonaPlex ticks
	FrameDuplexEval   = 1000 // ms, Omni-DuplexEval units
)

// ApplyTailRule applies the final-commit tail rule (docs/protocol.md#final-commit-tail-rule): when
// pcm holds ≥ 2 bytes and is an exact multiple of one model unit
// (16 000 × 2 × chunkPeriodMs / 1000 bytes), its last sample is dropped.
// chunkPeriodMs ≤ 0 means the default unit, 1000 ms.
func ApplyTailRule(pcm []byte, chunkPeriodMs int) []byte {
	unit := tailUnitBytes(chunkPeriodMs)
	if len(pcm) >= 2 && unit > 0 && len(pcm)%unit == 0 {
		return pcm[:len(pcm)-2]
	}
	return pcm
}

func tailUnitBytes(chunkPeriodMs int) int {
	if chunkPeriodMs <= 0 {
		chunkPeriodMs = 1000
	}
	return audio.InputRate * 2 * chunkPeriodMs / 1000
}

// Pacer sends input on an absolute schedule: the chunk starting at byte
// offset off is due at Start + off/32 000 s (frame k of a constant frame size
// at Start + k·frame), so lateness never accumulates into drift.
type Pacer struct {
	Start time.Duration // clock reading of stream start (the first append)
	Rate  int           // input sample rate (16 000)
}

// Due is the scheduled send instant of the chunk starting at byte offset off.
func (p Pacer) Due(off int) time.Duration {
	return p.Start + audio.BytesToDuration(off, p.Rate)
}

// Wait sleeps until the chunk at off is due and returns the scheduled
// instant and the lag (actual − scheduled, on clock c) at wake-up.
func (p Pacer) Wait(ctx context.Context, c Clock, s Sleeper, off int) (due, lag time.Duration, err error) {
	due = p.Due(off)
	if err := s.SleepUntil(ctx, due); err != nil {
		return due, 0, err
	}
	return due, c.Now() - due, nil
}

// LagStats summarises pacing lags (nearest-rank percentiles, docs/metrics.md#nearest-rank-percentile).
type LagStats struct {
	Frames int     `json:"frames"`
	MeanMs float64 `json:"mean_ms"`
	P50Ms  float64 `json:"p50_ms"`
	P99Ms  float64 `json:"p99_ms"`
	MaxMs  float64 `json:"max_ms"`
}

// SummarizeLag computes LagStats over lags (zero value when empty).
func SummarizeLag(lags []time.Duration) LagStats {
	if len(lags) == 0 {
		return LagStats{}
	}
	v := make([]float64, len(lags))
	var sum float64
	for i, l := range lags {
		v[i] = durMs(l)
	}
	sort.Float64s(v)
	for _, x := range v {
		sum += x
	}
	return LagStats{Frames: len(v), MeanMs: sum / float64(len(v)), P50Ms: metrics.Percentile(v, 0.5), P99Ms: metrics.Percentile(v, 0.99), MaxMs: v[len(v)-1]}
}
