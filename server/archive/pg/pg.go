//go:build !js

package pg

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"

	"github.com/duplexscope/duplexscope/server/archive"
	"github.com/duplexscope/duplexscope/server/archive/internal/sqlstore"

	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"
)

// Store is the PostgreSQL archive.
type Store struct {
	*sqlstore.Store
}

var _ archive.Store = (*Store)(nil)

// Open connects to dsn (postgres://user@host:port/db?…) and creates the
// tables if needed.
func Open(ctx context.Context, dsn string) (*Store, error) {
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		return nil, fmt.Errorf("postgres archive: %w", err)
	}
	db.SetMaxOpenConns(16)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("postgres archive: %w", err)
	}
	s, err := sqlstore.Open(ctx, db, sqlstore.Dialect{
		Name:        "postgres",
		Placeholder: func(n int) string { return "$" + strconv.Itoa(n) },
		Schema:      sqlstore.SchemaFor("BYTEA", "BIGINT", "DOUBLE PRECISION"),
	})
	if err != nil {
		db.Close()
		return nil, err
	}
	return &Store{Store: s}, nil
}
