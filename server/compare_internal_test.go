//go:build !js

package server

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestResampleStats: the counting resample gives exactly what sorting the
// drawn values gives.
func TestResampleStats(t *testing.T) {
	for _, n := range []int{1, 2, 3, 7, 100, 101, 500} {
		data := make([]float64, n)
		for i := range data {
			data[i] = float64(i*i%97) + 0.5
		}
		slices.Sort(data)
		r1 := rand.New(rand.NewPCG(3, 4))
		r2 := rand.New(rand.NewPCG(3, 4))
		counts := make([]int32, n)
		for it := 0; it < 20; it++ {
			var got [3]float64
			resampleStats(r1, data, counts, &got)
			drawn := make([]float64, n)
			for i := range drawn {
				drawn[i] = data[r2.IntN(n)]
			}
			slices.Sort(drawn)
			sum := 0.0
			for _, v := range drawn {
				sum += v
			}
			want := [3]float64{sum / float64(n), nearestRank(drawn, 0.5), nearestRank(drawn, 0.99)}
			for k := range want {
				if math.Abs(got[k]-want[k]) > 1e-9*math.Max(1, math.Abs(want[k])) {
					t.Fatalf("n=%d it=%d stat %d: got %v, want %v", n, it, k, got[k], want[k])
				}
			}
		}
	}
}
