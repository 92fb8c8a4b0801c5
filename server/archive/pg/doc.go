//go:build !js

// Package pg is the archive.Store for teams sharing one archive: PostgreSQL
// through github.com/jackc/pgx/v5 (its database/sql driver), selected with
// `duplexscope serve --db postgres://…`.
package pg
