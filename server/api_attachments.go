//go:build !js

package server

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/duplexscope/duplexscope/report"
	"github.com/duplexscope/duplexscope/server/archive"
)

// Attachments of a stored report: PUT and GET /api/reports/{id}/attachments/{name}
// and the quotas that bound them.

// attachmentTypes are the content types attachments may be served with;
// anything else is served as application/octet-stream.
var attachmentTypes = map[string]bool{
	"application/json": true, "application/octet-stream": true, "audio/wav": true, "audio/x-wav": true,
	"audio/wave": true, "audio/webm": true, "audio/ogg": true, "text/csv": true, "application/x-ndjson": true,
}

func safeContentType(ct string) string {
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil || !attachmentTypes[mt] {
		return "application/octet-stream"
	}
	return mt
}

// AttachmentResponse is the 201 body of PUT …/attachments/{name}.
type AttachmentResponse struct {
	Name      string `json:"name"`
	SizeBytes int    `json:"size_bytes"`
	SHA256    string `json:"sha256"`
	URL       string `json:"url"`
}

// handlePutAttachment stores one attachment a report declares: the name
// must be in the report's attachments[] with a sha256 (and size_bytes, when
// declared, must match), each name is written once (409 after), and the
// per-report and archive quotas hold. So whoever may write (the token, a
// sign-in, the report's own capability) can add only the bytes the report
// was uploaded with, never replace a stored wire log.
func (s *Server) handlePutAttachment(w http.ResponseWriter, r *http.Request) {
	id, ok := pathID(w, r)
	if !ok {
		return
	}
	refuse := func(code int, msg string) {
		s.metrics.uploads.WithLabelValues("attachment", "invalid").Inc()
		writeError(w, code, msg, nil)
	}
	if a := reportAccess(r); !a.full && a.report != id {
		refuse(http.StatusForbidden, "this capability is for report "+a.report+" only, not "+id)
		return
	}
	name := r.PathValue("name")
	if err := report.CheckAttachmentName(name); err != nil {
		refuse(http.StatusBadRequest, err.Error())
		return
	}
	rec, ok := s.getRecord(w, r)
	if !ok {
		s.metrics.uploads.WithLabelValues("attachment", "invalid").Inc()
		return
	}
	decl, err := declaredAttachment(rec.Body, name)
	if err != nil {
		refuse(http.StatusForbidden, err.Error())
		return
	}
	if decl.SizeBytes > s.cfg.MaxAttachment {
		refuse(http.StatusRequestEntityTooLarge, fmt.Sprintf("attachment %s is declared as %d bytes, the limit is %d", name, decl.SizeBytes, s.cfg.MaxAttachment))
		return
	}
	body, ok := readBody(w, r, s.cfg.MaxAttachment)
	if !ok {
		s.metrics.uploads.WithLabelValues("attachment", "invalid").Inc()
		return
	}
	sum := sha256.Sum256(body)
	got := hex.EncodeToString(sum[:])
	if decl.SizeBytes > 0 && int64(len(body)) != decl.SizeBytes {
		refuse(http.StatusBadRequest, fmt.Sprintf("attachment %s is %d bytes, the report declares %d", name, len(body), decl.SizeBytes))
		return
	}
	if !strings.EqualFold(got, decl.SHA256) {
		refuse(http.StatusBadRequest, fmt.Sprintf("attachment %s has sha256 %s, the report declares %s", name, got, decl.SHA256))
		return
	}
	ct := r.Header.Get("Content-Type")
	if ct == "" {
		ct = decl.ContentType
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), 60*time.Second)
	defer cancel()
	err = s.cfg.Store.PutAttachment(ctx, id, archive.Attachment{Name: name, ContentType: safeContentType(ct), Data: body}, s.cfg.AttachmentQuota)
	var qe *archive.QuotaError
	switch {
	case errors.Is(err, archive.ErrNotFound):
		refuse(http.StatusNotFound, "no report "+id)
		return
	case errors.Is(err, archive.ErrExists):
		refuse(http.StatusConflict, "attachment "+name+" of report "+id+" is already stored (attachments are written once)")
		return
	case errors.Is(err, archive.ErrTooLarge):
		refuse(http.StatusRequestEntityTooLarge, "attachment too large")
		return
	case errors.As(err, &qe) && qe.Scope == "archive":
		s.log.Warn("attachment quota of the archive is full", "used", qe.Used, "limit", qe.Limit)
		refuse(http.StatusInsufficientStorage, fmt.Sprintf("the archive's attachment space is full (%s of %s): the report is kept without this attachment; delete old reports or raise --attachment-quota-total", sizeText(qe.Used), sizeText(qe.Limit)))
		return
	case errors.As(err, &qe):
		limit := fmt.Sprintf("%d attachments", qe.Limit)
		if qe.What == "bytes" {
			limit = sizeText(qe.Limit) + " of attachments"
		}
		refuse(http.StatusRequestEntityTooLarge, "report "+id+" already holds its quota of "+limit+" (--attachment-quota-count / --attachment-quota-report)")
		return
	case err != nil:
		s.metrics.uploads.WithLabelValues("attachment", "error").Inc()
		s.log.Error("put attachment", "id", id, "name", name, "err", err)
		writeError(w, http.StatusInternalServerError, "storing the attachment failed", nil)
		return
	}
	s.metrics.uploads.WithLabelValues("attachment", "created").Inc()
	u := "/api/reports/" + id + "/attachments/" + name
	w.Header().Set("Location", u)
	writeJSON(w, http.StatusCreated, AttachmentResponse{Name: name, SizeBytes: len(body), SHA256: got, URL: u})
}

