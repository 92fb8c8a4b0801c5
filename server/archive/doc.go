// Package archive stores reports: the Store interface, record metadata,
// unguessable ids, cursors, and an in-memory Store. Durable backends live in
// subpackages (archive/sqlite, archive/pg); archive/archivetest is the
// storage test suite every backend runs.
package archive
