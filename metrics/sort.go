package metrics

import (
	"cmp"
	"math"
	"slices"
)

// sortFloats sorts finite values ascending exactly as Python's sorted()
// does: stably, with -0.0 equal to 0.0 (so their input order is kept, which
// decides whether a percentile prints as -0.0 or 0.0). Large inputs use a
// stable LSD radix sort (linear time), small ones a stable comparison sort.
func sortFloats(v []float64) {
	if len(v) < 512 {
		slices.SortStableFunc(v, cmp.Compare[float64])
		return
	}
	n := len(v)
	buf := make([]uint64, 2*n)
	keys, tmp := buf[:n], buf[n:]
	var diff uint64 // bits in which some key differs from the first
	var zeroSigns []bool
	for i, f := range v {
		if f == 0 {
			zeroSigns = append(zeroSigns, math.Signbit(f))
		}
		keys[i] = sortKey(f)
		diff |= keys[i] ^ keys[0]
	}
	var count [256]int
	for shift := uint(0); shift < 64; shift += 8 {
		if (diff>>shift)&0xff == 0 {
			continue // every key has the same byte here
		}
		count = [256]int{}
		for _, k := range keys {
			count[(k>>shift)&0xff]++
		}
		pos := 0
		for b := range count {
			c := count[b]
			count[b] = pos
			pos += c
		}
		for _, k := range keys {
			b := (k >> shift) & 0xff
			tmp[count[b]] = k
			count[b]++
		}
		keys, tmp = tmp, keys
	}
	z := 0 // zeros keep their input order of signs (stability)
	for i, k := range keys {
		f := fromSortKey(k)
		if f == 0 {
			if zeroSigns[z] {
				f = math.Copysign(0, -1)
			}
			z++
		}
		v[i] = f
	}
}

// fromSortKey inverts sortKey (zeros come back as +0.0).
func fromSortKey(k uint64) float64 {
	if k>>63 == 1 {
		return math.Float64frombits(k &^ (1 << 63))
	}
	return math.Float64frombits(^k)
}

// sortKey maps a float64 to a uint64 whose unsigned order is the numeric
// order, with -0.0 and 0.0 mapped to the same key.
func sortKey(f float64) uint64 {
	if f == 0 {
		f = 0 // -0.0 → +0.0
	}
	b := math.Float64bits(f)
	if b>>63 == 1 {
		return ^b
	}
	return b | 1<<63
}
