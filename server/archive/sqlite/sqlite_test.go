//go:build !js

package sqlite_test

import (
	"context"
	"testing"

	"github.com/duplexscope/duplexscope/report"
	"github.com/duplexscope/duplexscope/server/archive"
	"github.com/duplexscope/duplexscope/server/archive/archivetest"
	"github.com/duplexscope/duplexscope/server/archive/sqlite"
)

func TestSQLite(t *testing.T) {
	archivetest.Run(t, func(t *testing.T) archive.Store {
		s, err := sqlite.Open(context.Background(), t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	})
}

// TestReopen: what a closed store held is there after reopening the directory.
func TestReopen(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, err := sqlite.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := archive.NewRecord(archivetest.Fixture("m", 2), archive.NewID(), archivetest.Base)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Put(ctx, rec, "k"); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s, err = sqlite.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got, err := s.Get(ctx, rec.ID)
	if err != nil || string(got.Body) != string(rec.Body) {
		t.Fatalf("after reopen: %v", err)
	}
	if m, created, err := s.Put(ctx, rec, "k"); err != nil || created || m.ID != rec.ID {
		t.Errorf("idempotency key lost on reopen: %v %v %v", m.ID, created, err)
	}
}

// TestWAL: the archive runs in WAL mode with full sync (durable Puts).
func TestWAL(t *testing.T) {
	s, err := sqlite.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var mode string
	var sync int
	if err := s.DB.QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil {
		t.Fatal(err)
	}
	if err := s.DB.QueryRow("PRAGMA synchronous").Scan(&sync); err != nil {
		t.Fatal(err)
	}
	if mode != "wal" || sync != 2 {
		t.Errorf("journal_mode %q synchronous %d, want wal and 2 (FULL)", mode, sync)
	}
}

// TestMigrateLabels: an archive created before run labels (no name, tags,
// rev columns) opens, keeps its report and can be relabelled.
func TestMigrateLabels(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, err := sqlite.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := archive.NewRecord(archivetest.Fixture("m", 2), archive.NewID(), archivetest.Base)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Put(ctx, rec, ""); err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{"name", "tags", "rev"} { // back to the old schema
		if _, err := s.DB.Exec(`ALTER TABLE reports DROP COLUMN ` + c); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	s, err = sqlite.Open(ctx, dir)
	if err != nil {
		t.Fatalf("opening an archive without the label columns: %v", err)
	}
	defer s.Close()
	m, err := s.Update(ctx, rec.ID, func(old archive.Record) (archive.Record, error) {
		r, err := report.Decode(old.Body, report.DefaultLimits)
		if err != nil {
			return old, err
		}
		r.Run.Name = "renamed"
		body, err := report.Marshal(r)
		return archive.Record{Meta: archive.MetaFromReport(r), Body: body}, err
	})
	if err != nil || m.Name != "renamed" {
		t.Fatalf("Update after migration = %+v, %v", m, err)
	}
	got, err := s.Get(ctx, rec.ID)
	if err != nil || got.Name != "renamed" || got.Rev != 1 {
		t.Errorf("Get after migration = %+v, %v", got.Meta, err)
	}
}
