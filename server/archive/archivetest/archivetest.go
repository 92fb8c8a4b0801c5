// Package archivetest is the storage test suite every archive.Store backend
// runs: `archivetest.Run(t, func(t *testing.T) archive.Store { … })`.
package archivetest

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/duplexscope/duplexscope/report"
	"github.com/duplexscope/duplexscope/server/archive"
)

// Base is the creation time of the first fixture record.
var Base = time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)

// Fixture returns a valid report for model with n responses.
func Fixture(model string, n int) *report.Report {
	rows := "["
	for i := 0; i < n; i++ {
		if i > 0 {
			rows += ","
		}
		rows += fmt.Sprintf(`{"session_id":"s1","request_index":%d,"response_id":"r%d","source":"client_monotonic_receive","ttft_ms":%d.5,"ttfp_ms":%d.25,"audio_generation_ms":900.0,"audio_duration_ms":1000.0,"rtf":0.9,"client_ttft_ms":100.0,"client_ttfp_ms":200.0}`, i, i, 100+i, 200+i)
	}
	rows += "]"
	r, err := report.New(report.Run{
		TargetURL: "ws://127.0.0.1:8080/v1/realtime", Model: model, Profile: "minicpm-o", FrameMs: 200,
		Version: "test", Client: report.ClientCLI, Source: report.Source{Kind: report.SourceDataset, Dataset: "builtin"},
	}, []byte(`{"duplex_request_metrics":`+rows+`,"duplex_session_metrics":[{"session_id":"s1","audio_turn_count":`+fmt.Sprint(n)+`,"ttft_ms":null,"ttfp_ms":null,"rtf":null}]}`))
	if err != nil {
		panic(err)
	}
	report.Finish(r)
	return r
}

// record makes a stored record for r at base+offset.
func record(t *testing.T, r *report.Report, offset time.Duration) archive.Record {
	t.Helper()
	rec, err := archive.NewRecord(r, archive.NewID(), Base.Add(offset))
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

// Run runs the suite; newStore returns a fresh, empty store per subtest and
// arranges its cleanup.
func Run(t *testing.T, newStore func(t *testing.T) archive.Store) {
	checks := []struct {
		name string
		run  func(t *testing.T, s archive.Store)
	}{
		{"PutGet", runPutGet},
		{"Idempotency", runIdempotency},
		{"ListFiltersAndPages", runListFiltersAndPages},
		{"Shards", runShards},
		{"DeleteAndAttachments", runDeleteAndAttachments},
		{"IDTaken", runIDTaken},
		{"AttachmentQuota", runAttachmentQuota},
		{"Concurrent", runConcurrent},
		{"UpdateLabels", runUpdateLabels},
	}
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) { c.run(t, newStore(t)) })
	}
}

// runPutGet checks that a stored record reads back byte for byte with its
// meta; a missing id is ErrNotFound.
func runPutGet(t *testing.T, s archive.Store) {
	ctx := context.Background()
	rec := record(t, Fixture("m1", 3), 0)
	meta, created, err := s.Put(ctx, rec, "")
	if err != nil || !created {
		t.Fatalf("Put = %v, created %v", err, created)
	}
	if meta.ID != rec.ID || !meta.CreatedAt.Equal(rec.CreatedAt) || meta.Model != "m1" || meta.Responses != 3 {
		t.Errorf("Put meta = %+v", meta)
	}
	got, err := s.Get(ctx, rec.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Body, rec.Body) {
		t.Errorf("Get body differs:\n%s\nwant\n%s", got.Body, rec.Body)
	}
	if got.Model != "m1" || got.Source != "dataset:builtin" || got.FrameMs != 200 || got.TTFPP50Ms == nil || *got.TTFPP50Ms != 201.25 {
		t.Errorf("Get meta = %+v", got.Meta)
	}
	if _, err := s.Get(ctx, archive.NewID()); !errors.Is(err, archive.ErrNotFound) {
		t.Errorf("Get(missing) = %v, want ErrNotFound", err)
	}
}

