//go:build !js

package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/duplexscope/duplexscope/report"
	"github.com/duplexscope/duplexscope/server/archive"
)

// UploadResponse is the 201 body of POST /api/reports and POST /api/import.
type UploadResponse struct {
	ID     string `json:"id"`
	URL    string `json:"url"`
	RunURL string `json:"run_url,omitempty"`
}

// ListItem is one entry of GET /api/reports.
type ListItem struct {
	archive.Meta
	CreatedAt string `json:"created_at"` // RFC 3339
	URL       string `json:"url"`
}

// ListResponse is the body of GET /api/reports; Next is null on the last page.
type ListResponse struct {
	Reports []ListItem `json:"reports"`
	Next    *string    `json:"next"`
}

// RunResponse is the body of GET /api/runs/{run}.
type RunResponse struct {
	Report         *report.Report `json:"report"`
	ShardsReceived []int          `json:"shards_received"`
	ShardCount     int            `json:"shard_count"`
	Final          bool           `json:"final"`
	ShardIDs       []string       `json:"shard_ids"`
}

// readBody reads at most limit bytes; ok=false means an error was written.
func readBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, bool) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			writeError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("body exceeds %d bytes", limit), nil)
			return nil, false
		}
		writeError(w, http.StatusBadRequest, "reading body: "+err.Error(), nil)
		return nil, false
	}
	return body, true
}

func (s *Server) validationFailed(w http.ResponseWriter, kind string, err error) {
	s.metrics.uploads.WithLabelValues(kind, "invalid").Inc()
	var ve *report.ValidationError
	if errors.As(err, &ve) {
		code := http.StatusBadRequest
		for _, fe := range ve.Errors {
			if strings.Contains(fe.Reason, "limit is") && fe.Path == "" {
				code = http.StatusRequestEntityTooLarge
			}
		}
		writeError(w, code, ve.Error(), ve.Errors)
		return
	}
	writeError(w, http.StatusBadRequest, err.Error(), nil)
}

func (s *Server) handleUpload(w http.ResponseWriter, r *http.Request) {
	body, ok := readBody(w, r, int64(s.cfg.Limits.MaxBytes))
	if !ok {
		s.metrics.uploads.WithLabelValues("report", "invalid").Inc()
		return
	}
	rep, err := report.Decode(body, s.cfg.Limits)
	if err != nil {
		s.validationFailed(w, "report", err)
		return
	}
	s.store(w, r, "report", rep)
}

func (s *Server) handleImport(w http.ResponseWriter, r *http.Request) {
	body, ok := readBody(w, r, int64(s.cfg.Limits.MaxBytes))
	if !ok {
		s.metrics.uploads.WithLabelValues("import", "invalid").Inc()
		return
	}
	q := r.URL.Query()
	rep, err := report.Import(body, s.cfg.Limits, report.ImportOptions{
		Model: q.Get("model"), TargetURL: q.Get("target_url"), Dataset: q.Get("dataset"), Version: s.cfg.Version,
	})
	if err != nil {
		s.validationFailed(w, "import", err)
		return
	}
	s.store(w, r, "import", rep)
}

