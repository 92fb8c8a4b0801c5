//go:build !js

package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/duplexscope/duplexscope/report"
	"github.com/duplexscope/duplexscope/server/archive"
	"github.com/duplexscope/duplexscope/server/loadrun"
	"github.com/prometheus/client_golang/prometheus"
)

// Config configures a Server. Store is required; everything else has a default.
type Config struct {
	Store archive.Store
	// App serves the go-app page ("/" and the page routes); nil serves a
	// plain placeholder page. Pages get no write capability: people sign
	// in at /signin when a write token is set.
	App http.Handler
	// Web holds the static assets served under /web/ (app.wasm, app.wasm.br,
	// app.wasm.gz, echarts.min.js, …); nil serves none.
	Web fs.FS
	// Sim is the embedded simulator, mounted at /v1/realtime and /sim/.
	Sim http.Handler
	// Datasets are the clip sets the page may stream (name → FS holding
	// manifest.jsonl and 16 kHz WAVs), served under /api/datasets/.
	Datasets map[string]fs.FS
	// ProbeClip returns the standard probe clip of a kind as 16 kHz mono
	// PCM16 and its name (clips.StandardClip); with ProbeKinds (in menu
	// order, probe.Kinds) it is served under /api/probes. Nil serves
	// none.
	ProbeClip  func(kind string) (pcm []byte, name string, err error)
	ProbeKinds []string
	// WriteToken, when set, guards every write: API clients send
	// Authorization: Bearer TOKEN; a page gets write rights once the person
	// signs in at /signin (a signed HttpOnly cookie), and uploads through
	// per-report capabilities (POST /api/capabilities). Deletes need the
	// token itself; listing and history need the token or a sign-in.
	WriteToken string
	// AttachmentQuota bounds attachments per report and for the archive
	// (zero fields: DefaultAttachmentQuota's; negative: no bound).
	AttachmentQuota archive.Quota
	// ProxyAllow lists the websocket proxy's allowed targets: "host:port" or
	// "host". Empty allows loopback hosts only (the embedded simulator).
	ProxyAllow []string
	// MaxProxySessions caps concurrent /proxy sessions (0:
	// DefaultMaxProxySessions).
	MaxProxySessions int
	// PublicHosts are the host names (NAME or NAME:PORT) this server
	// answers to besides loopback, localhost and the address a connection
	// arrived on (--public-host); any other Host gets 421 (see policy).
	PublicHosts []string
	// AllowOrigins are the foreign page origins ("https://ci.example")
	// allowed to write and use the proxy (--allow-origin).
	AllowOrigins []string
	Logger       *slog.Logger
	// Registry receives the Prometheus metrics (nil: a new registry).
	Registry *prometheus.Registry
	Now      func() time.Time
	Limits   report.Limits // upload limits (zero: report.DefaultLimits)
	// MaxAttachment bounds one attachment upload (0: 64 MiB).
	MaxAttachment int64
	// MaxExport bounds the single-file HTML export
	// (GET /api/reports/{id}/export?format=html); larger is 413 (0: 32 MiB).
	MaxExport int64
	// UploadRate and UploadBurst rate-limit writes per client address
	// (requests per second; 0: 20/s, burst 60; negative rate: no limit).
	UploadRate  float64
	UploadBurst int
	Version     string
	// EchartsPath is where the vendored echarts runtime is served
	// (default /web/echarts.min.js).
	EchartsPath string
	// Seed seeds the compare page's bootstrap (deterministic pages).
	Seed uint64
	// CachedReports is how many decoded reports the pages keep (0: 64;
	// negative: none).
	CachedReports int
	// NewID makes report ids (nil: archive.NewID); tests inject fixed ids.
	NewID func() string
}

// Server is the duplexscope HTTP server: page, assets, archive API, share
// pages, compare, history, websocket proxy and the embedded simulator.
type Server struct {
	cfg     Config
	mux     *http.ServeMux
	log     *slog.Logger
	metrics *serverMetrics
	limiter *limiter
	deletes *limiter // deletes without a write token
	signins *limiter // sign-in attempts
	capKey  []byte
	cache   *reportCache
	listen  listenCache // rebuilt session audio (listen.go)

	loads *loadrun.Hub
	// compareSem bounds the compare pages computed at once (compare.go).
	compareSem chan struct{}
	runs       *runCache // merged runs (runcache.go)
	// closing is cancelled by Close (releases load-run barrier waiters).
	closing    context.Context
	endClosing context.CancelFunc

	mu      sync.Mutex
	proxies map[*proxyConn]struct{}
	closed  bool
	wg      sync.WaitGroup
}

