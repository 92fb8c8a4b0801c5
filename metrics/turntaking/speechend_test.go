package turntaking_test

import (
	"testing"

	"github.com/duplexscope/duplexscope/metrics/turntaking"
	"github.com/google/go-cmp/cmp"
)

func TestSpeechEndToFirstSound(t *testing.T) {
	p := func(v float64) *float64 { return &v }
	user := []turntaking.Interval{{StartMs: 1000, EndMs: 3000}, {StartMs: 6000, EndMs: 8000}}
	cases := []struct {
		name   string
		starts []*float64
		want   []*float64
	}{
		{"one reply per speech end", []*float64{p(3500), p(8900)}, []*float64{p(500), p(900)}},
		{"a second reply after the same speech end has none", []*float64{p(3500), p(4200)}, []*float64{p(500), nil}},
		{"a reply while the user speaks has none", []*float64{p(2000), p(7000)}, []*float64{nil, nil}},
		{"a reply before any speech has none", []*float64{p(500)}, []*float64{nil}},
		{"never played stays nil", []*float64{nil, p(3300)}, []*float64{nil, p(300)}},
		{"order of the list does not matter", []*float64{p(4200), p(3500)}, []*float64{nil, p(500)}},
		{"a reply exactly at the speech end waits 0", []*float64{p(3000)}, []*float64{p(0)}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := turntaking.SpeechEndToFirstSound(user, tc.starts)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}
