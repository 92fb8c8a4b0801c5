package chart

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestEnvelope: points pass through in order; a gap longer than
// envelopeGapS gets two zero points just inside it, a gap of exactly
// envelopeGapS does not.
func TestEnvelope(t *testing.T) {
	t.Parallel()
	gap, edge := envelopeGapS, envelopeEdgeS // float64 arithmetic, as in the code
	for _, tc := range []struct {
		name   string
		levels []Level
		want   [][]float64
	}{
		{"empty", nil, nil},
		{"one point", []Level{{2, 0.3}}, [][]float64{{2, 0.3}}},
		{"dense", []Level{{0, 0.1}, {0.2, 0.2}, {0.4, 0.3}}, [][]float64{{0, 0.1}, {0.2, 0.2}, {0.4, 0.3}}},
		{"gap of exactly the limit", []Level{{1, 0.5}, {1 + gap, 0.6}}, [][]float64{{1, 0.5}, {1 + gap, 0.6}}},
		{"two silences", []Level{{0, 0.5}, {1, 0.6}, {3, 0.4}},
			[][]float64{{0, 0.5}, {0 + edge, 0}, {1 - edge, 0}, {1, 0.6}, {1 + edge, 0}, {3 - edge, 0}, {3, 0.4}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got [][]float64
			for _, d := range envelope(tc.levels) {
				got = append(got, d.Value.([]float64))
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}