// declaredAttachment finds name in a stored report's attachments[]; a
// report that does not declare it, or declares it without a sha256,
// accepts no bytes under that name.
func declaredAttachment(body []byte, name string) (report.Attachment, error) {
	var r struct {
		Attachments []report.Attachment `json:"attachments"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		return report.Attachment{}, fmt.Errorf("the stored report is unreadable: %w", err)
	}
	for _, a := range r.Attachments {
		if a.Name != name {
			continue
		}
		if len(a.SHA256) != 64 {
			return a, fmt.Errorf("the report declares attachment %s without a sha256, so no bytes can be checked against it", name)
		}
		return a, nil
	}
	return report.Attachment{}, fmt.Errorf("the report does not declare an attachment named %s (only the names in its attachments[] can be stored)", name)
}

// sizeText is n bytes in words ("16 GiB", "1.5 MiB").
func sizeText(n int64) string {
	for _, u := range []struct {
		s string
		b int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n >= u.b {
			return strconv.FormatFloat(float64(n)/float64(u.b), 'g', 3, 64) + " " + u.s
		}
	}
	return strconv.FormatInt(n, 10) + " bytes"
}

// DefaultAttachmentQuota bounds attachments when Config leaves it zero: a
// browser run stores three (wire log, input, output audio), a dataset run
// one wire log per session.
var DefaultAttachmentQuota = archive.Quota{PerReport: 1024, PerReportBytes: 1 << 30, TotalBytes: 16 << 30}

func quotaWithDefaults(q archive.Quota) archive.Quota {
	d := DefaultAttachmentQuota
	if q.PerReport == 0 {
		q.PerReport = d.PerReport
	}
	if q.PerReportBytes == 0 {
		q.PerReportBytes = d.PerReportBytes
	}
	if q.TotalBytes == 0 {
		q.TotalBytes = d.TotalBytes
	}
	// Negative means no bound, which the store spells as zero.
	q.PerReport, q.PerReportBytes, q.TotalBytes = max(q.PerReport, 0), max(q.PerReportBytes, 0), max(q.TotalBytes, 0)
	return q
}

func (s *Server) handleGetAttachment(w http.ResponseWriter, r *http.Request) {
	id, ok := pathID(w, r)
	if !ok {
		return
	}
	name := r.PathValue("name")
	if err := report.CheckAttachmentName(name); err != nil {
		writeError(w, http.StatusBadRequest, err.Error(), nil)
		return
	}
	ctx, cancel := ctxTimeout(r)
	defer cancel()
	a, err := s.cfg.Store.GetAttachment(ctx, id, name)
	if s.storeFailed(w, err, "no attachment "+name, "reading the attachment failed", "") {
		return
	}
	h := w.Header()
	h.Set("Content-Type", safeContentType(a.ContentType))
	h.Set("Content-Security-Policy", "default-src 'none'; sandbox")
	h.Set("Content-Disposition", `inline; filename="`+name+`"`)
	http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(a.Data))
}