// store assigns an id, stores the report and answers 201.
func (s *Server) store(w http.ResponseWriter, r *http.Request, kind string, rep *report.Report) {
	key := r.Header.Get("Idempotency-Key")
	if len(key) > 200 || strings.ContainsFunc(key, func(c rune) bool { return c < 0x20 || c > 0x7e }) {
		s.metrics.uploads.WithLabelValues(kind, "invalid").Inc()
		writeError(w, http.StatusBadRequest, "Idempotency-Key must be at most 200 printable ASCII characters", nil)
		return
	}
	id := s.cfg.NewID()
	if a := reportAccess(r); a.report != "" {
		// A report capability creates exactly its own id; without an
		// Idempotency-Key its retries still replay.
		id = a.report
		if key == "" {
			key = "capability:" + id
		}
	}
	rec, err := archive.NewRecord(rep, id, s.now())
	if err != nil {
		s.metrics.uploads.WithLabelValues(kind, "error").Inc()
		writeError(w, http.StatusInternalServerError, err.Error(), nil)
		return
	}
	// Store even if the client went away: a 201 it may have missed is
	// covered by its idempotent retry.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), 30*time.Second)
	defer cancel()
	meta, created, err := s.cfg.Store.Put(ctx, rec, key)
	switch {
	case errors.Is(err, archive.ErrIdempotencyConflict):
		s.metrics.uploads.WithLabelValues(kind, "invalid").Inc()
		writeError(w, http.StatusConflict, "Idempotency-Key was already used for a different report", nil)
		return
	case errors.Is(err, archive.ErrExists):
		s.metrics.uploads.WithLabelValues(kind, "invalid").Inc()
		writeError(w, http.StatusConflict, "report "+id+" already exists: a report capability creates one report, once", nil)
		return
	case err != nil:
		s.metrics.uploads.WithLabelValues(kind, "error").Inc()
		s.log.Error("store report", "err", err)
		writeError(w, http.StatusInternalServerError, "storing the report failed", nil)
		return
	}
	result := "created"
	if !created {
		result = "replayed"
		w.Header().Set("Idempotent-Replayed", "true")
	}
	s.metrics.uploads.WithLabelValues(kind, result).Inc()
	resp := UploadResponse{ID: meta.ID, URL: "/r/" + meta.ID}
	if meta.RunID != "" {
		resp.RunURL = "/runs/" + url.PathEscape(meta.RunID)
	}
	s.log.Info("report stored", "id", meta.ID, "kind", kind, "model", meta.Model, "responses", meta.Responses, "replayed", !created, "run_id", meta.RunID)
	w.Header().Set("Location", resp.URL)
	writeJSON(w, http.StatusCreated, resp)
}

// pathID returns the {id} path value if it is a valid report id, else
// writes 400 (path tricks never reach the store).
func pathID(w http.ResponseWriter, r *http.Request) (string, bool) {
	id := r.PathValue("id")
	if !archive.ValidID(id) {
		writeError(w, http.StatusBadRequest, "invalid report id (32 characters of a-z2-7)", nil)
		return "", false
	}
	return id, true
}

func (s *Server) getRecord(w http.ResponseWriter, r *http.Request) (archive.Record, bool) {
	id, ok := pathID(w, r)
	if !ok {
		return archive.Record{}, false
	}
	ctx, cancel := ctxTimeout(r)
	defer cancel()
	rec, err := s.cfg.Store.Get(ctx, id)
	return rec, !s.storeFailed(w, err, "no report "+id, "reading the report failed", "get report", "id", id)
}