// runIdempotency checks that a retry with the same key and content returns
// the first record; the same key with other content is a conflict.
func runIdempotency(t *testing.T, s archive.Store) {
	ctx := context.Background()
	r := Fixture("m1", 2)
	first := record(t, r, 0)
	if _, created, err := s.Put(ctx, first, "key-1"); err != nil || !created {
		t.Fatalf("first Put = %v %v", created, err)
	}
	retry := record(t, r, time.Second) // new id and time, same content
	meta, created, err := s.Put(ctx, retry, "key-1")
	if err != nil || created || meta.ID != first.ID {
		t.Fatalf("retry Put = %+v created=%v err=%v, want first id %s", meta, created, err, first.ID)
	}
	other := record(t, Fixture("m2", 2), 2*time.Second)
	if _, _, err := s.Put(ctx, other, "key-1"); !errors.Is(err, archive.ErrIdempotencyConflict) {
		t.Errorf("conflicting Put = %v, want ErrIdempotencyConflict", err)
	}
	if _, created, err := s.Put(ctx, other, "key-2"); err != nil || !created {
		t.Errorf("Put with a new key = %v %v", created, err)
	}
	page, err := s.List(ctx, archive.Filter{})
	if err != nil || len(page.Items) != 2 {
		t.Errorf("List after idempotent retries = %d items (%v), want 2", len(page.Items), err)
	}
}

