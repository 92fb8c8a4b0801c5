package archive

import (
	"context"
	"crypto/rand"
	"encoding/base32"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Errors callers branch on.
var (
	ErrNotFound = errors.New("not found")
	// ErrIdempotencyConflict: the key was used before with a different body.
	ErrIdempotencyConflict = errors.New("idempotency key reused with a different report")
	// ErrTooLarge: an attachment exceeds the store's limit.
	ErrTooLarge = errors.New("too large")
	// ErrExists: the report id or the attachment name is taken (reports
	// and attachments are write-once).
	ErrExists = errors.New("already exists")
	// ErrQuota: storing would exceed a Quota (the error is a *QuotaError).
	ErrQuota = errors.New("attachment quota exceeded")
)

// Quota bounds attachments; zero fields mean no bound.
type Quota struct {
	PerReport      int   // attachments per report
	PerReportBytes int64 // attachment bytes per report
	TotalBytes     int64 // attachment bytes of the whole archive
}

// QuotaError says which bound an attachment would exceed.
type QuotaError struct {
	Scope string // "report" (count or bytes of one report) or "archive"
	What  string // "attachments" or "bytes"
	Limit int64
	Used  int64 // before this attachment
}

func (e *QuotaError) Error() string {
	if e.Scope == "archive" {
		return fmt.Sprintf("the archive's attachments hold %d of at most %d bytes", e.Used, e.Limit)
	}
	return fmt.Sprintf("the report holds %d of at most %d attachment %s", e.Used, e.Limit, e.What)
}

func (e *QuotaError) Unwrap() error { return ErrQuota }

// CheckReportQuota returns a *QuotaError when one more attachment of size
// bytes would exceed q for a report that holds count attachments of used
// bytes.
func CheckReportQuota(q Quota, count int, used, size int64) error {
	if q.PerReport > 0 && count+1 > q.PerReport {
		return &QuotaError{Scope: "report", What: "attachments", Limit: int64(q.PerReport), Used: int64(count)}
	}
	if q.PerReportBytes > 0 && used+size > q.PerReportBytes {
		return &QuotaError{Scope: "report", What: "bytes", Limit: q.PerReportBytes, Used: used}
	}
	return nil
}

// Record is one stored report: its metadata (indexed, listed) and its JSON.
type Record struct {
	Meta
	// Body is the report JSON exactly as stored (id and created_at filled in).
	Body []byte
}

// Meta is what List returns for a report without reading its body.
type Meta struct {
	ID        string    `json:"id"`
	CreatedAt time.Time `json:"created_at"`
	Model     string    `json:"model"`
	Profile   string    `json:"profile,omitempty"`
	TargetURL string    `json:"target_url,omitempty"`
	Source    string    `json:"source,omitempty"` // "mic", "dataset:NAME", "import:NAME"
	FrameMs   int       `json:"frame_ms,omitempty"`
	Client    string    `json:"client,omitempty"`
	Complete  bool      `json:"complete"`
	RunID     string    `json:"run_id,omitempty"`
	ShardIdx  int       `json:"shard_index,omitempty"`
	ShardCnt  int       `json:"shard_count,omitempty"`
	Responses int       `json:"responses"`
	// TTFPP50Ms / TTFPP99Ms are the pooled per-response ttft/ttfp medians and
	// p99s (run keys, server clock when the rows say so); nil when absent.
	TTFTP50Ms *float64 `json:"ttft_p50_ms,omitempty"`
	TTFPP50Ms *float64 `json:"ttfp_p50_ms,omitempty"`
	TTFPP99Ms *float64 `json:"ttfp_p99_ms,omitempty"`
	// Text is extra searchable text (target, profile, dataset, warnings).
	Text string `json:"-"`
	// BodySHA256 is the SHA-256 of the report without id and created_at
	// (NewRecord), so a retried upload compares equal for idempotency.
	BodySHA256 string `json:"-"`
	// Rev counts the Updates of the record (0 as uploaded): caches key on
	// it, since BodySHA256 stays the uploaded body's for idempotency.
	Rev int64 `json:"-"`
	// Name and Tags are the run's labels (run.name, run.tags).
	Name string   `json:"name,omitempty"`
	Tags []string `json:"tags,omitempty"`
}

// Filter selects reports for List. Zero fields match everything.
type Filter struct {
	Model string    // exact model name
	Since time.Time // created at or after
	Text  string    // case-insensitive substring of model, profile, target, source, run id, text
	RunID string    // exact run id (shards of one run)
	// Cursor continues a previous List (its Page.Next); Limit caps the page
	// (default 50, max 500).
	Cursor string
	Limit  int
}

// Page is one page of List, newest first. Next is "" on the last page.
type Page struct {
	Items []Meta
	Next  string
}

// Attachment is a stored blob of a report.
type Attachment struct {
	Name        string
	ContentType string
	Data        []byte
}

// Store keeps reports and their attachments. Implementations are safe for
// concurrent use, and Put is durable when it returns nil.
type Store interface {
	// Put stores rec (rec.ID must be set, see NewID). With a non-empty
	// idempotencyKey, a second Put with the same key returns the first
	// record's Meta and created=false instead of storing again, or
	// ErrIdempotencyConflict if the body differs. A taken id is ErrExists.
	Put(ctx context.Context, rec Record, idempotencyKey string) (meta Meta, created bool, err error)
	Get(ctx context.Context, id string) (Record, error)
	List(ctx context.Context, f Filter) (Page, error)
	// Delete removes a report and its attachments (ErrNotFound if absent).
	Delete(ctx context.Context, id string) error
	// PutAttachment stores a new attachment of report id: ErrNotFound
	// without the report, ErrExists when the name is taken (attachments are
	// write-once), a *QuotaError (ErrQuota) when q would be exceeded.
	PutAttachment(ctx context.Context, id string, a Attachment, q Quota) error
	GetAttachment(ctx context.Context, id, name string) (Attachment, error)
	// Update replaces report id's body and listed metadata with what edit
	// returns for the stored record, atomically (a concurrent Update is
	// applied before or after, never lost): ErrNotFound without the report,
	// edit's error unchanged. ID, CreatedAt and BodySHA256 are kept; Rev
	// goes up by one. It serves PATCH /api/reports/{id} (run labels).
	Update(ctx context.Context, id string, edit func(Record) (Record, error)) (Meta, error)
	Close() error
}

// NewID returns a fresh unguessable report id: 160 bits from crypto/rand,
// base32 lower-case without padding (32 characters).
func NewID() string {
	var b [20]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand panics on failure)
	return strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b[:]))
}

// ValidID reports whether id looks like one NewID made (so a path trick
// such as "../x" is rejected before any store is asked).
func ValidID(id string) bool {
	if len(id) != 32 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= 'a' && c <= 'z' || c >= '2' && c <= '7') {
			return false
		}
	}
	return true
}

// ClampLimit returns the page size List uses for f.Limit.
func ClampLimit(n int) int {
	switch {
	case n <= 0:
		return 50
	case n > 500:
		return 500
	}
	return n
}
