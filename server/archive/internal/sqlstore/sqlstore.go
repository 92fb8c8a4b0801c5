// Package sqlstore is the archive.Store shared by the SQL backends
// (archive/sqlite, archive/pg): one schema and one set of queries over
// database/sql, with the few dialect differences passed in.
package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/duplexscope/duplexscope/server/archive"
)

// Dialect holds what differs between SQL engines.
type Dialect struct {
	Name string
	// Placeholder returns the n-th (1-based) bind placeholder.
	Placeholder func(n int) string
	// Schema is run once at open (idempotent DDL statements).
	Schema []string
	// TxOptions for write transactions.
	TxOptions *sql.TxOptions
}

// Store is an archive.Store over a *sql.DB.
type Store struct {
	DB            *sql.DB
	D             Dialect
	MaxAttachment int

	// updateMu serialises this process's Updates: the revision check
	// alone let one of 8 concurrent label edits lose 5 times in a row
	// and fail. The check stays for writers in other processes (pg).
	updateMu sync.Mutex
}

// updateAttempts bounds the revision-check retries of one Update; only
// writers in other processes can make it retry (updateMu).
const updateAttempts = 20

// Open runs the schema and returns the store.
func Open(ctx context.Context, db *sql.DB, d Dialect) (*Store, error) {
	for _, stmt := range d.Schema {
		if _, err := db.ExecContext(ctx, stmt); err != nil {
			return nil, fmt.Errorf("%s schema: %w", d.Name, err)
		}
	}
	if err := addColumns(ctx, db, d); err != nil {
		return nil, err
	}
	return &Store{DB: db, D: d, MaxAttachment: archive.DefaultMaxAttachment}, nil
}

// addedColumns are the reports columns added after the first schema: an
// archive created before them gets them on open (probing each with a
// zero-row SELECT works the same on SQLite and PostgreSQL).
var addedColumns = []struct{ name, ddl string }{
	{"name", "name TEXT NOT NULL DEFAULT ''"},
	{"tags", "tags TEXT NOT NULL DEFAULT ''"},
	{"rev", "rev %[2]s NOT NULL DEFAULT 0"},
}

func addColumns(ctx context.Context, db *sql.DB, d Dialect) error {
	for _, c := range addedColumns {
		rows, err := db.QueryContext(ctx, `SELECT `+c.name+` FROM reports WHERE 1 = 0`)
		if err == nil {
			rows.Close()
			continue
		}
		ddl := strings.ReplaceAll(c.ddl, "%[2]s", d.bigint())
		if _, err := db.ExecContext(ctx, `ALTER TABLE reports ADD COLUMN `+ddl); err != nil {
			return fmt.Errorf("%s schema: adding column %s: %w", d.Name, c.name, err)
		}
	}
	return nil
}

// bigint is the dialect's 64-bit integer type.
func (d Dialect) bigint() string {
	if d.Name == "postgres" {
		return "BIGINT"
	}
	return "INTEGER"
}

// joinTags stores tags one per line (CheckLabels refuses control
// characters in tags, so a newline never occurs inside one).
func joinTags(tags []string) string { return strings.Join(tags, "\n") }

