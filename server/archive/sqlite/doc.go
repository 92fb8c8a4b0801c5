//go:build !js

// Package sqlite is the default archive.Store: SQLite through the pure-Go
// modernc.org/sqlite driver, one database file (archive.db) in the data
// directory, WAL journal, synchronous=FULL so a Put that returned is on disk.
package sqlite