// runListFiltersAndPages checks that List pages newest first (ties by id)
// without loss, and each filter narrows it.
func runListFiltersAndPages(t *testing.T, s archive.Store) {
	ctx := context.Background()
	var ids []string // newest first
	for i := 0; i < 7; i++ {
		model := "alpha"
		if i%2 == 1 {
			model = "beta"
		}
		r := Fixture(model, 1)
		if i == 3 {
			r.Run.TargetURL = "wss://Special.example/v1/realtime"
		}
		// Records 5 and 6 share a creation time: ties order by id.
		off := time.Duration(min(i, 5)) * time.Minute
		rec := record(t, r, off)
		if _, _, err := s.Put(ctx, rec, ""); err != nil {
			t.Fatal(err)
		}
		ids = append([]string{rec.ID}, ids...)
	}
	if ids[0] < ids[1] { // the tie: larger id first
		ids[0], ids[1] = ids[1], ids[0]
	}
	var got []string
	cursor := ""
	for pages := 0; ; pages++ {
		if pages > 10 {
			t.Fatal("pagination does not end")
		}
		p, err := s.List(ctx, archive.Filter{Limit: 3, Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Items) > 3 {
			t.Fatalf("page of %d items, limit 3", len(p.Items))
		}
		for _, m := range p.Items {
			got = append(got, m.ID)
		}
		if p.Next == "" {
			break
		}
		cursor = p.Next
	}
	if fmt.Sprint(got) != fmt.Sprint(ids) {
		t.Errorf("paged ids =\n%v\nwant (newest first)\n%v", got, ids)
	}
	cases := []struct {
		name string
		f    archive.Filter
		want int
	}{
		{"model", archive.Filter{Model: "beta"}, 3},
		{"since", archive.Filter{Since: Base.Add(4 * time.Minute)}, 3},
		{"text case-insensitive", archive.Filter{Text: "special.EXAMPLE"}, 1},
		{"text matches model", archive.Filter{Text: "alp"}, 4},
		{"model and since", archive.Filter{Model: "alpha", Since: Base.Add(4 * time.Minute)}, 2},
		{"nothing", archive.Filter{Model: "gamma"}, 0},
	}
	for _, tc := range cases {
		p, err := s.List(ctx, tc.f)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if len(p.Items) != tc.want || p.Next != "" {
			t.Errorf("%s: %d items (next %q), want %d", tc.name, len(p.Items), p.Next, tc.want)
		}
	}
	if _, err := s.List(ctx, archive.Filter{Cursor: "not a cursor"}); err == nil {
		t.Error("List with a bad cursor: no error")
	}
}

// runShards checks that List by run id returns exactly that run's shards
// with their index and count.
func runShards(t *testing.T, s archive.Store) {
	ctx := context.Background()
	for i := 1; i <= 3; i++ {
		r := Fixture("m", 2)
		r.Run.RunID, r.Run.Shard = "run-7", &report.Shard{Index: i, Count: 4}
		if _, _, err := s.Put(ctx, record(t, r, time.Duration(i)*time.Second), ""); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := s.Put(ctx, record(t, Fixture("m", 1), 0), ""); err != nil {
		t.Fatal(err)
	}
	p, err := s.List(ctx, archive.Filter{RunID: "run-7"})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Items) != 3 {
		t.Fatalf("List(run) = %d items, want 3", len(p.Items))
	}
	for _, m := range p.Items {
		if m.RunID != "run-7" || m.ShardCnt != 4 || m.ShardIdx < 1 || m.ShardIdx > 3 {
			t.Errorf("shard meta = %+v", m)
		}
	}
}

// runDeleteAndAttachments checks that attachments are write-once, read back
// intact, and die with their report, as does its idempotency key.
func runDeleteAndAttachments(t *testing.T, s archive.Store) {
	ctx := context.Background()
	rec := record(t, Fixture("m", 1), 0)
	if _, _, err := s.Put(ctx, rec, "k"); err != nil {
		t.Fatal(err)
	}
	blob := bytes.Repeat([]byte{0, 1, 2, 0xff}, 100_000)
	if err := s.PutAttachment(ctx, rec.ID, archive.Attachment{Name: "wire.trace.json", ContentType: "application/json", Data: blob}, archive.Quota{}); err != nil {
		t.Fatal(err)
	}
	if err := s.PutAttachment(ctx, rec.ID, archive.Attachment{Name: "in.wav", ContentType: "audio/wav", Data: []byte("RIFF")}, archive.Quota{}); err != nil {
		t.Fatal(err)
	}
	// Write-once: a second put of the name is ErrExists and changes nothing.
	if err := s.PutAttachment(ctx, rec.ID, archive.Attachment{Name: "in.wav", ContentType: "audio/wav", Data: []byte("RIFF2")}, archive.Quota{}); !errors.Is(err, archive.ErrExists) {
		t.Errorf("second put of in.wav = %v, want ErrExists", err)
	}
	a, err := s.GetAttachment(ctx, rec.ID, "wire.trace.json")
	if err != nil || !bytes.Equal(a.Data, blob) || a.ContentType != "application/json" {
		t.Errorf("GetAttachment = %d bytes %q %v", len(a.Data), a.ContentType, err)
	}
	if a, _ := s.GetAttachment(ctx, rec.ID, "in.wav"); string(a.Data) != "RIFF" {
		t.Errorf("attachment after a refused overwrite = %q, want the first", a.Data)
	}
	if _, err := s.GetAttachment(ctx, rec.ID, "nope"); !errors.Is(err, archive.ErrNotFound) {
		t.Errorf("missing attachment: %v", err)
	}
	if err := s.PutAttachment(ctx, archive.NewID(), archive.Attachment{Name: "x", Data: []byte("x")}, archive.Quota{}); !errors.Is(err, archive.ErrNotFound) {
		t.Errorf("attachment to a missing report: %v, want ErrNotFound", err)
	}
	if err := s.Delete(ctx, rec.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ctx, rec.ID); !errors.Is(err, archive.ErrNotFound) {
		t.Errorf("Get after Delete = %v", err)
	}
	if _, err := s.GetAttachment(ctx, rec.ID, "in.wav"); !errors.Is(err, archive.ErrNotFound) {
		t.Errorf("attachment after Delete = %v", err)
	}
	if err := s.Delete(ctx, rec.ID); !errors.Is(err, archive.ErrNotFound) {
		t.Errorf("second Delete = %v", err)
	}
	// The idempotency key died with the report: a retry stores anew.
	if _, created, err := s.Put(ctx, record(t, Fixture("m", 1), time.Second), "k"); err != nil || !created {
		t.Errorf("Put after Delete with the old key = %v %v", created, err)
	}
}

// runIDTaken checks that a Put over an existing id is ErrExists and leaves
// the stored report alone.
func runIDTaken(t *testing.T, s archive.Store) {
	ctx := context.Background()
	rec := record(t, Fixture("m", 1), 0)
	if _, _, err := s.Put(ctx, rec, ""); err != nil {
		t.Fatal(err)
	}
	other := record(t, Fixture("other", 2), time.Second)
	other.ID = rec.ID
	if _, _, err := s.Put(ctx, other, "another-key"); !errors.Is(err, archive.ErrExists) {
		t.Errorf("Put over a taken id = %v, want ErrExists", err)
	}
	if got, _ := s.Get(ctx, rec.ID); got.Model != "m" {
		t.Errorf("stored report changed to model %q", got.Model)
	}
}

// runAttachmentQuota checks that attachments are refused per report (count,
// bytes) and per archive, and deleting a report frees its bytes.
func runAttachmentQuota(t *testing.T, s archive.Store) {
	ctx := context.Background()
	a := record(t, Fixture("a", 1), 0)
	b := record(t, Fixture("b", 1), time.Second)
	for _, r := range []archive.Record{a, b} {
		if _, _, err := s.Put(ctx, r, ""); err != nil {
			t.Fatal(err)
		}
	}
	q := archive.Quota{PerReport: 2, PerReportBytes: 150, TotalBytes: 200}
	blob := func(n int) []byte { return bytes.Repeat([]byte{'x'}, n) }
	steps := []struct {
		id, name string
		size     int
		scope    string // "" = stored
	}{
		{a.ID, "a1", 100, ""},
		{a.ID, "a2", 60, "report"}, // 160 > 150 bytes per report
		{a.ID, "a2", 50, ""},
		{a.ID, "a3", 1, "report"},    // a third attachment
		{b.ID, "b1", 100, "archive"}, // 150 + 100 > 200
		{b.ID, "b1", 51, "archive"},
		{b.ID, "b1", 50, ""}, // exactly full
		{b.ID, "b2", 0, ""},  // an empty one still fits
	}
	for i, st := range steps {
		err := s.PutAttachment(ctx, st.id, archive.Attachment{Name: st.name, Data: blob(st.size)}, q)
		var qe *archive.QuotaError
		switch {
		case st.scope == "" && err != nil:
			t.Errorf("step %d (%s, %d bytes): %v", i, st.name, st.size, err)
		case st.scope != "" && (!errors.As(err, &qe) || qe.Scope != st.scope || !errors.Is(err, archive.ErrQuota)):
			t.Errorf("step %d (%s, %d bytes) = %v, want a %s quota error", i, st.name, st.size, err, st.scope)
		}
	}
	// Deleting a report frees its bytes for the archive.
	c := record(t, Fixture("c", 1), 2*time.Second)
	if _, _, err := s.Put(ctx, c, ""); err != nil {
		t.Fatal(err)
	}
	if err := s.PutAttachment(ctx, c.ID, archive.Attachment{Name: "c1", Data: blob(100)}, q); !errors.Is(err, archive.ErrQuota) {
		t.Errorf("full archive: %v, want ErrQuota", err)
	}
	if err := s.Delete(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	if err := s.PutAttachment(ctx, c.ID, archive.Attachment{Name: "c1", Data: blob(100)}, q); err != nil {
		t.Errorf("after deleting report a: %v", err)
	}
}

// runConcurrent checks that concurrent Puts all land.
func runConcurrent(t *testing.T, s archive.Store) {
	ctx := context.Background()
	const n = 32
	var wg sync.WaitGroup
	ids := make([]string, n)
	errs := make([]error, n)
	for i := 0; i < n; i++ {
		wg.Go(func() {
			rec, err := archive.NewRecord(Fixture(fmt.Sprintf("m%d", i%4), 2), archive.NewID(), Base.Add(time.Duration(i)*time.Millisecond))
			if err != nil {
				errs[i] = err
				return
			}
			ids[i] = rec.ID
			_, _, errs[i] = s.Put(ctx, rec, fmt.Sprintf("key-%d", i))
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("Put %d: %v", i, err)
		}
		if _, err := s.Get(ctx, ids[i]); err != nil {
			t.Errorf("Get %d: %v", i, err)
		}
	}
	p, err := s.List(ctx, archive.Filter{Limit: 500})
	if err != nil || len(p.Items) != n {
		t.Errorf("List = %d (%v), want %d", len(p.Items), err, n)
	}
}

// runUpdateLabels checks that Update edits name and tags in place (rev,
// search, idempotency hash kept) and concurrent Updates are each applied.
func runUpdateLabels(t *testing.T, s archive.Store) {
	ctx := context.Background()
	r := Fixture("m1", 2)
	rec := record(t, r, 0)
	if _, _, err := s.Put(ctx, rec, "key-u"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Update(ctx, archive.NewID(), relabel("x", nil)); !errors.Is(err, archive.ErrNotFound) {
		t.Errorf("Update(missing) = %v, want ErrNotFound", err)
	}
	boom := errors.New("boom")
	if _, err := s.Update(ctx, rec.ID, func(archive.Record) (archive.Record, error) { return archive.Record{}, boom }); !errors.Is(err, boom) {
		t.Errorf("Update with a failing edit = %v, want its error", err)
	}
	m, err := s.Update(ctx, rec.ID, relabel("nightly A/B", []string{"gpu-a", "fp8"}))
	if err != nil {
		t.Fatal(err)
	}
	if m.Name != "nightly A/B" || len(m.Tags) != 2 || m.Tags[1] != "fp8" || m.Rev != 1 || m.ID != rec.ID || !m.CreatedAt.Equal(rec.CreatedAt) {
		t.Errorf("Update meta = %+v", m)
	}
	got, err := s.Get(ctx, rec.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(got.Body, []byte(`"name":"nightly A/B"`)) || got.Name != "nightly A/B" || len(got.Tags) != 2 || got.Rev != 1 {
		t.Errorf("Get after Update: meta %+v body %.300s", got.Meta, got.Body)
	}
	if got.BodySHA256 != rec.BodySHA256 {
		t.Errorf("Update changed the idempotency hash")
	}
	p, err := s.List(ctx, archive.Filter{Text: "FP8"})
	if err != nil || len(p.Items) != 1 || p.Items[0].Name != "nightly A/B" {
		t.Errorf("List by tag = %+v (%v), want the relabelled report", p.Items, err)
	}
	if meta, created, err := s.Put(ctx, record(t, Fixture("m1", 2), time.Second), "key-u"); err != nil || created || meta.ID != rec.ID {
		t.Errorf("a retried upload after Update = %v %v %v, want the same report", meta.ID, created, err)
	}
	// Concurrent Updates are each applied (none lost): each adds a tag.
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Go(func() {
			_, err := s.Update(ctx, rec.ID, func(old archive.Record) (archive.Record, error) {
				r, err := report.Decode(old.Body, report.DefaultLimits)
				if err != nil {
					return old, err
				}
				r.Run.Tags = append(r.Run.Tags, fmt.Sprintf("t%d", i))
				return relabelled(r)
			})
			if err != nil {
				t.Errorf("concurrent Update %d: %v", i, err)
			}
		})
	}
	wg.Wait()
	got, err = s.Get(ctx, rec.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Tags) != 10 || got.Rev != 9 {
		t.Errorf("after 8 concurrent Updates: %d tags, rev %d; want 10 and 9 (%v)", len(got.Tags), got.Rev, got.Tags)
	}
}

// relabel returns an Update edit that sets the run's name and tags.
func relabel(name string, tags []string) func(archive.Record) (archive.Record, error) {
	return func(old archive.Record) (archive.Record, error) {
		r, err := report.Decode(old.Body, report.DefaultLimits)
		if err != nil {
			return old, err
		}
		r.Run.Name, r.Run.Tags = name, tags
		return relabelled(r)
	}
}

func relabelled(r *report.Report) (archive.Record, error) {
	body, err := report.Marshal(r)
	if err != nil {
		return archive.Record{}, err
	}
	return archive.Record{Meta: archive.MetaFromReport(r), Body: body}, nil
}

// MigrateLabels checks that a SQL archive created before run labels (no
// name, tags, rev columns) opens, keeps its report and can be relabelled.
// open opens the same database on every call and returns the store with the
// SQL handle under it.
func MigrateLabels(t *testing.T, open func() (archive.Store, *sql.DB, error)) {
	ctx := context.Background()
	s, db, err := open()
	if err != nil {
		t.Fatal(err)
	}
	rec := record(t, Fixture("m", 2), 0)
	if _, _, err := s.Put(ctx, rec, ""); err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{"name", "tags", "rev"} { // back to the old schema
		if _, err := db.Exec(`ALTER TABLE reports DROP COLUMN ` + c); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	s, _, err = open()
	if err != nil {
		t.Fatalf("opening an archive without the label columns: %v", err)
	}
	defer s.Close()
	m, err := s.Update(ctx, rec.ID, relabel("renamed", []string{"old"}))
	if err != nil || m.Name != "renamed" {
		t.Fatalf("Update after migration = %+v, %v", m, err)
	}
	got, err := s.Get(ctx, rec.ID)
	if err != nil || got.Name != "renamed" || len(got.Tags) != 1 || got.Rev != 1 {
		t.Errorf("Get after migration = %+v, %v", got.Meta, err)
	}
}
