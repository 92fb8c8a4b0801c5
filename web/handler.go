package web

import (
	"bytes"
	"io"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"
	"time"
)

// Encodings in the order Handler prefers them, with the file suffix of each.
var encodings = []struct{ name, suffix string }{
	{"br", ".br"},
	{"gzip", ".gz"},
}

// Handler serves fsys (FS when nil) at its root: a request for /x serves x.
// For a file that has pre-compressed siblings (x.br, x.gz) it serves the best
// one the client accepts, with Content-Encoding and Vary set, and the
// original Content-Type. Mount it under a prefix with http.StripPrefix.
func Handler(fsys fs.FS) http.Handler {
	if fsys == nil {
		fsys = FS
	}
	return &handler{fsys: fsys}
}

type handler struct{ fsys fs.FS }

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	name := strings.TrimPrefix(path.Clean("/"+r.URL.Path), "/")
	if name == "" || !fs.ValidPath(name) {
		http.NotFound(w, r)
		return
	}
	ctype := ContentType(name)
	accept := r.Header.Get("Accept-Encoding")
	for _, e := range encodings {
		if !acceptsEncoding(accept, e.name) {
			continue
		}
		if b, err := fs.ReadFile(h.fsys, name+e.suffix); err == nil {
			w.Header().Set("Content-Encoding", e.name)
			w.Header().Set("Vary", "Accept-Encoding")
			serve(w, r, name, ctype, b)
			return
		}
	}
	b, err := fs.ReadFile(h.fsys, name)
	if err != nil {
		http.NotFound(w, r)
		return
	}
	if hasCompressed(h.fsys, name) {
		w.Header().Set("Vary", "Accept-Encoding")
	}
	serve(w, r, name, ctype, b)
}

func serve(w http.ResponseWriter, r *http.Request, name, ctype string, b []byte) {
	w.Header().Set("Content-Type", ctype)
	w.Header().Set("X-Content-Type-Options", "nosniff")
	http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(b))
}

func hasCompressed(fsys fs.FS, name string) bool {
	for _, e := range encodings {
		if _, err := fs.Stat(fsys, name+e.suffix); err == nil {
			return true
		}
	}
	return false
}

// ContentType returns the media type served for a web file name.
func ContentType(name string) string {
	switch path.Ext(name) {
	case ".wasm":
		return "application/wasm"
	case ".js":
		return "text/javascript; charset=utf-8"
	case ".css":
		return "text/css; charset=utf-8"
	case ".svg":
		return "image/svg+xml"
	case ".png":
		return "image/png"
	case ".wav":
		return "audio/wav"
	case "":
		return "text/plain; charset=utf-8"
	}
	if t := mime.TypeByExtension(path.Ext(name)); t != "" {
		return t
	}
	return "application/octet-stream"
}

// acceptsEncoding reports whether an Accept-Encoding header value allows enc
// (a listed coding without q=0).
func acceptsEncoding(header, enc string) bool {
	for _, part := range strings.Split(header, ",") {
		coding, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if !strings.EqualFold(strings.TrimSpace(coding), enc) {
			continue
		}
		q := strings.ReplaceAll(strings.TrimSpace(params), " ", "")
		return !(q == "q=0" || q == "q=0.0" || q == "q=0.00" || q == "q=0.000")
	}
	return false
}

// WasmSize returns the uncompressed size of app.wasm in fsys, or 0 when the
// wasm build is missing.
func WasmSize(fsys fs.FS) int64 {
	f, err := fsys.Open("app.wasm")
	if err != nil {
		return 0
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil {
		return st.Size()
	}
	n, _ := io.Copy(io.Discard, f)
	return n
}

// Resources serves fsys under /web (as Handler does) and resolves go-app
// resource paths on the same origin, unchanged: it is a go-app
// ResourceResolver, so the page and the bench's hello world load their
// assets the same way.
func Resources(fsys fs.FS) ResourceHandler {
	return ResourceHandler{http.StripPrefix("/web", Handler(fsys))}
}

// ResourceHandler is an http.Handler with go-app's Resolve.
type ResourceHandler struct{ http.Handler }

// Resolve keeps absolute http(s) URLs and makes every other location a
// root-relative path.
func (ResourceHandler) Resolve(location string) string {
	if location == "" || location == "/" {
		return "/"
	}
	if strings.HasPrefix(location, "http://") || strings.HasPrefix(location, "https://") {
		return location
	}
	return "/" + strings.TrimLeft(location, "/")
}
