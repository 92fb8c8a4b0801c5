//go:build !js

package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/duplexscope/duplexscope/server/loadrun"
)

// Bounds of the load-run endpoints.
const (
	loadReadyDefaultWait = 2 * time.Minute
	loadReadyMaxWait     = 10 * time.Minute
	maxLoadRunBody       = 4 << 20
)

// loadWrite guards the load-run writes. A request carrying the run's
// capability (loadrun.CapHeader) joins that run with the rate limit only;
// anything else — creating a run — goes through s.write (with a write
// token: the token or sign-in), and the hub then refuses an existing run
// without its capability (403).
func (s *Server) loadWrite(h http.HandlerFunc) http.HandlerFunc {
	guarded := s.write(h)
	return func(w http.ResponseWriter, r *http.Request) {
		if s.cfg.WriteToken != "" && s.loads.CapOK(r.PathValue("run"), r.Header.Get(loadrun.CapHeader)) {
			if !s.limiter.allow(clientKey(r)) {
				w.Header().Set("Retry-After", "1")
				writeError(w, http.StatusTooManyRequests, "rate limit: too many load-run requests from this client", nil)
				return
			}
			h(w, r)
			return
		}
		guarded(w, r)
	}
}

// handleLoadCreate creates a run: 201 {"run_id","shards","run_cap",
// "created":true,"expires_at"}; the holder of the capability gets 200
// with created false; anyone else 403.
func (s *Server) handleLoadCreate(w http.ResponseWriter, r *http.Request) {
	var req loadrun.CreateRequest
	if !decodeLoadBody(w, r, &req) {
		return
	}
	req.RunCap = r.Header.Get(loadrun.CapHeader)
	res, err := s.loads.Create(r.PathValue("run"), req)
	if err != nil {
		writeLoadError(w, err)
		return
	}
	code := http.StatusOK
	if res.Created {
		code = http.StatusCreated
	}
	writeJSON(w, code, res)
}

// handleLoadReady is the level barrier: it answers once every shard of the
// run is ready for the level (or 504 after ?wait_s=, default 120 s).
func (s *Server) handleLoadReady(w http.ResponseWriter, r *http.Request) {
	var req loadrun.ReadyRequest
	if !decodeLoadBody(w, r, &req) {
		return
	}
	req.RunCap = r.Header.Get(loadrun.CapHeader)
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
	req.RunCap = r.Header.Get(loadrun.CapHeader)
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
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			writeError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("load-run body over %d MiB: report a level's sessions in smaller posts", maxLoadRunBody>>20), nil)
		} else {
			writeError(w, http.StatusBadRequest, "reading the load-run body failed: "+err.Error(), nil)
		}
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
	case errors.Is(err, loadrun.ErrForbidden):
		code = http.StatusForbidden
	case errors.Is(err, loadrun.ErrTooLarge):
		code = http.StatusRequestEntityTooLarge
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		code = http.StatusGatewayTimeout
	}
	writeError(w, code, err.Error(), nil)
}