func (s *Server) handleGet(w http.ResponseWriter, r *http.Request) {
	rec, ok := s.getRecord(w, r)
	if !ok {
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	w.Write(rec.Body)
}

func (s *Server) handleList(w http.ResponseWriter, r *http.Request) {
	if !s.canList(r) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="duplexscope"`)
		writeError(w, http.StatusUnauthorized, "listing this archive needs the write token (Authorization: Bearer <token>) or a sign-in at /signin; a single report is readable by its id", nil)
		return
	}
	f, err := parseFilter(r.URL.Query())
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error(), nil)
		return
	}
	ctx, cancel := ctxTimeout(r)
	defer cancel()
	page, err := s.cfg.Store.List(ctx, f)
	if err != nil {
		if strings.Contains(err.Error(), "bad cursor") {
			writeError(w, http.StatusBadRequest, err.Error(), nil)
			return
		}
		s.log.Error("list", "err", err)
		writeError(w, http.StatusInternalServerError, "listing failed", nil)
		return
	}
	resp := ListResponse{Reports: make([]ListItem, 0, len(page.Items))}
	for _, m := range page.Items {
		resp.Reports = append(resp.Reports, ListItem{Meta: m, CreatedAt: m.CreatedAt.UTC().Format(time.RFC3339Nano), URL: "/r/" + m.ID})
	}
	if page.Next != "" {
		resp.Next = &page.Next
	}
	writeJSON(w, http.StatusOK, resp)
}

func parseFilter(q url.Values) (archive.Filter, error) {
	f := archive.Filter{Model: q.Get("model"), Text: q.Get("text"), RunID: q.Get("run_id"), Cursor: q.Get("cursor")}
	if f.Text == "" {
		f.Text = q.Get("q")
	}
	for name, v := range map[string]string{"model": f.Model, "text": f.Text, "run_id": f.RunID, "cursor": f.Cursor} {
		if len(v) > 512 {
			return f, fmt.Errorf("%s: longer than 512 bytes", name)
		}
	}
	if v := q.Get("since"); v != "" {
		t, err := time.Parse(time.RFC3339, v)
		if err != nil {
			d, err2 := time.Parse(time.DateOnly, v)
			if err2 != nil {
				return f, fmt.Errorf("since: want RFC 3339 (2026-12-02T15:04:05Z) or a date (2026-12-02), got %q", v)
			}
			t = d
		}
		f.Since = t
	}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 500 {
			return f, fmt.Errorf("limit: want 1…500, got %q", v)
		}
		f.Limit = n
	}
	return f, nil
}

func (s *Server) handleDelete(w http.ResponseWriter, r *http.Request) {
	id, ok := pathID(w, r)
	if !ok {
		return
	}
	ctx, cancel := ctxTimeout(r)
	defer cancel()
	err := s.cfg.Store.Delete(ctx, id)
	if s.storeFailed(w, err, "no report "+id, "delete failed", "delete", "id", id) {
		return
	}
	s.log.Info("report deleted", "id", id)
	w.WriteHeader(http.StatusNoContent)
}

func decodeRecord(rec archive.Record) (*report.Report, error) {
	lim := report.DefaultLimits
	lim.MaxBytes, lim.Stored = 0, true
	r, err := report.Decode(rec.Body, lim)
	if err != nil {
		return nil, fmt.Errorf("stored report %s: %w", rec.ID, err)
	}
	return r, nil
}

func (s *Server) handleExport(w http.ResponseWriter, r *http.Request) {
	rec, ok := s.getRecord(w, r)
	if !ok {
		return
	}
	format := r.URL.Query().Get("format")
	if format == "json" || format == "" {
		writeDownload(w, "application/json; charset=utf-8", "duplexscope-"+rec.ID+".json", rec.Body, nil)
		return
	}
	rep, err := decodeRecord(rec)
	if err != nil {
		s.log.Error("export", "err", err)
		writeError(w, http.StatusInternalServerError, "stored report is unreadable", nil)
		return
	}
	switch format {
	case "html": // the share page as one self-contained file (exporthtml.go)
		s.exportHTML(w, r, rec, rep)
	case "vllm":
		b, err := report.VLLM(rep)
		writeDownload(w, "application/json; charset=utf-8", "duplex_metrics.json", b, err)
	case report.FormatVLLMResult: // the vllm bench serve --save-result file
		b, err := report.VLLMResult(rep)
		writeDownload(w, "application/json; charset=utf-8", "vllm-result-"+rec.ID+".json", b, err)
	case "csv":
		var buf bytes.Buffer
		err := report.CSV(&buf, rep)
		writeDownload(w, "text/csv; charset=utf-8", "duplexscope-"+rec.ID+".csv", buf.Bytes(), err)
	default:
		writeError(w, http.StatusBadRequest, "format: want json, vllm, vllm-result, csv or html", nil)
	}
}

// writeDownload answers with b as a file to save, or with a 500 naming err
// when building it failed.
func writeDownload(w http.ResponseWriter, contentType, filename string, b []byte, err error) {
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error(), nil)
		return
	}
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Content-Disposition", `attachment; filename="`+filename+`"`)
	w.Write(b)
}

// CapabilityResponse is the body of POST /api/capabilities.
type CapabilityResponse struct {
	ID         string `json:"id"`
	Capability string `json:"capability"`
	ExpiresAt  string `json:"expires_at"` // RFC 3339
}

// handleMint mints a capability for one new report id, derived from the
// Idempotency-Key: minting again with the same key gives the same id (and a
// fresh capability), so a retried upload lands on the report it started.
// The capability may create that report (POST /api/reports) and attach to
// it (PUT …/attachments/{name}), nothing else.
func (s *Server) handleMint(w http.ResponseWriter, r *http.Request) {
	key := r.Header.Get("Idempotency-Key")
	if key == "" || len(key) > 200 || strings.ContainsFunc(key, func(c rune) bool { return c < 0x20 || c > 0x7e }) {
		writeError(w, http.StatusBadRequest, "POST /api/capabilities needs an Idempotency-Key header: 1–200 printable ASCII characters, the same key the upload will send", nil)
		return
	}
	id := s.reportIDFor(key)
	exp := s.now().Add(ReportCapabilityTTL)
	writeJSON(w, http.StatusOK, CapabilityResponse{ID: id, Capability: s.reportCapability(id, exp), ExpiresAt: exp.UTC().Format(time.RFC3339)})
}

// loadRun reads every shard of run (oldest first) and merges them.
func (s *Server) loadRun(ctx context.Context, run string) (*RunResponse, error) {
	var recs []archive.Record
	f := archive.Filter{RunID: run, Limit: 500}
	for pages := 0; pages < 10; pages++ {
		p, err := s.cfg.Store.List(ctx, f)
		if err != nil {
			return nil, err
		}
		for _, m := range p.Items {
			rec, err := s.cfg.Store.Get(ctx, m.ID)
			if err != nil {
				return nil, err
			}
			recs = append(recs, rec)
		}
		if p.Next == "" {
			break
		}
		f.Cursor = p.Next
	}
	if len(recs) == 0 {
		return nil, archive.ErrNotFound
	}
	sort.SliceStable(recs, func(i, j int) bool { return recs[i].CreatedAt.Before(recs[j].CreatedAt) })
	var shards []*report.Report
	var ids []string
	for _, rec := range recs {
		r, err := decodeRecord(rec)
		if err != nil {
			return nil, err
		}
		shards = append(shards, r)
		ids = append(ids, rec.ID)
	}
	merged, received, err := report.MergeShards(shards)
	if err != nil {
		return nil, err
	}
	count := 1
	if shard := shards[0].Run.Shard; shard != nil {
		count = shard.Count
	}
	merged.ID = ""
	merged.CreatedAt = recs[0].CreatedAt.UTC().Format(time.RFC3339Nano)
	return &RunResponse{Report: merged, ShardsReceived: received, ShardCount: count, Final: len(received) == count, ShardIDs: ids}, nil
}

func (s *Server) runParam(w http.ResponseWriter, r *http.Request) (string, bool) {
	run := r.PathValue("run")
	if !report.ValidRunID(run) {
		writeError(w, http.StatusBadRequest, "invalid run id", nil)
		return "", false
	}
	return run, true
}

func (s *Server) handleGetRun(w http.ResponseWriter, r *http.Request) {
	run, ok := s.runParam(w, r)
	if !ok {
		return
	}
	ctx, cancel := ctxTimeout(r)
	defer cancel()
	m, err := s.mergedRun(ctx, run) // runcache.go: bounded, cached
	if errors.Is(err, errRunTooLarge) {
		writeError(w, http.StatusRequestEntityTooLarge, err.Error(), nil)
		return
	}
	if err != nil && s.storeFailed(w, err, "no run "+run, "merging the run failed: "+err.Error(), "run", "run", run) {
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8") // as writeJSON
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(m.json)
}

// Health is the body of GET /healthz.
type Health struct {
	Status  string `json:"status"`
	Version string `json:"version"`
	Store   string `json:"store"`
}

func (s *Server) handleHealth(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	h := Health{Status: "ok", Version: s.cfg.Version, Store: "ok"}
	code := http.StatusOK
	if _, err := s.cfg.Store.List(ctx, archive.Filter{Limit: 1}); err != nil {
		h.Status, h.Store, code = "degraded", err.Error(), http.StatusServiceUnavailable
	}
	writeJSON(w, code, h)
}
