//go:build !js

package pg_test

import (
	"context"
	"testing"

	"github.com/duplexscope/duplexscope/archive"
	"github.com/duplexscope/duplexscope/archive/archivetest"
	"github.com/duplexscope/duplexscope/archive/pg"
	"github.com/duplexscope/duplexscope/archive/pg/pgtest"
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
