package tracker

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/duplexscope/duplexscope/metrics"
	"github.com/duplexscope/duplexscope/trace"
)

// vectorSessions are the metrics golden traces' sessions (every shape of
// event the reference scores, the odd ones included).
func vectorSessions(t *testing.T) map[string]trace.Session {
	t.Helper()
	files, err := filepath.Glob("../../metrics/testdata/vectors/*.trace.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no vectors (%v)", err)
	}
	out := map[string]trace.Session{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := trace.Decode(b)
		if err != nil {
			continue // a vector of an invalid document: nothing to follow
		}
		switch {
		case doc.Session != nil:
			out[filepath.Base(f)] = *doc.Session
		case doc.Run != nil:
			for i, s := range doc.Run.Sessions {
				out[filepath.Base(f)+"#"+string(rune('0'+i%10))] = s
			}
		}
	}
	return out
}

// A View fed the Deltas of a Tracker, through Encode and Decode, at any
// cadence, shows what the Tracker shows: the page draws the worker's
// session as if it ran on the page.
func TestViewFollowsTheTracker(t *testing.T) {
	t.Parallel()
	equate := cmp.Options{cmpopts.EquateNaNs(), cmpopts.EquateEmpty(), cmp.AllowUnexported(metrics.Int{})}
	for name, s := range vectorSessions(t) {
		for _, every := range []int{1, 3, 7, 1000} {
			tr, v := New(), NewView()
			merge := func(withResult bool) {
				b, err := Encode(tr.Delta(withResult))
				if err != nil {
					t.Fatalf("%s: encode: %v", name, err)
				}
				d, err := Decode(b)
				if err != nil {
					t.Fatalf("%s: decode: %v", name, err)
				}
				v.Merge(d)
			}
			for i, ev := range s.Events {
				tr.Add(ev, nil)
				if i%every == 0 {
					merge(i%(2*every) == 0)
				}
			}
			merge(true)
			if diff := cmp.Diff(tr.Order(), v.Order(), equate); diff != "" {
				t.Errorf("%s every %d: order (-tracker +view)\n%s", name, every, diff)
			}
			for _, id := range tr.Order() {
				if diff := cmp.Diff(*tr.Response(id), *v.Response(id), cmpopts.IgnoreUnexported(Response{})); diff != "" {
					t.Errorf("%s every %d: response %s (-tracker +view)\n%s", name, every, id, diff)
				}
			}
			for what, pair := range map[string][2]any{
				"marks": {tr.Marks(), v.Marks()}, "captions": {tr.Captions(), v.Captions()}, "levels": {tr.Levels(), v.Levels()},
				"lags": {tr.PacingLagsMs(), v.PacingLagsMs()}, "log": {tr.LogRows(MaxViewLogRows), v.LogRows(MaxViewLogRows)},
				"stream start": {tr.StreamStartMs(), v.StreamStartMs()}, "legacy": {tr.Legacy(), v.Legacy()},
			} {
				if diff := cmp.Diff(pair[0], pair[1], equate); diff != "" {
					t.Errorf("%s every %d: %s (-tracker +view)\n%s", name, every, what, diff)
				}
			}
			// Non-finite values are cleared in the live copy (Encode).
			want := toWire(tr.Result(), 0)
			if _, err := json.Marshal(want); err != nil {
				want = rewrite(reflect.ValueOf(want)).Interface().(*Metrics)
			}
			if diff := cmp.Diff(resultOf(want), v.Result(), equate); diff != "" {
				t.Errorf("%s every %d: result (-tracker +view)\n%s", name, every, diff)
			}
		}
	}
}

// resultOf is the whole result m carries (m from position 0).
func resultOf(m *Metrics) metrics.SessionResult {
	var r metrics.SessionResult
	m.merge(&r, 0)
	return r
}

