//go:build !js

package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"

	"github.com/duplexscope/duplexscope/server/archive"
	"github.com/duplexscope/duplexscope/server/archive/internal/sqlstore"

	_ "modernc.org/sqlite" // database/sql driver "sqlite"
)

// FileName is the database file inside the data directory.
const FileName = "archive.db"

// Store is the SQLite archive.
type Store struct {
	*sqlstore.Store
	Path string
}

var _ archive.Store = (*Store)(nil)

// Open opens (creating if needed) the archive in dir.
func Open(ctx context.Context, dir string) (*Store, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("sqlite archive: %w", err)
	}
	path := filepath.Join(dir, FileName)
	dsn := "file:" + path + "?_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)&_pragma=busy_timeout(10000)&_pragma=foreign_keys(1)&_txlock=immediate"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("sqlite archive %s: %w", path, err)
	}
	db.SetMaxOpenConns(4)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("sqlite archive %s: %w", path, err)
	}
	s, err := sqlstore.Open(ctx, db, sqlstore.Dialect{
		Name:   "sqlite",
		Schema: sqlstore.SchemaFor("BLOB", "INTEGER", "REAL"),
	})
	if err != nil {
		db.Close()
		return nil, err
	}
	return &Store{Store: s, Path: path}, nil
}
