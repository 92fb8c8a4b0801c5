package metrics_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/duplexscope/duplexscope/internal/golden"
	"github.com/duplexscope/duplexscope/metrics"
	"github.com/duplexscope/duplexscope/metrics/conformance"
	"github.com/duplexscope/duplexscope/trace"
)

// vectorNames lists testdata/vectors/*.trace.json (copied verbatim from
// shared/spec/vectors; never rewritten by -update).
func vectorNames(t testing.TB) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "vectors", "*.trace.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 8+20 {
		t.Fatalf("found %d vectors in testdata/vectors, want the 8 public and 20 edge ones", len(files))
	}
	names := make([]string, 0, len(files))
	for _, f := range files {
		if name := strings.TrimSuffix(filepath.Base(f), ".trace.json"); !strings.HasPrefix(name, refusePrefix) {
			names = append(names, name)
		}
	}
	return names
}

// refusePrefix marks the edge vectors without an expected file: the
// reference raises on them, so Score (or its strict writer) must refuse.
const refusePrefix = "must_refuse_"

// refuseNames lists testdata/vectors/must_refuse_*.trace.json.
func refuseNames(t testing.TB) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "vectors", refusePrefix+"*.trace.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 3 {
		t.Fatalf("found %d must_refuse vectors, want the 3 edge ones", len(files))
	}
	names := make([]string, len(files))
	for i, f := range files {
		names[i] = strings.TrimSuffix(filepath.Base(f), ".trace.json")
	}
	return names
}

func readVector(t testing.TB, name string) (trace.Document, []byte) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "vectors", name+".trace.json"))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := trace.Decode(data)
	if err != nil {
		t.Fatalf("decode %s: %v", name, err)
	}
	want, err := os.ReadFile(filepath.Join("testdata", "vectors", name+".expected.json"))
	if err != nil {
		t.Fatal(err)
	}
	return doc, want
}

// scoreVectors runs check on our `score` output (got) and the reference's
// (want) for every vector, each in a parallel subtest.
func scoreVectors(t *testing.T, check func(t *testing.T, name string, got, want []byte)) {
	for _, name := range vectorNames(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			doc, want := readVector(t, name)
			out, err := metrics.Score(doc)
			if err != nil {
				t.Fatal(err)
			}
			check(t, name, mustJSON(t, out), want)
		})
	}
}

// TestVectors checks every golden vector at the README's tolerance.
func TestVectors(t *testing.T) {
	t.Parallel()
	scoreVectors(t, func(t *testing.T, name string, got, want []byte) {
		if err := conformance.Compare(want, got); err != nil {
			t.Errorf("%s: %v\ngot: %s", name, err, got)
		}
	})
}

// sessionsOf returns every scored session of a document (a session trace,
// or the non-skipped sessions of a run).
func sessionsOf(doc trace.Document) []trace.Session {
	switch {
	case doc.Session != nil:
		return []trace.Session{*doc.Session}
	case doc.Run != nil:
		var out []trace.Session
		for _, s := range doc.Run.Sessions {
			if !s.Skipped {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// TestIncrementalEqualsBatch proves the live path gives the batch numbers:
// an Accumulator snapshotted after every event (and given its meta only
// after the events, to exercise re-windowing) ends with the bytes of
// ScoreSession, and every intermediate snapshot equals the batch score of
// that prefix.
func TestIncrementalEqualsBatch(t *testing.T) {
	t.Parallel()
	n := 0
	for _, name := range vectorNames(t) {
		doc, _ := readVector(t, name)
		for i, s := range sessionsOf(doc) {
			n++
			t.Run(name+"/"+string(rune('0'+i)), func(t *testing.T) {
				t.Parallel()
				batch := mustJSON(t, metrics.ScoreSession(s))

				var live metrics.Accumulator
				live.SetMeta(s.Session)
				for k, ev := range s.Events {
					live.Add(ev)
					prefix := s
					prefix.Events = s.Events[:k+1]
					if got, want := mustJSON(t, live.Snapshot()), mustJSON(t, metrics.ScoreSession(prefix)); !bytes.Equal(got, want) {
						t.Fatalf("after event %d: incremental\n%s\nbatch\n%s", k, got, want)
					}
				}
				if got := mustJSON(t, live.Snapshot()); !bytes.Equal(got, batch) {
					t.Errorf("incremental after last event differs from batch:\n%s\n%s", got, batch)
				}

				var late metrics.Accumulator
				for _, ev := range s.Events {
					late.Add(ev)
				}
				late.SetMeta(s.Session)
				if got := mustJSON(t, late.Snapshot()); !bytes.Equal(got, batch) {
					t.Errorf("meta set after the events differs from batch:\n%s\n%s", got, batch)
				}
			})
		}
	}
	if n < 8 {
		t.Fatalf("only %d sessions in the vectors", n)
	}
}

// mustJSON is v's exact encoding (t is a *testing.T or a *rapid.T).
func mustJSON(t interface{ Fatal(...any) }, v interface{ MarshalJSON() ([]byte, error) }) []byte {
	if h, ok := t.(interface{ Helper() }); ok {
		h.Helper()
	}
	b, err := v.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestScoreOutput snapshots our exact `score` bytes for every vector. The
// same golden files are checked natively and under GOOS=js GOARCH=wasm
// (make wasmtest), so passing both proves wasm output == native output
// byte for byte. Rewritten with -update.
func TestScoreOutput(t *testing.T) {
	t.Parallel()
	scoreVectors(t, func(t *testing.T, _ string, got, _ []byte) {
		golden.Check(t, "json", append(got, '\n'))
	})
}
