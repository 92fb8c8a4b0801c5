package archive

import (
	"context"
	"fmt"
	"sort"
	"sync"
)

// Memory is an in-memory Store for tests and throwaway servers.
type Memory struct {
	mu          sync.RWMutex
	recs        map[string]Record
	idem        map[string]string
	attachments map[string]map[string]Attachment
	total       int64 // attachment bytes
	// MaxAttachment bounds one attachment (0 = 64 MiB).
	MaxAttachment int
}

// NewMemory returns an empty in-memory store.
func NewMemory() *Memory {
	return &Memory{recs: map[string]Record{}, idem: map[string]string{}, attachments: map[string]map[string]Attachment{}}
}

// Put implements Store.
func (s *Memory) Put(_ context.Context, rec Record, key string) (Meta, bool, error) {
	if !ValidID(rec.ID) {
		return Meta{}, false, fmt.Errorf("put: invalid id %q", rec.ID)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if key != "" {
		if id, ok := s.idem[key]; ok {
			old := s.recs[id]
			if old.BodySHA256 != rec.BodySHA256 {
				return Meta{}, false, ErrIdempotencyConflict
			}
			return old.Meta, false, nil
		}
	}
	if _, ok := s.recs[rec.ID]; ok {
		return Meta{}, false, fmt.Errorf("put %s: %w", rec.ID, ErrExists)
	}
	rec.Body = append([]byte(nil), rec.Body...)
	s.recs[rec.ID] = rec
	if key != "" {
		s.idem[key] = rec.ID
	}
	return rec.Meta, true, nil
}

// Get implements Store.
func (s *Memory) Get(_ context.Context, id string) (Record, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	r, ok := s.recs[id]
	if !ok {
		return Record{}, ErrNotFound
	}
	r.Body = append([]byte(nil), r.Body...)
	return r, nil
}

// List implements Store.
func (s *Memory) List(_ context.Context, f Filter) (Page, error) {
	var cur *Cursor
	if f.Cursor != "" {
		c, err := DecodeCursor(f.Cursor)
		if err != nil {
			return Page{}, err
		}
		cur = &c
	}
	s.mu.RLock()
	var all []Meta
	for _, r := range s.recs {
		if r.Matches(f) && (cur == nil || cur.Before(r.Meta)) {
			all = append(all, r.Meta)
		}
	}
	s.mu.RUnlock()
	sort.Slice(all, func(i, j int) bool {
		if !all[i].CreatedAt.Equal(all[j].CreatedAt) {
			return all[i].CreatedAt.After(all[j].CreatedAt)
		}
		return all[i].ID > all[j].ID
	})
	return PageOf(all, ClampLimit(f.Limit)), nil
}

// PageOf cuts a sorted candidate list (at most limit+1 needed) into a page.
func PageOf(items []Meta, limit int) Page {
	if len(items) <= limit {
		return Page{Items: items}
	}
	items = items[:limit]
	return Page{Items: items, Next: EncodeCursor(items[limit-1])}
}

// Delete implements Store.
func (s *Memory) Delete(_ context.Context, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.recs[id]; !ok {
		return ErrNotFound
	}
	delete(s.recs, id)
	for _, a := range s.attachments[id] {
		s.total -= int64(len(a.Data))
	}
	delete(s.attachments, id)
	for k, v := range s.idem {
		if v == id {
			delete(s.idem, k)
		}
	}
	return nil
}

// PutAttachment implements Store.
func (s *Memory) PutAttachment(_ context.Context, id string, a Attachment, q Quota) error {
	max := s.MaxAttachment
	if max == 0 {
		max = DefaultMaxAttachment
	}
	if len(a.Data) > max {
		return ErrTooLarge
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.recs[id]; !ok {
		return ErrNotFound
	}
	have := s.attachments[id]
	if _, ok := have[a.Name]; ok {
		return ErrExists
	}
	var used int64
	for _, x := range have {
		used += int64(len(x.Data))
	}
	size := int64(len(a.Data))
	if err := CheckReportQuota(q, len(have), used, size); err != nil {
		return err
	}
	if q.TotalBytes > 0 && s.total+size > q.TotalBytes {
		return &QuotaError{Scope: "archive", What: "bytes", Limit: q.TotalBytes, Used: s.total}
	}
	if have == nil {
		have = map[string]Attachment{}
		s.attachments[id] = have
	}
	a.Data = append([]byte(nil), a.Data...)
	have[a.Name] = a
	s.total += size
	return nil
}

// GetAttachment implements Store.
func (s *Memory) GetAttachment(_ context.Context, id, name string) (Attachment, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	a, ok := s.attachments[id][name]
	if !ok {
		return Attachment{}, ErrNotFound
	}
	a.Data = append([]byte(nil), a.Data...)
	return a, nil
}

// Update implements Store.
func (s *Memory) Update(_ context.Context, id string, edit func(Record) (Record, error)) (Meta, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	old, ok := s.recs[id]
	if !ok {
		return Meta{}, ErrNotFound
	}
	cp := old
	cp.Body = append([]byte(nil), old.Body...)
	rec, err := edit(cp)
	if err != nil {
		return Meta{}, err
	}
	rec.ID, rec.CreatedAt, rec.BodySHA256, rec.Rev = old.ID, old.CreatedAt, old.BodySHA256, old.Rev+1
	rec.Body = append([]byte(nil), rec.Body...)
	s.recs[id] = rec
	return rec.Meta, nil
}

// Close implements Store.
func (s *Memory) Close() error { return nil }

// DefaultMaxAttachment is the default size limit of one attachment.
const DefaultMaxAttachment = 64 << 20
