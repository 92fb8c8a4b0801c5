package archive

import (
	"context"
	"crypto/rand"
	"encoding/base32"
	"errors"
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
)

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
	// ErrIdempotencyConflict if the body differs.
	Put(ctx context.Context, rec Record, idempotencyKey string) (meta Meta, created bool, err error)
	Get(ctx context.Context, id string) (Record, error)
	List(ctx context.Context, f Filter) (Page, error)
	// Delete removes a report and its attachments (ErrNotFound if absent).
	Delete(ctx context.Context, id string) error
	PutAttachment(ctx context.Context, id string, a Attachment) error
	GetAttachment(ctx context.Context, id, name string) (Attachment, error)
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