// New returns a Server for cfg.
func New(cfg Config) (*Server, error) {
	if cfg.Store == nil {
		return nil, errors.New("server: Config.Store is required")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Registry == nil {
		cfg.Registry = prometheus.NewRegistry()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Limits == (report.Limits{}) {
		cfg.Limits = report.DefaultLimits
	}
	if cfg.MaxExport == 0 {
		cfg.MaxExport = DefaultMaxExport
	}
	if cfg.MaxAttachment == 0 {
		cfg.MaxAttachment = archive.DefaultMaxAttachment
	}
	if cfg.UploadRate == 0 {
		cfg.UploadRate, cfg.UploadBurst = 20, 60
	}
	if cfg.UploadBurst <= 0 {
		cfg.UploadBurst = max(1, int(cfg.UploadRate*3))
	}
	if cfg.EchartsPath == "" {
		cfg.EchartsPath = "/web/echarts.min.js"
	}
	if cfg.CachedReports == 0 {
		cfg.CachedReports = 64
	}
	if cfg.MaxProxySessions <= 0 {
		cfg.MaxProxySessions = DefaultMaxProxySessions
	}
	if cfg.NewID == nil {
		cfg.NewID = archive.NewID
	}
	cfg.AttachmentQuota = quotaWithDefaults(cfg.AttachmentQuota)
	if cfg.Version == "" {
		cfg.Version = "dev"
	}
	m, err := newServerMetrics(cfg.Registry)
	if err != nil {
		return nil, err
	}
	s := &Server{
		cfg:     cfg,
		mux:     http.NewServeMux(),
		log:     cfg.Logger,
		metrics: m,
		limiter: newLimiter(cfg.UploadRate, cfg.UploadBurst, cfg.Now),
		deletes: newLimiter(deleteRate, deleteBurst, cfg.Now),
		signins: newLimiter(signinRate, signinBurst, cfg.Now),
		capKey:  signingKey(cfg.WriteToken),
		proxies: map[*proxyConn]struct{}{},
		cache:   newReportCache(cfg.CachedReports),
		loads:   loadrun.NewHub(cfg.Now),
	}
	s.compareSem = make(chan struct{}, CompareConcurrency)
	s.runs = &runCache{}
	s.closing, s.endClosing = context.WithCancel(context.Background())
	s.routes()
	return s, nil
}

func (s *Server) routes() {
	h := s.mux.HandleFunc
	h("POST /api/reports", s.reportWrite(s.handleUpload))
	h("POST /api/capabilities", s.write(s.handleMint))
	h("GET /api/reports", s.handleList)
	h("GET /api/reports/{id}", s.handleGet)
	h("DELETE /api/reports/{id}", s.deleteAuth(s.handleDelete))
	h("PATCH /api/reports/{id}", s.reportWrite(s.handlePatchLabels))
	h("POST /api/import", s.write(s.handleImport))
	h("GET /api/reports/{id}/export", s.handleExport)
	h("PUT /api/reports/{id}/attachments/{name}", s.reportWrite(s.handlePutAttachment))
	h("GET /api/reports/{id}/attachments/{name}", s.handleGetAttachment)
	h("GET /api/reports/{id}/audio/{file}", s.handleListenAudio)
	h("GET /api/runs/{run}", s.handleGetRun)
	h("POST /api/loadruns/{run}", s.loadWrite(s.handleLoadCreate))
	h("POST /api/loadruns/{run}/ready", s.loadWrite(s.handleLoadReady))
	h("POST /api/loadruns/{run}/sessions", s.loadWrite(s.handleLoadSessions))
	h("GET /api/loadruns/{run}", s.handleLoadStatus)
	h("GET /r/{id}", s.handleSharePage)
	h("GET /runs/{run}", s.handleRunPage)
	h("GET /compare", s.handleCompare)
	h("GET /history", s.handleHistory)
	h("GET /signin", s.handleSignInPage)
	h("POST /signin", s.handleSignIn)
	h("POST /signout", s.handleSignOut)
	h("GET /proxy", s.handleProxy)
	h("GET /api/datasets/{name}", s.handleDataset)
	h("GET /api/datasets/{name}/{file}", s.handleDatasetClip)
	h("GET /api/probes", s.handleProbes)
	h("GET /api/probes/{file}", s.handleProbeClip)
	h("GET /healthz", s.handleHealth)
	s.mux.Handle("GET /metrics", s.metricsHandler())
	h("GET /assets/{file}", s.handleAsset)
	h("GET /web/{path...}", s.handleWeb)
	if s.cfg.Sim != nil {
		sim := s.countSessions(s.cfg.Sim)
		s.mux.Handle("/v1/realtime", sim)
		s.mux.Handle("/sim/", sim)
	}
	s.mux.Handle("/", s.appHandler())
}

// ServeHTTP implements http.Handler with logging, metrics and panic recovery.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := s.cfg.Now()
	sw := &statusWriter{ResponseWriter: w, code: http.StatusOK}
	s.metrics.inflight.Inc()
	defer func() {
		s.metrics.inflight.Dec()
		if p := recover(); p != nil {
			if p == http.ErrAbortHandler {
				panic(p)
			}
			s.log.Error("panic", "method", r.Method, "path", r.URL.Path, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			if !sw.wrote {
				writeError(sw, http.StatusInternalServerError, "internal error", nil)
			}
		}
		route := r.Pattern
		if route == "" {
			route = "unmatched"
		}
		d := s.cfg.Now().Sub(start)
		s.metrics.requests.WithLabelValues(route, fmt.Sprint(sw.code)).Inc()
		s.metrics.latency.WithLabelValues(route).Observe(d.Seconds())
		if sw.code >= 500 {
			s.metrics.errors.WithLabelValues(route).Inc()
		}
		level := slog.LevelDebug
		if sw.code >= 500 {
			level = slog.LevelError
		} else if strings.HasPrefix(r.URL.Path, "/api/") {
			level = slog.LevelInfo
		}
		s.log.Log(r.Context(), level, "http", "method", r.Method, "path", r.URL.Path, "route", route, "status", sw.code, "bytes", sw.n, "dur_ms", float64(d.Microseconds())/1000, "remote", r.RemoteAddr)
	}()
	sw.Header().Set("X-Content-Type-Options", "nosniff")
	if !s.policy(sw, r) {
		return
	}
	s.mux.ServeHTTP(sw, r)
}

// Close ends open websocket proxy sessions and waits for them; call it
// after http.Server.Shutdown (which waits for in-flight uploads).
func (s *Server) Close() error {
	s.endClosing()
	s.mu.Lock()
	s.closed = true
	for p := range s.proxies {
		p.cancel()
	}
	s.mu.Unlock()
	s.wg.Wait()
	return nil
}

type statusWriter struct {
	http.ResponseWriter
	code  int
	n     int64
	wrote bool
}

func (w *statusWriter) WriteHeader(code int) {
	if !w.wrote {
		w.code, w.wrote = code, true
		ensurePagePolicy(w.Header())
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if !w.wrote {
		// Decide the type now (as net/http would) so an HTML answer
		// cannot leave without a CSP.
		if _, set := w.Header()["Content-Type"]; !set { // nil: sniffing suppressed
			w.Header().Set("Content-Type", http.DetectContentType(b))
		}
		w.WriteHeader(http.StatusOK)
	}
	w.wrote = true
	n, err := w.ResponseWriter.Write(b)
	w.n += int64(n)
	return n, err
}

// Unwrap lets http.ResponseController (and websocket hijacking) reach the
// underlying writer.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// errorBody is every API error: a message and, for validation, field errors.
type errorBody struct {
	Error  string              `json:"error"`
	Errors []report.FieldError `json:"errors,omitempty"`
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(true)
	_ = enc.Encode(v)
}

func writeError(w http.ResponseWriter, code int, msg string, fields []report.FieldError) {
	writeJSON(w, code, errorBody{Error: msg, Errors: fields})
}

// storeFailed answers a failed archive call of the API and reports whether
// there was one (the handler returns): 404 saying missing, or 500 saying
// failed, the cause logged under logMsg and logAttrs when logMsg is set.
func (s *Server) storeFailed(w http.ResponseWriter, err error, missing, failed, logMsg string, logAttrs ...any) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, archive.ErrNotFound) {
		writeError(w, http.StatusNotFound, missing, nil)
		return true
	}
	if logMsg != "" {
		s.log.Error(logMsg, append(logAttrs, "err", err)...)
	}
	writeError(w, http.StatusInternalServerError, failed, nil)
	return true
}

func (s *Server) now() time.Time { return s.cfg.Now() }

// ctxTimeout bounds store calls of one request.
func ctxTimeout(r *http.Request) (context.Context, context.CancelFunc) {
	return context.WithTimeout(r.Context(), 30*time.Second)
}
