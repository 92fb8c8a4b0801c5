package metrics_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/duplexscope/duplexscope/metrics"
	"github.com/duplexscope/duplexscope/metrics/conformance"
	"github.com/duplexscope/duplexscope/trace"
)

// FuzzScore: any decodable trace scores without panicking, the output is
// strict JSON or refused with the path of its non-finite value, and for
// sessions the incremental path (meta given late) equals the batch path.
func FuzzScore(f *testing.F) {
	f.Add([]byte(`{"session":{"stream_start_ms":5},"events":[{"t_ms":10,"dir":"recv","event":{"type":"response.created","response_id":"r"}},{"t_ms":20,"dir":"recv","event":{"type":"response.output_audio.delta","response_id":"r","delta":"AAAA","sample_rate_hz":true,"metadata":{"audio_duration_ms":1e999}}}]}`))
	f.Add([]byte(`{"kind":"run","existing_report":{"duplex_request_metrics":[{"ttft_ms":1}]},"sessions":[{"events":[]}]}`))
	f.Add([]byte(`{"kind":"engine_tpot","outputs":[{"t_ms":1,"new_tokens":1e300},{"t_ms":2,"new_tokens":2,"segment":[1]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := trace.Decode(data)
		if err != nil {
			return
		}
		out, err := metrics.Score(doc)
		if err != nil {
			return
		}
		checkStrictOrRefused(t, out)
		if doc.Session != nil {
			var a metrics.Accumulator
			for _, ev := range doc.Session.Events {
				a.Add(ev)
			}
			a.SetMeta(doc.Session.Session)
			if got, want := finiteJSON(t, a.Snapshot().Object()), finiteJSON(t, metrics.ScoreSession(*doc.Session).Object()); string(got) != string(want) {
				t.Fatalf("incremental != batch:\n%s\n%s", got, want)
			}
		}
	})
}

// FuzzScoreStrictJSON is seeded with every golden and edge vector (the
// classes the randomized comparison with the reference found) and checks
// the issue-16 promise on random traces: `score` output is strict JSON or
// a refusal that names a field, and the writers that must not lose a run
// (Report.File, Report.MarshalJSON, Finite) are always strict JSON, with
// NonFinite naming exactly what they wrote as null.
func FuzzScoreStrictJSON(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("testdata", "vectors", "*.trace.json"))
	if err != nil || len(files) < 28 {
		f.Fatalf("vectors: %v (%d)", err, len(files))
	}
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := trace.Decode(data)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("refusal without a message")
			}
			return
		}
		out, err := metrics.Score(doc)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("refusal without a message")
			}
		} else {
			checkStrictOrRefused(t, out)
		}
		var results []metrics.SessionResult
		switch {
		case doc.Session != nil:
			results = append(results, metrics.ScoreSession(*doc.Session))
		case doc.Run != nil:
			for _, s := range doc.Run.Sessions {
				results = append(results, metrics.ScoreSession(s))
			}
		}
		rep := metrics.BuildReport(results)
		if err := conformance.StrictJSON(rep.File()); err != nil {
			t.Fatalf("duplex_metrics.json: %v\n%s", err, rep.File())
		}
		b, err := rep.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		if err := conformance.StrictJSON(b); err != nil {
			t.Fatalf("report JSON: %v\n%s", err, b)
		}
		if _, err := rep.Object().MarshalJSON(); (err != nil) != (len(rep.NonFinite()) > 0) {
			t.Fatalf("strict writer error %v but NonFinite %q", err, rep.NonFinite())
		}
	})
}

// checkStrictOrRefused: a score output either marshals to strict JSON or
// is refused with a NonFiniteError naming a path.
func checkStrictOrRefused(t *testing.T, out metrics.Object) {
	t.Helper()
	b, err := out.MarshalJSON()
	if err != nil {
		var ne *metrics.NonFiniteError
		if !errors.As(err, &ne) || ne.Path == "" {
			t.Fatalf("refusal without a path: %v", err)
		}
		return
	}
	if err := conformance.StrictJSON(b); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
}

// finiteJSON marshals v with non-finite values as null (both sides of a
// comparison alike).
func finiteJSON(t *testing.T, v metrics.Object) []byte {
	t.Helper()
	clean, _ := metrics.Finite(v)
	return mustJSON(t, clean.(metrics.Object))
}
