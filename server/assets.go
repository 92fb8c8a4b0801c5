//go:build !js

package server

import (
	"bytes"
	"embed"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strconv"
	"strings"
	"time"
)

//go:embed assets
var assetFS embed.FS

// handleAsset serves the share pages' own script and style (/assets/…).
func (s *Server) handleAsset(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("file")
	b, err := assetFS.ReadFile("assets/" + name)
	if err != nil || strings.Contains(name, "/") {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", mime.TypeByExtension(path.Ext(name)))
	w.Header().Set("Cache-Control", "public, max-age=3600")
	http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(b))
}

// acceptsEncoding reports whether the request's Accept-Encoding allows enc
// (listed, or "*", with a q-value other than 0).
func acceptsEncoding(r *http.Request, enc string) bool {
	for _, part := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		name = strings.TrimSpace(name)
		if !strings.EqualFold(name, enc) && name != "*" {
			continue
		}
		if qs, ok := strings.CutPrefix(strings.TrimSpace(params), "q="); ok {
			if q, err := strconv.ParseFloat(qs, 64); err == nil && q == 0 {
				return false
			}
		}
		return true
	}
	return false
}

// handleWeb serves the web/ assets. app.wasm is served pre-compressed
// (app.wasm.br, then app.wasm.gz) with Content-Encoding when the client
// accepts it, and as a clear 404 when the wasm build is missing.
func (s *Server) handleWeb(w http.ResponseWriter, r *http.Request) {
	p := r.PathValue("path")
	if s.cfg.Web == nil || !fs.ValidPath(p) {
		http.NotFound(w, r)
		return
	}
	if p == "app.wasm" {
		s.serveWasm(w, r)
		return
	}
	b, err := fs.ReadFile(s.cfg.Web, p)
	if err != nil {
		http.NotFound(w, r)
		return
	}
	if ct := mime.TypeByExtension(path.Ext(p)); ct != "" {
		w.Header().Set("Content-Type", ct)
	}
	http.ServeContent(w, r, p, time.Time{}, bytes.NewReader(b))
}

func (s *Server) serveWasm(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Vary", "Accept-Encoding")
	h.Set("Cache-Control", "no-cache")
	for _, c := range []struct{ enc, file string }{{"br", "app.wasm.br"}, {"gzip", "app.wasm.gz"}} {
		if !acceptsEncoding(r, c.enc) {
			continue
		}
		if b, err := fs.ReadFile(s.cfg.Web, c.file); err == nil {
			h.Set("Content-Type", "application/wasm")
			h.Set("Content-Encoding", c.enc)
			http.ServeContent(w, r, "app.wasm", time.Time{}, bytes.NewReader(b))
			return
		}
	}
	b, err := fs.ReadFile(s.cfg.Web, "app.wasm")
	if err != nil {
		writeError(w, http.StatusNotFound, "the wasm build is missing: run `make wasm` (web/app.wasm)", nil)
		return
	}
	h.Set("Content-Type", "application/wasm")
	http.ServeContent(w, r, "app.wasm", time.Time{}, bytes.NewReader(b))
}

// appHandler serves the go-app page with the upload capability injected,
// or a plain page saying the wasm build is missing.
func (s *Server) appHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.cfg.App == nil {
			if r.URL.Path != "/" && path.Ext(r.URL.Path) != "" {
				http.NotFound(w, r)
				return
			}
			s.servePlaceholder(w, r)
			return
		}
		s.cfg.App.ServeHTTP(&appPageWriter{ResponseWriter: w}, r)
	})
}

func (s *Server) servePlaceholder(w http.ResponseWriter, r *http.Request) {
	setPageHeaders(w)
	msg := "The wasm build is missing: run <code>make wasm</code> (it writes web/app.wasm), then reload."
	if s.cfg.App == nil {
		msg = "This server runs without the dashboard page. " + msg
	}
	w.WriteHeader(http.StatusOK)
	w.Write([]byte(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>duplexscope</title>` +
		`<link rel="stylesheet" href="/assets/share.css"></head><body><main>` +
		`<h1>duplexscope</h1><p class="verdict amber" id="wasm-missing">` + msg + `</p>` +
		`<p>The archive still works: <a href="/history">history</a>. The embedded simulator listens at <code>/v1/realtime?duplex=1</code>.</p>` +
		`</main></body></html>`))
}

// appPageWriter gives the go-app page's HTML answers their CSP (the page's
// own: wasm, workers, the websockets the user dials) as the header is
// written; other answers pass untouched.
type appPageWriter struct {
	http.ResponseWriter
	decided bool
}

func (w *appPageWriter) decide(first []byte) {
	if w.decided {
		return
	}
	w.decided = true
	h := w.Header()
	if h.Get("Content-Type") == "" && first != nil {
		h.Set("Content-Type", http.DetectContentType(first))
	}
	if strings.HasPrefix(h.Get("Content-Type"), "text/html") {
		setAppPageHeaders(h)
	}
}

func (w *appPageWriter) WriteHeader(code int) {
	w.decide(nil)
	w.ResponseWriter.WriteHeader(code)
}

func (w *appPageWriter) Write(b []byte) (int, error) {
	w.decide(b)
	return w.ResponseWriter.Write(b)
}

// Unwrap exposes the underlying writer.
func (w *appPageWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