// A Delta's metrics carry only the rows and timings that may have changed:
// one more audio delta of the last response resends that response's row
// alone. A View that missed a Delta says so and keeps its own; after
// ResendMetrics the next Delta brings it back in step.
func TestDeltaMetricsIncremental(t *testing.T) {
	t.Parallel()
	tr, v := New(), NewView()
	const n = 5
	for i := range n {
		id := fmt.Sprintf("r%d", i)
		tm := float64(1000 * i)
		for _, e := range []string{`{"type":"response.created","response":{"id":%q}}`, `{"type":"response.output_audio.delta","response_id":%q,"delta":"AAAA"}`} {
			tr.Add(ev(tm, trace.DirRecv, fmt.Sprintf(e, id)), nil)
			tm += 100
		}
	}
	v.Merge(tr.Delta(true))
	tr.Add(ev(9000, trace.DirRecv, fmt.Sprintf(`{"type":"response.output_audio.delta","response_id":%q,"delta":"AAAAAAAA"}`, "r3")), nil)
	d := tr.Delta(true)
	if m := d.Metrics; m.RowsFrom != 3 || len(m.Rows) != 2 || m.ResponsesFrom != 3 || len(m.Responses) != 2 {
		t.Errorf("after r3 changed: rows from %d (%d), timings from %d (%d); want 3 (2) and 3 (2)", m.RowsFrom, len(m.Rows), m.ResponsesFrom, len(m.Responses))
	}
	if m := v.Merge(d); m.Lost {
		t.Error("a Delta that follows the view was refused")
	}
	d = tr.Delta(true)
	if len(d.Metrics.Rows) != 0 || len(d.Metrics.Responses) != 0 {
		t.Errorf("nothing changed, yet %d rows and %d timings resent", len(d.Metrics.Rows), len(d.Metrics.Responses))
	}
	v.Merge(d)

	tr.Add(ev(9100, trace.DirRecv, `{"type":"response.output_audio.delta","response_id":"r4","delta":"AAAA"}`), nil)
	_ = tr.Delta(true) // lost on the way
	tr.Add(ev(9200, trace.DirRecv, `{"type":"response.created","response":{"id":"r5"}}`), nil)
	if m := v.Merge(tr.Delta(true)); !m.Lost {
		t.Error("a Delta after a lost one was merged")
	}
	tr.ResendMetrics()
	if m := v.Merge(tr.Delta(true)); m.Lost {
		t.Error("the whole metrics after ResendMetrics were refused")
	}
	if diff := cmp.Diff(tr.Result(), v.Result(), cmp.AllowUnexported(metrics.Int{})); diff != "" {
		t.Errorf("after ResendMetrics (-tracker +view)\n%s", diff)
	}
}

// A server's float("inf") in its engine metrics does not stop the live
// copy: Encode clears the value and keeps the rest.
func TestEncodeClearsNonFinite(t *testing.T) {
	t.Parallel()
	inf, one := math.Inf(1), 1.0
	res := metrics.SessionResult{Rows: []metrics.Row{{ResponseID: "r1",
		Raw:    &metrics.RawMetric{TTFPMs: 12, TPOTMs: &inf, RTF: &one},
		Stage0: &metrics.Stage0Tokens{TTFTMs: math.NaN(), TPOTMs: 3, ITLsMs: []float64{1, inf}},
	}}}
	b, err := Encode(Delta{Metrics: toWire(res, 0)})
	if err != nil {
		t.Fatal(err)
	}
	d, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	got := resultOf(d.Metrics).Rows[0]
	if got.Raw.TPOTMs != nil || got.Raw.TTFPMs != 12 || *got.Raw.RTF != 1 || got.Stage0.TTFTMs != 0 || got.Stage0.TPOTMs != 3 ||
		!cmp.Equal(got.Stage0.ITLsMs, []float64{1, 0}) {
		t.Errorf("decoded row %+v raw %+v stage0 %+v; want the non-finite values cleared, the rest kept", got, *got.Raw, *got.Stage0)
	}
	if !math.IsInf(*res.Rows[0].Raw.TPOTMs, 1) {
		t.Error("Encode changed the caller's result")
	}
}

// The log a View keeps is the tracker's last MaxViewLogRows rows, also
// after rows fell off the tracker's front between two Deltas.
func TestViewLogAcrossDrops(t *testing.T) {
	t.Parallel()
	tr, v := New(), NewView()
	add := func(n int) {
		for range n {
			dir := trace.DirSend
			if len(tr.log.rows)%2 == 1 {
				dir = trace.DirRecv
			}
			tr.Add(ev(float64(tr.log.dropped+len(tr.log.rows)), dir, `{"type":"x"}`), nil)
		}
	}
	add(10)
	v.Merge(tr.Delta(false))
	add(MaxLogRows + 50) // more than the tracker keeps: a gap
	v.Merge(tr.Delta(false))
	add(3)
	v.Merge(tr.Delta(false))
	if diff := cmp.Diff(tr.LogRows(MaxViewLogRows), v.LogRows(MaxViewLogRows)); diff != "" {
		t.Errorf("(-tracker +view)\n%s", diff)
	}
	if n := len(v.LogRows(MaxLogRows)); n != MaxViewLogRows {
		t.Errorf("view keeps %d rows, want %d", n, MaxViewLogRows)
	}
}
