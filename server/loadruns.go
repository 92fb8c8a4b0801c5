//go:build !js

package server

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/duplexscope/duplexscope/loadrun"
)

// Bounds of the load-run endpoints.
const (
	loadReadyDefaultWait = 2 * time.Minute
	loadReadyMaxWait     = 10 * time.Minute
	maxLoadRunBody       = 8 << 20
)

// handleLoadReady is the level barrier: it answers once every shard of the
// run is ready for the level (or 504 after ?wait_s=, default 120 s).
func (s *Server) handleLoadReady(w http.ResponseWriter, r *http.Request) {
	var req loadrun.ReadyRequest
	if !decodeLoadBody(w, r, &req) {
		return
	}
	wait := loadReadyDefaultWait
	if v := r.URL.Query().Get("wait_s"); v != "" {
		sec, err := strconv.ParseFloat(v, 64)
		if err != nil || sec <= 0 || sec != sec {
			writeError(w, http.StatusBadRequest, "wait_s: want a positive number of seconds", nil)
			return
		}
		wait = min(time.Duration(sec*float64(time.Second)), loadReadyMaxWait)
	}
	ctx, cancel := context.WithTimeout(r.Context(), wait)
	defer cancel()
	stop := context.AfterFunc(s.closing, cancel) // server shutdown releases waiters
	defer stop()
	res, err := s.loads.Ready(ctx, r.PathValue("run"), req)
	if err != nil {
		writeLoadError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, res)
}

// handleLoadSessions adds a runner's finished sessions to the live view.
func (s *Server) handleLoadSessions(w http.ResponseWriter, r *http.Request) {
	var req loadrun.ReportRequest
	if !decodeLoadBody(w, r, &req) {
		return
	}
	st, err := s.loads.Report(r.PathValue("run"), req)
	if err != nil {
		writeLoadError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, st)
}

// handleLoadStatus is the pooled live curve of a run.
func (s *Server) handleLoadStatus(w http.ResponseWriter, r *http.Request) {
	st, err := s.loads.Status(r.PathValue("run"))
	if err != nil {
		writeLoadError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, st)
}

func decodeLoadBody(w http.ResponseWriter, r *http.Request, v any) bool {
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxLoadRunBody))
	if err != nil {
		writeError(w, http.StatusRequestEntityTooLarge, "load-run body over 8 MiB", nil)
		return false
	}
	if err := json.Unmarshal(b, v); err != nil {
		writeError(w, http.StatusBadRequest, "load-run body: "+err.Error(), nil)
		return false
	}
	return true
}

func writeLoadError(w http.ResponseWriter, err error) {
	code := http.StatusInternalServerError
	switch {
	case errors.Is(err, loadrun.ErrBadRequest):
		code = http.StatusBadRequest
	case errors.Is(err, loadrun.ErrConflict):
		code = http.StatusConflict
	case errors.Is(err, loadrun.ErrNotFound):
		code = http.StatusNotFound
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		code = http.StatusGatewayTimeout
	}
	writeError(w, code, err.Error(), nil)
}
