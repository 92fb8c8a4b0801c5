//go:build !js

package sqlite_test

import (
	"context"
	"database/sql"
	"testing"

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

// TestMigrateLabels: an archive created before run labels opens and can be
// relabelled.
func TestMigrateLabels(t *testing.T) {
	dir := t.TempDir()
	archivetest.MigrateLabels(t, func() (archive.Store, *sql.DB, error) {
		s, err := sqlite.Open(context.Background(), dir)
		if err != nil {
			return nil, nil, err
		}
		return s, s.DB, nil
	})
}
