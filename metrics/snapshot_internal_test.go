package metrics

import (
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
)

// TestStreamEnds: the window runs from the earliest text and first audio
// packet to the latest audio packet by arrival order (not by list order),
// durations add the server's value when there is one, else the bytes'.
func TestStreamEnds(t *testing.T) {
	t.Parallel()
	type resp struct {
		w      window
		byteMs float64
	}
	for _, tc := range []struct {
		name  string
		resps []resp
		ss    float64
		want  *StreamWindow
	}{
		{"none", nil, 0, nil},
		{"text but no audio", []resp{{w: window{hasText: true, textT: 1}}}, 0, nil},
		{"one response", []resp{{w: window{hasText: true, textT: 1.2, textSeq: 1,
			packets: 2, firstT: 1.5, firstSeq: 2, lastT: 2.5, lastSeq: 3}, byteMs: 500}}, 1,
			&StreamWindow{TTFTMs: ptr(200.0), TTFPMs: 500, AudioGenerationMs: 1500, AudioDurationMs: 500, RTF: ptr(3.0)}},
		{"ends by arrival, server duration wins", []resp{
			{w: window{packets: 1, firstT: 3, firstSeq: 9, lastT: 3.5, lastSeq: 10, hasDur5: true, dur5: 250}, byteMs: 999},
			{w: window{hasText: true, textT: 2, textSeq: 4, packets: 1, firstT: 2.5, firstSeq: 5, lastT: 4, lastSeq: 8}, byteMs: 750},
		}, 2, &StreamWindow{TTFTMs: ptr(0.0), TTFPMs: 500, AudioGenerationMs: 1500, AudioDurationMs: 1000, RTF: ptr(1.5)}},
		{"no duration: no rtf, generation not negative", []resp{{w: window{packets: 1, firstT: 0.5, lastT: 0.5}}}, 1,
			&StreamWindow{TTFPMs: -500, AudioGenerationMs: 0, AudioDurationMs: 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var e streamEnds
			for i := range tc.resps {
				e.add(&tc.resps[i].w, tc.resps[i].byteMs)
			}
			if diff := gocmp.Diff(tc.want, e.window(tc.ss)); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}

// TestSamplesAdd: tpot counts only when positive, client latencies only
// when not negative, missing values never.
func TestSamplesAdd(t *testing.T) {
	t.Parallel()
	rows := []RawMetric{
		{TTFTMs: ptr(10.0), TTFPMs: 20, RTF: ptr(0.5), TPOTMs: ptr(0.0), ClientTTFTMs: ptr(0.0), ClientTTFPMs: ptr(-1.0)},
		{TTFPMs: 30, TPOTMs: ptr(4.0), ClientTTFTMs: ptr(-2.0), ClientTTFPMs: ptr(7.0)},
		{TTFTMs: ptr(11.0), TTFPMs: 40, RTF: ptr(1.5)},
	}
	s := newSamples(make([]float64, 6*len(rows)), len(rows))
	for i := range rows {
		s.add(&rows[i])
	}
	want := samples{ttft: []float64{10, 11}, ttfp: []float64{20, 30, 40}, rtf: []float64{0.5, 1.5},
		tpot: []float64{4}, cttft: []float64{0}, cttfp: []float64{7}}
	if diff := gocmp.Diff(want, s, gocmp.AllowUnexported(samples{})); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
}

// TestNewSamplesSharesOneSlab: the six lists live in their own stretches
// of the one allocation, so filling one never overwrites another.
func TestNewSamplesSharesOneSlab(t *testing.T) {
	t.Parallel()
	const n = 3
	vals := make([]float64, 6*n)
	s := newSamples(vals, n)
	lists := []*[]float64{&s.ttft, &s.ttfp, &s.rtf, &s.tpot, &s.cttft, &s.cttfp}
	for k, l := range lists {
		for j := range n {
			*l = append(*l, float64(10*k+j))
		}
	}
	for k := range lists {
		for j := range n {
			if got, want := vals[k*n+j], float64(10*k+j); got != want {
				t.Fatalf("vals[%d] = %v, want %v (list %d overflowed its stretch)", k*n+j, got, want, k)
			}
		}
	}
}

// TestRawSlab: RawMetrics come from one allocation until it is full; the
// ones handed out stay valid after a new allocation.
func TestRawSlab(t *testing.T) {
	t.Parallel()
	var s rawSlab
	a := s.next(2)
	a.TTFPMs = 1
	b := s.next(1)
	b.TTFPMs = 2
	if &s[0] != a || &s[1] != b {
		t.Fatal("the first two do not share one allocation")
	}
	c := s.next(5)
	if cap(s) != 5 || len(s) != 1 || &s[0] != c {
		t.Fatalf("after a full slab: len %d cap %d, want a new slab of 5 holding the third", len(s), cap(s))
	}
	if a.TTFPMs != 1 || b.TTFPMs != 2 || c.TTFPMs != 0 {
		t.Errorf("values %v %v %v, want 1 2 0", a.TTFPMs, b.TTFPMs, c.TTFPMs)
	}
}

// TestResponseTiming: instants are set only for what was seen, and point
// into the given store.
func TestResponseTiming(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name                 string
		w                    window
		created, text, audio bool
	}{
		{"nothing seen", window{}, false, false, false},
		{"created only", window{hasCreated: true, created: 5}, true, false, false},
		{"all", window{hasCreated: true, created: 5, hasText: true, textMs: 6, packets: 3, firstMs: 7, lastMs: 9}, true, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := respState{id: "r1", bytes: 480, win: tc.w}
			ms := make([]float64, 4)
			rt := responseTiming(&st, 2, ms)
			if rt.ResponseID != "r1" || rt.RequestIndex != 2 || rt.AudioBytes != 480 || rt.AudioPackets != tc.w.packets {
				t.Errorf("identity/counts = %+v", rt)
			}
			check := func(name string, p *float64, seen bool, at int, want float64) {
				if (p != nil) != seen {
					t.Errorf("%s set = %v, want %v", name, p != nil, seen)
				} else if p != nil && (p != &ms[at] || *p != want) {
					t.Errorf("%s = %v (in store: %v), want %v in ms[%d]", name, *p, p == &ms[at], want, at)
				}
			}
			check("CreatedMs", rt.CreatedMs, tc.created, 0, tc.w.created)
			check("FirstTextMs", rt.FirstTextMs, tc.text, 1, tc.w.textMs)
			check("FirstAudioMs", rt.FirstAudioMs, tc.audio, 2, tc.w.firstMs)
			check("LastAudioMs", rt.LastAudioMs, tc.audio, 3, tc.w.lastMs)
		})
	}
}
