package archive

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/duplexscope/duplexscope/report"
)

// NewRecord fills in a report's id and creation time and returns the record
// to store. The report is changed in place (ID, CreatedAt).
func NewRecord(r *report.Report, id string, now time.Time) (Record, error) {
	now = now.UTC().Truncate(time.Microsecond)
	r.ID, r.CreatedAt = "", ""
	canon, err := report.Marshal(r)
	if err != nil {
		return Record{}, err
	}
	sum := sha256.Sum256(canon)
	r.ID = id
	r.CreatedAt = now.Format(time.RFC3339Nano)
	// The body is the canonical JSON with id and created_at after "schema"
	// (where encoding/json puts them), spliced in rather than re-encoded.
	prefix := `{"schema":` + strconv.Quote(report.Schema) + `,`
	var body []byte
	if strings.HasPrefix(string(canon), prefix) && ValidID(id) {
		body = make([]byte, 0, len(canon)+96)
		body = append(body, prefix...)
		body = append(body, `"id":"`+id+`","created_at":"`+r.CreatedAt+`",`...)
		body = append(body, canon[len(prefix):]...)
	} else if body, err = report.Marshal(r); err != nil {
		return Record{}, err
	}
	m := MetaFromReport(r)
	m.CreatedAt = now
	m.BodySHA256 = hex.EncodeToString(sum[:])
	return Record{Meta: m, Body: body}, nil
}

// MetaFromReport derives the listed metadata of a report.
func MetaFromReport(r *report.Report) Meta {
	src := r.Run.Source.Kind
	if r.Run.Source.Dataset != "" {
		src += ":" + r.Run.Source.Dataset
	}
	m := Meta{
		ID:        r.ID,
		Model:     r.Run.Model,
		Profile:   r.Run.Profile,
		TargetURL: r.Run.TargetURL,
		Source:    src,
		FrameMs:   r.Run.FrameMs,
		Client:    r.Run.Client,
		Name:      r.Run.Name,
		Tags:      r.Run.Tags,
		Complete:  r.Complete,
		RunID:     r.Run.RunID,
		Responses: len(r.Metrics.Requests),
		TTFTP50Ms: r.Metrics.MedianResponseTTFT,
		TTFPP50Ms: r.Metrics.MedianResponseTTFP,
		TTFPP99Ms: r.Metrics.P99ResponseTTFP,
	}
	if s := r.Run.Shard; s != nil {
		m.ShardIdx, m.ShardCnt = s.Index, s.Count
	}
	var text []string
	text = append(text, r.Run.Source.Split, r.Run.Name, r.Run.Notes)
	text = append(text, r.Run.Tags...)
	for _, w := range r.Warnings {
		text = append(text, w.Code)
	}
	m.Text = strings.Join(text, " ")
	return m
}

// Matches reports whether m passes f (ignoring Cursor and Limit); stores
// without an index use it, SQL stores implement the same rules in SQL.
func (m Meta) Matches(f Filter) bool {
	if f.Model != "" && m.Model != f.Model {
		return false
	}
	if !f.Since.IsZero() && m.CreatedAt.Before(f.Since) {
		return false
	}
	if f.RunID != "" && m.RunID != f.RunID {
		return false
	}
	if f.Text != "" {
		hay := strings.ToLower(strings.Join([]string{m.Model, m.Profile, m.TargetURL, m.Source, m.RunID, m.Text}, "\x00"))
		if !strings.Contains(hay, strings.ToLower(f.Text)) {
			return false
		}
	}
	return true
}

// Cursor positions List after (createdAt, id) in newest-first order.
type Cursor struct {
	CreatedAt time.Time
	ID        string
}

// EncodeCursor returns the opaque cursor string for the last item of a page.
func EncodeCursor(m Meta) string {
	raw := strconv.FormatInt(m.CreatedAt.UnixMicro(), 10) + ":" + m.ID
	return base64.RawURLEncoding.EncodeToString([]byte(raw))
}

// DecodeCursor parses a cursor from EncodeCursor.
func DecodeCursor(s string) (Cursor, error) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return Cursor{}, fmt.Errorf("bad cursor: %w", err)
	}
	ts, id, ok := strings.Cut(string(b), ":")
	us, err := strconv.ParseInt(ts, 10, 64)
	if !ok || err != nil || !ValidID(id) {
		return Cursor{}, fmt.Errorf("bad cursor %q", s)
	}
	return Cursor{CreatedAt: time.UnixMicro(us).UTC(), ID: id}, nil
}

// Before reports whether m sorts after the cursor in newest-first order
// (i.e. belongs to the next page).
func (c Cursor) Before(m Meta) bool {
	if !m.CreatedAt.Equal(c.CreatedAt) {
		return m.CreatedAt.Before(c.CreatedAt)
	}
	return m.ID < c.ID
}