func splitTags(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// q rewrites "?" placeholders to the dialect's.
func (s *Store) q(query string) string {
	if s.D.Placeholder == nil {
		return query
	}
	var b strings.Builder
	n := 0
	for _, r := range query {
		if r == '?' {
			n++
			b.WriteString(s.D.Placeholder(n))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

const metaCols = `id, created_us, model, profile, target_url, source, frame_ms, client, complete, run_id, shard_idx, shard_cnt, responses, ttft_p50, ttfp_p50, ttfp_p99, search, body_sha, name, tags, rev`

func nullFloat(p *float64) sql.NullFloat64 {
	if p == nil {
		return sql.NullFloat64{}
	}
	return sql.NullFloat64{Float64: *p, Valid: true}
}

func ptr(n sql.NullFloat64) *float64 {
	if !n.Valid {
		return nil
	}
	v := n.Float64
	return &v
}

type scanner interface{ Scan(...any) error }

func scanMeta(row scanner, extra ...any) (archive.Meta, error) {
	var m archive.Meta
	var us int64
	var complete int64
	var t50, p50, p99 sql.NullFloat64
	var tags string
	dest := []any{&m.ID, &us, &m.Model, &m.Profile, &m.TargetURL, &m.Source, &m.FrameMs, &m.Client, &complete, &m.RunID, &m.ShardIdx, &m.ShardCnt, &m.Responses, &t50, &p50, &p99, &m.Text, &m.BodySHA256, &m.Name, &tags, &m.Rev}
	if err := row.Scan(append(dest, extra...)...); err != nil {
		return m, err
	}
	m.Tags = splitTags(tags)
	m.CreatedAt = time.UnixMicro(us).UTC()
	m.Complete = complete != 0
	m.TTFTP50Ms, m.TTFPP50Ms, m.TTFPP99Ms = ptr(t50), ptr(p50), ptr(p99)
	return m, nil
}

// Put implements archive.Store.
func (s *Store) Put(ctx context.Context, rec archive.Record, key string) (archive.Meta, bool, error) {
	if !archive.ValidID(rec.ID) {
		return archive.Meta{}, false, fmt.Errorf("put: invalid id %q", rec.ID)
	}
	tx, err := s.DB.BeginTx(ctx, s.D.TxOptions)
	if err != nil {
		return archive.Meta{}, false, fmt.Errorf("put: begin: %w", err)
	}
	defer tx.Rollback()
	if key != "" {
		m, err := scanMeta(tx.QueryRowContext(ctx, s.q(`SELECT `+prefixed("r.")+` FROM idempotency i JOIN reports r ON r.id = i.report_id WHERE i.key = ?`), key))
		switch {
		case err == nil:
			if m.BodySHA256 != rec.BodySHA256 {
				return archive.Meta{}, false, archive.ErrIdempotencyConflict
			}
			return m, false, nil
		case !errors.Is(err, sql.ErrNoRows):
			return archive.Meta{}, false, fmt.Errorf("put: idempotency lookup: %w", err)
		}
	}
	var taken int
	switch err := tx.QueryRowContext(ctx, s.q(`SELECT 1 FROM reports WHERE id = ?`), rec.ID).Scan(&taken); {
	case err == nil:
		return archive.Meta{}, false, fmt.Errorf("put %s: %w", rec.ID, archive.ErrExists)
	case !errors.Is(err, sql.ErrNoRows):
		return archive.Meta{}, false, fmt.Errorf("put: %w", err)
	}
	m := rec.Meta
	complete := 0
	if m.Complete {
		complete = 1
	}
	_, err = tx.ExecContext(ctx, s.q(`INSERT INTO reports (`+metaCols+`, body) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`),
		m.ID, m.CreatedAt.UnixMicro(), m.Model, m.Profile, m.TargetURL, m.Source, m.FrameMs, m.Client, complete, m.RunID, m.ShardIdx, m.ShardCnt, m.Responses,
		nullFloat(m.TTFTP50Ms), nullFloat(m.TTFPP50Ms), nullFloat(m.TTFPP99Ms), m.Text, m.BodySHA256, m.Name, joinTags(m.Tags), 0, rec.Body)
	if err != nil {
		return archive.Meta{}, false, fmt.Errorf("put: insert report: %w", err)
	}
	if key != "" {
		res, err := tx.ExecContext(ctx, s.q(`INSERT INTO idempotency (key, report_id) VALUES (?, ?) ON CONFLICT (key) DO NOTHING`), key, m.ID)
		if err != nil {
			return archive.Meta{}, false, fmt.Errorf("put: insert idempotency key: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			// A concurrent Put with the same key won; answer with its record.
			_ = tx.Rollback()
			return s.Put(ctx, rec, key)
		}
	}
	if err := tx.Commit(); err != nil {
		return archive.Meta{}, false, fmt.Errorf("put: commit: %w", err)
	}
	return m, true, nil
}

func prefixed(p string) string {
	cols := strings.Split(metaCols, ", ")
	for i := range cols {
		cols[i] = p + cols[i]
	}
	return strings.Join(cols, ", ")
}

// Get implements archive.Store.
func (s *Store) Get(ctx context.Context, id string) (archive.Record, error) {
	var body []byte
	m, err := scanMeta(s.DB.QueryRowContext(ctx, s.q(`SELECT `+metaCols+`, body FROM reports WHERE id = ?`), id), &body)
	if errors.Is(err, sql.ErrNoRows) {
		return archive.Record{}, archive.ErrNotFound
	}
	if err != nil {
		return archive.Record{}, fmt.Errorf("get %s: %w", id, err)
	}
	return archive.Record{Meta: m, Body: body}, nil
}

// Update implements archive.Store: read, edit, then write only if no other
// Update moved the revision meanwhile (optimistic, so the same statements
// serve SQLite and PostgreSQL); a lost race reads again, a few times.
func (s *Store) Update(ctx context.Context, id string, edit func(archive.Record) (archive.Record, error)) (archive.Meta, error) {
	s.updateMu.Lock()
	defer s.updateMu.Unlock()
	for attempt := 0; ; attempt++ {
		old, err := s.Get(ctx, id)
		if err != nil {
			return archive.Meta{}, err
		}
		rec, err := edit(old)
		if err != nil {
			return archive.Meta{}, err
		}
		m := rec.Meta
		m.ID, m.CreatedAt, m.BodySHA256, m.Rev = old.ID, old.CreatedAt, old.BodySHA256, old.Rev+1
		complete := 0
		if m.Complete {
			complete = 1
		}
		res, err := s.DB.ExecContext(ctx, s.q(`UPDATE reports SET model = ?, profile = ?, target_url = ?, source = ?, frame_ms = ?, client = ?, complete = ?,
			run_id = ?, shard_idx = ?, shard_cnt = ?, responses = ?, ttft_p50 = ?, ttfp_p50 = ?, ttfp_p99 = ?, search = ?, name = ?, tags = ?, rev = ?, body = ?
			WHERE id = ? AND rev = ?`),
			m.Model, m.Profile, m.TargetURL, m.Source, m.FrameMs, m.Client, complete, m.RunID, m.ShardIdx, m.ShardCnt, m.Responses,
			nullFloat(m.TTFTP50Ms), nullFloat(m.TTFPP50Ms), nullFloat(m.TTFPP99Ms), m.Text, m.Name, joinTags(m.Tags), m.Rev, rec.Body, id, old.Rev)
		if err != nil {
			return archive.Meta{}, fmt.Errorf("update %s: %w", id, err)
		}
		if n, _ := res.RowsAffected(); n == 1 {
			return m, nil
		}
		if attempt == updateAttempts-1 {
			return archive.Meta{}, fmt.Errorf("update %s: kept changing under %d attempts", id, updateAttempts)
		}
		if err := ctx.Err(); err != nil {
			return archive.Meta{}, fmt.Errorf("update %s: %w", id, err)
		}
	}
}

// likeEscape escapes LIKE wildcards (escape character '\').
func likeEscape(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
	return "%" + r.Replace(strings.ToLower(s)) + "%"
}

// List implements archive.Store.
func (s *Store) List(ctx context.Context, f archive.Filter) (archive.Page, error) {
	var where []string
	var args []any
	if f.Model != "" {
		where, args = append(where, "model = ?"), append(args, f.Model)
	}
	if !f.Since.IsZero() {
		where, args = append(where, "created_us >= ?"), append(args, f.Since.UnixMicro())
	}
	if f.RunID != "" {
		where, args = append(where, "run_id = ?"), append(args, f.RunID)
	}
	if f.Text != "" {
		where = append(where, `LOWER(model || ' ' || profile || ' ' || target_url || ' ' || source || ' ' || run_id || ' ' || search) LIKE ? ESCAPE '\'`)
		args = append(args, likeEscape(f.Text))
	}
	if f.Cursor != "" {
		c, err := archive.DecodeCursor(f.Cursor)
		if err != nil {
			return archive.Page{}, err
		}
		us := c.CreatedAt.UnixMicro()
		where = append(where, "(created_us < ? OR (created_us = ? AND id < ?))")
		args = append(args, us, us, c.ID)
	}
	limit := archive.ClampLimit(f.Limit)
	query := `SELECT ` + metaCols + ` FROM reports`
	if len(where) > 0 {
		query += " WHERE " + strings.Join(where, " AND ")
	}
	query += " ORDER BY created_us DESC, id DESC LIMIT " + strconv.Itoa(limit+1)
	rows, err := s.DB.QueryContext(ctx, s.q(query), args...)
	if err != nil {
		return archive.Page{}, fmt.Errorf("list: %w", err)
	}
	defer rows.Close()
	var items []archive.Meta
	for rows.Next() {
		m, err := scanMeta(rows)
		if err != nil {
			return archive.Page{}, fmt.Errorf("list: %w", err)
		}
		items = append(items, m)
	}
	if err := rows.Err(); err != nil {
		return archive.Page{}, fmt.Errorf("list: %w", err)
	}
	return archive.PageOf(items, limit), nil
}

// Delete implements archive.Store.
func (s *Store) Delete(ctx context.Context, id string) error {
	tx, err := s.DB.BeginTx(ctx, s.D.TxOptions)
	if err != nil {
		return fmt.Errorf("delete %s: %w", id, err)
	}
	defer tx.Rollback()
	for _, stmt := range []string{
		`DELETE FROM idempotency WHERE report_id = ?`,
		`UPDATE attachment_usage SET bytes = bytes - (SELECT COALESCE(SUM(LENGTH(data)), 0) FROM attachments WHERE report_id = ?) WHERE id = 1`,
		`DELETE FROM attachments WHERE report_id = ?`,
	} {
		if _, err := tx.ExecContext(ctx, s.q(stmt), id); err != nil {
			return fmt.Errorf("delete %s: %w", id, err)
		}
	}
	res, err := tx.ExecContext(ctx, s.q(`DELETE FROM reports WHERE id = ?`), id)
	if err != nil {
		return fmt.Errorf("delete %s: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return archive.ErrNotFound
	}
	return tx.Commit()
}

// PutAttachment implements archive.Store. The archive-wide byte count is
// one row (attachment_usage) bumped in the same transaction, so checking
// the quota costs no scan and concurrent writers (Postgres) queue on it.
func (s *Store) PutAttachment(ctx context.Context, id string, a archive.Attachment, q archive.Quota) error {
	if s.MaxAttachment > 0 && len(a.Data) > s.MaxAttachment {
		return archive.ErrTooLarge
	}
	tx, err := s.DB.BeginTx(ctx, s.D.TxOptions)
	if err != nil {
		return fmt.Errorf("put attachment: %w", err)
	}
	defer tx.Rollback()
	var one int
	if err := tx.QueryRowContext(ctx, s.q(`SELECT 1 FROM reports WHERE id = ?`), id).Scan(&one); errors.Is(err, sql.ErrNoRows) {
		return archive.ErrNotFound
	} else if err != nil {
		return fmt.Errorf("put attachment: %w", err)
	}
	switch err := tx.QueryRowContext(ctx, s.q(`SELECT 1 FROM attachments WHERE report_id = ? AND name = ?`), id, a.Name).Scan(&one); {
	case err == nil:
		return archive.ErrExists
	case !errors.Is(err, sql.ErrNoRows):
		return fmt.Errorf("put attachment: %w", err)
	}
	size := int64(len(a.Data))
	limit := q.TotalBytes
	if limit <= 0 {
		limit = math.MaxInt64 - size
	}
	res, err := tx.ExecContext(ctx, s.q(`UPDATE attachment_usage SET bytes = bytes + ? WHERE id = 1 AND bytes <= ?`), size, limit-size)
	if err != nil {
		return fmt.Errorf("put attachment: usage: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		var used int64
		_ = tx.QueryRowContext(ctx, s.q(`SELECT bytes FROM attachment_usage WHERE id = 1`)).Scan(&used)
		return &archive.QuotaError{Scope: "archive", What: "bytes", Limit: q.TotalBytes, Used: used}
	}
	var count int
	var used int64
	if err := tx.QueryRowContext(ctx, s.q(`SELECT COUNT(*), COALESCE(SUM(LENGTH(data)), 0) FROM attachments WHERE report_id = ?`), id).Scan(&count, &used); err != nil {
		return fmt.Errorf("put attachment: %w", err)
	}
	if err := archive.CheckReportQuota(q, count, used, size); err != nil {
		return err
	}
	data := a.Data
	if data == nil {
		data = []byte{}
	}
	res, err = tx.ExecContext(ctx, s.q(`INSERT INTO attachments (report_id, name, content_type, data) VALUES (?, ?, ?, ?)
		ON CONFLICT (report_id, name) DO NOTHING`), id, a.Name, a.ContentType, data)
	if err != nil {
		return fmt.Errorf("put attachment: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return archive.ErrExists // a concurrent writer won
	}
	return tx.Commit()
}

// GetAttachment implements archive.Store.
func (s *Store) GetAttachment(ctx context.Context, id, name string) (archive.Attachment, error) {
	a := archive.Attachment{Name: name}
	err := s.DB.QueryRowContext(ctx, s.q(`SELECT content_type, data FROM attachments WHERE report_id = ? AND name = ?`), id, name).Scan(&a.ContentType, &a.Data)
	if errors.Is(err, sql.ErrNoRows) {
		return a, archive.ErrNotFound
	}
	if err != nil {
		return a, fmt.Errorf("get attachment: %w", err)
	}
	return a, nil
}

// Close implements archive.Store.
func (s *Store) Close() error { return s.DB.Close() }

// Tables is the schema shared by the dialects; %[1]s is the blob type,
// %[2]s the 64-bit integer type, %[3]s the float type.
const Tables = `CREATE TABLE IF NOT EXISTS reports (
	id TEXT PRIMARY KEY,
	created_us %[2]s NOT NULL,
	model TEXT NOT NULL,
	profile TEXT NOT NULL,
	target_url TEXT NOT NULL,
	source TEXT NOT NULL,
	frame_ms %[2]s NOT NULL,
	client TEXT NOT NULL,
	complete %[2]s NOT NULL,
	run_id TEXT NOT NULL,
	shard_idx %[2]s NOT NULL,
	shard_cnt %[2]s NOT NULL,
	responses %[2]s NOT NULL,
	ttft_p50 %[3]s,
	ttfp_p50 %[3]s,
	ttfp_p99 %[3]s,
	search TEXT NOT NULL,
	body_sha TEXT NOT NULL,
	name TEXT NOT NULL DEFAULT '',
	tags TEXT NOT NULL DEFAULT '',
	rev %[2]s NOT NULL DEFAULT 0,
	body %[1]s NOT NULL
);
CREATE INDEX IF NOT EXISTS reports_created ON reports (created_us DESC, id DESC);
CREATE INDEX IF NOT EXISTS reports_model ON reports (model, created_us DESC);
CREATE INDEX IF NOT EXISTS reports_run ON reports (run_id);
CREATE TABLE IF NOT EXISTS idempotency (
	key TEXT PRIMARY KEY,
	report_id TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS idempotency_report ON idempotency (report_id);
CREATE TABLE IF NOT EXISTS attachments (
	report_id TEXT NOT NULL,
	name TEXT NOT NULL,
	content_type TEXT NOT NULL,
	data %[1]s NOT NULL,
	PRIMARY KEY (report_id, name)
);
CREATE TABLE IF NOT EXISTS attachment_usage (
	id %[2]s PRIMARY KEY,
	bytes %[2]s NOT NULL
);
INSERT INTO attachment_usage (id, bytes) SELECT 1, COALESCE(SUM(LENGTH(data)), 0) FROM attachments WHERE 1 = 1 ON CONFLICT (id) DO NOTHING`

// SchemaFor returns the shared schema as separate statements.
func SchemaFor(blob, bigint, float string) []string {
	var out []string
	for _, s := range strings.Split(fmt.Sprintf(Tables, blob, bigint, float), ";\n") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}
