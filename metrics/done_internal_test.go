package metrics

import (
	"os"
	"path/filepath"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/duplexscope/duplexscope/protocol"
	"github.com/duplexscope/duplexscope/trace"
)

// TestAddReportsDoneRow: over every golden trace, Add reports a row exactly
// at an accepted response.done whose response has a row by then, and that
// row is the one Snapshot gives at the same moment; no other entry reports
// one. Live views (the CLI's progress, the page's load run) rely on it
// instead of searching the event for "response.done".
func TestAddReportsDoneRow(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join("testdata", "vectors", "*.trace.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no traces: %v", err)
	}
	reported := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := trace.Decode(b)
		if err != nil || doc.Session == nil {
			continue // not a session trace (run documents, refusals)
		}
		var a Accumulator
		a.SetMeta(doc.Session.Session)
		a.ssSet = true
		for i, ev := range doc.Session.Events {
			dups := a.counts.Duplicates
			row, done := a.Add(ev)
			snap := a.Snapshot()
			isDone := ev.Dir == trace.DirRecv && typeOf(ev.Event) == "response.done" && a.counts.Duplicates == dups
			id, _ := protocol.ResponseIdentity(ev.Event)
			var want *Row
			for k := range snap.Rows {
				if isDone && snap.Rows[k].ResponseID == id {
					want = &snap.Rows[k]
				}
			}
			switch {
			case done != (want != nil):
				t.Errorf("%s event %d (%s): done = %v, want %v", filepath.Base(f), i, ev.Event, done, want != nil)
			case done:
				reported++
				if d := gocmp.Diff(*want, row); d != "" {
					t.Errorf("%s event %d: reported row differs from the snapshot's (-snapshot +reported):\n%s", filepath.Base(f), i, d)
				}
			}
		}
	}
	if reported == 0 {
		t.Fatal("no trace had a response.done with a row: the test saw nothing")
	}
	t.Logf("%d rows reported at response.done", reported)
}

// typeOf is the event's "type" string ("" when none).
func typeOf(b []byte) string {
	o := object(b)
	if o == nil {
		return ""
	}
	s, _ := str(o.get("type"))
	return s
}
