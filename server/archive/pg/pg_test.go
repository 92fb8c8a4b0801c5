//go:build !js

package pg_test

import (
	"context"
	"testing"

	"github.com/duplexscope/duplexscope/report"
	"github.com/duplexscope/duplexscope/server/archive"
	"github.com/duplexscope/duplexscope/server/archive/archivetest"
	"github.com/duplexscope/duplexscope/server/archive/pg"
	"github.com/duplexscope/duplexscope/server/archive/pg/pgtest"
)

func TestPostgres(t *testing.T) {
	srv := pgtest.Start(t)
	archivetest.Run(t, func(t *testing.T) archive.Store {
		s, err := pg.Open(context.Background(), srv.NewDatabase(t))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	})
}

// TestPostgresMigrateLabels: an archive created before run labels (no
// name, tags, rev columns) opens, keeps its report and can be relabelled.
func TestPostgresMigrateLabels(t *testing.T) {
	ctx := context.Background()
	srv := pgtest.Start(t)
	dsn := srv.NewDatabase(t)
	s, err := pg.Open(ctx, dsn)
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
	s, err = pg.Open(ctx, dsn)
	if err != nil {
		t.Fatalf("opening an archive without the label columns: %v", err)
	}
	defer s.Close()
	m, err := s.Update(ctx, rec.ID, func(old archive.Record) (archive.Record, error) {
		r, err := report.Decode(old.Body, report.DefaultLimits)
		if err != nil {
			return old, err
		}
		r.Run.Name, r.Run.Tags = "renamed", []string{"pg"}
		body, err := report.Marshal(r)
		return archive.Record{Meta: archive.MetaFromReport(r), Body: body}, err
	})
	if err != nil || m.Name != "renamed" {
		t.Fatalf("Update after migration = %+v, %v", m, err)
	}
	got, err := s.Get(ctx, rec.ID)
	if err != nil || got.Name != "renamed" || len(got.Tags) != 1 || got.Rev != 1 {
		t.Errorf("Get after migration = %+v, %v", got.Meta, err)
	}
}
