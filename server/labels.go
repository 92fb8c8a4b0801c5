//go:build !js

package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/duplexscope/duplexscope/report"
	"github.com/duplexscope/duplexscope/server/archive"
)

// MaxLabelsBody bounds the body of PATCH /api/reports/{id}: the largest
// valid one (4 000 characters of notes, 16 tags of 64, a 200-character
// name, each up to 4 UTF-8 bytes or a 6-byte escape) fits well within it.
const MaxLabelsBody = 64 << 10

// LabelsResponse is the 200 body of PATCH /api/reports/{id}: the run's
// labels after the change.
type LabelsResponse struct {
	ID    string   `json:"id"`
	URL   string   `json:"url"`
	Name  string   `json:"name"`
	Notes string   `json:"notes"`
	Tags  []string `json:"tags"`
}

// labelsPatch is a parsed PATCH body: nil fields were absent (unchanged).
type labelsPatch struct {
	Name, Notes *string
	Tags        *[]string
}

// errLabels is a PATCH body that is not what the route takes; fields name
// the keys at fault.
type errLabels struct {
	msg    string
	fields []report.FieldError
}

func (e *errLabels) Error() string { return e.msg }

func badLabels(path, reason string) *errLabels {
	return &errLabels{msg: "invalid labels: " + path + ": " + reason, fields: []report.FieldError{{Path: path, Reason: reason}}}
}

// parseLabels reads {"name","notes","tags"} (any subset; null clears a
// key). Duplicate keys (also after case folding, which Go's decoder would
// merge), unknown keys, wrong types and trailing data are refused, and the
// values must pass report.CheckLabels.
func parseLabels(body []byte) (labelsPatch, error) {
	var p labelsPatch
	lim := report.Limits{MaxBytes: MaxLabelsBody, MaxDepth: 3, MaxArray: report.MaxTags + 1, MaxString: 32 << 10}
	if err := report.CheckJSON(body, lim); err != nil {
		var ve *report.ValidationError
		if errors.As(err, &ve) {
			return p, &errLabels{msg: "invalid labels: " + strings.TrimPrefix(ve.Error(), "invalid report: "), fields: ve.Errors}
		}
		return p, badLabels("", err.Error())
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	var raw map[string]json.RawMessage
	if err := dec.Decode(&raw); err != nil || raw == nil {
		return p, badLabels("", `the body must be a JSON object {"name": …, "notes": …, "tags": […]}`)
	}
	if dec.More() {
		return p, badLabels("", "data after the JSON object")
	}
	for _, k := range slices.Sorted(maps.Keys(raw)) {
		v := raw[k]
		null := string(v) == "null"
		switch k {
		case "name", "notes":
			var s string
			if !null {
				if err := json.Unmarshal(v, &s); err != nil {
					return p, badLabels(k, "must be a string")
				}
			}
			if k == "name" {
				p.Name = &s
			} else {
				p.Notes = &s
			}
		case "tags":
			tags := []string{}
			if !null {
				if err := json.Unmarshal(v, &tags); err != nil || tags == nil {
					return p, badLabels(k, "must be a list of strings")
				}
			}
			p.Tags = &tags
		default:
			return p, badLabels(k, `unknown key: the body takes "name", "notes" and "tags"`)
		}
	}
	if len(raw) == 0 {
		return p, badLabels("", `nothing to change: send any of "name", "notes", "tags"`)
	}
	var name, notes string
	var tags []string
	if p.Name != nil {
		name = *p.Name
	}
	if p.Notes != nil {
		notes = *p.Notes
	}
	if p.Tags != nil {
		tags = *p.Tags
	}
	if fes := report.CheckLabels(name, notes, tags); len(fes) > 0 {
		e := &errLabels{}
		var parts []string
		for _, fe := range fes {
			fe.Path = strings.TrimPrefix(fe.Path, "run.") // the body's own key
			e.fields = append(e.fields, fe)
			parts = append(parts, fe.Error())
		}
		e.msg = "invalid labels: " + strings.Join(parts, "; ")
		return p, e
	}
	return p, nil
}

// apply sets the patch's fields on r.
func (p labelsPatch) apply(r *report.Report) {
	if p.Name != nil {
		r.Run.Name = *p.Name
	}
	if p.Notes != nil {
		r.Run.Notes = *p.Notes
	}
	if p.Tags != nil {
		r.Run.Tags = nil
		if len(*p.Tags) > 0 {
			r.Run.Tags = *p.Tags
		}
	}
}

// handlePatchLabels is PATCH /api/reports/{id}: set a run's name, notes
// and tags. Behind reportWrite (rate limit; the write token, a same-origin
// sign-in, or this report's own capability when a token is set), and the
// Origin and Content-Type rules of policy.
func (s *Server) handlePatchLabels(w http.ResponseWriter, r *http.Request) {
	id, ok := pathID(w, r)
	if !ok {
		return
	}
	if a := reportAccess(r); !a.full && a.report != id {
		writeError(w, http.StatusForbidden, "this capability is for report "+a.report+" only, not "+id, nil)
		return
	}
	body, ok := readBody(w, r, MaxLabelsBody)
	if !ok {
		return
	}
	patch, err := parseLabels(body)
	if err != nil {
		var le *errLabels
		if errors.As(err, &le) {
			writeError(w, http.StatusBadRequest, le.msg, le.fields)
			return
		}
		writeError(w, http.StatusBadRequest, err.Error(), nil)
		return
	}
	// Finish the write even if the client goes away (like uploads).
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), 30*time.Second)
	defer cancel()
	var out *report.Report
	_, err = s.cfg.Store.Update(ctx, id, func(old archive.Record) (archive.Record, error) {
		rep, err := decodeRecord(old)
		if err != nil {
			return old, err
		}
		patch.apply(rep)
		body, err := report.Marshal(rep)
		if err != nil {
			return old, fmt.Errorf("re-encoding report %s: %w", id, err)
		}
		out = rep
		return archive.Record{Meta: archive.MetaFromReport(rep), Body: body}, nil
	})
	if s.storeFailed(w, err, "no report "+id, "changing the report's labels failed", "relabel", "id", id) {
		return
	}
	s.log.Info("report relabelled", "id", id)
	tags := out.Run.Tags
	if tags == nil {
		tags = []string{}
	}
	writeJSON(w, http.StatusOK, LabelsResponse{ID: id, URL: "/r/" + id, Name: out.Run.Name, Notes: out.Run.Notes, Tags: tags})
}
