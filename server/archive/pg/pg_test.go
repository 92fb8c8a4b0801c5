//go:build !js

package pg_test

import (
	"context"
	"database/sql"
	"testing"

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

// TestPostgresMigrateLabels: an archive created before run labels opens and
// can be relabelled.
func TestPostgresMigrateLabels(t *testing.T) {
	dsn := pgtest.Start(t).NewDatabase(t)
	archivetest.MigrateLabels(t, func() (archive.Store, *sql.DB, error) {
		s, err := pg.Open(context.Background(), dsn)
		if err != nil {
			return nil, nil, err
		}
		return s, s.DB, nil
	})
}
