package metrics

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
)

func BenchmarkSortFloats10k(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	src := make([]float64, 10000)
	for i := range src {
		src[i] = float64(int(r.Float64()*500000)) / 1000
	}
	v := make([]float64, len(src))
	b.Run("radix", func(b *testing.B) {
		for b.Loop() {
			copy(v, src)
			sortFloats(v)
		}
	})
	b.Run("stable", func(b *testing.B) {
		for b.Loop() {
			copy(v, src)
			slices.SortStableFunc(v, cmp.Compare[float64])
		}
	})
	b.Run("pdq", func(b *testing.B) {
		for b.Loop() {
			copy(v, src)
			slices.Sort(v)
		}
	})
}
