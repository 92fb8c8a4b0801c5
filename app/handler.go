package app

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/duplexscope/duplexscope/web"
)

// HandlerOptions configure Handler. The zero value (or nil) serves web.FS.
type HandlerOptions struct {
	// Assets holds the static files and the built app.wasm(.gz/.br), paths
	// relative to web/ ("app.css", "app.wasm"). Nil means web.FS.
	Assets fs.FS
	// Version identifies the build for go-app's cache; "" derives it from
	// the wasm file.
	Version string
}

// Handler returns the http.Handler of the wasm page, to be mounted at "/"
// after the API routes. It serves the page routes ("/"), go-app's
// bootstrap files (/app.js, /wasm_exec.js, /app-worker.js,
// /manifest.webmanifest, /app.css) and /web/… from opts.Assets, with
// /web/app.wasm pre-compressed by Accept-Encoding. When the wasm build is
// missing every page route explains how to build it.
func Handler(opts *HandlerOptions) http.Handler {
	var o HandlerOptions
	if opts != nil {
		o = *opts
	}
	if o.Assets == nil {
		o.Assets = web.FS
	}
	Routes()
	raw, _ := fs.ReadFile(o.Assets, "app.wasm")
	if len(raw) == 0 {
		return missingWasm{assets: http.StripPrefix("/web", web.Handler(o.Assets))}
	}
	if o.Version == "" {
		sum := sha256.Sum256(raw)
		o.Version = hex.EncodeToString(sum[:8])
	}
	h := &app.Handler{
		Name:            "duplexscope",
		ShortName:       "duplexscope",
		Title:           "duplexscope — full-duplex speech benchmark",
		Description:     "Live latency, real-time factor and turn-taking of full-duplex speech-to-speech servers, measured in the browser.",
		Author:          "duplexscope",
		BackgroundColor: "#0f1c27",
		ThemeColor:      "#0f1c27",
		LoadingLabel:    "Loading duplexscope…", // no {progress}: see web.EarlyAppJS
		Icon: app.Icon{
			Default:  "/web/icons/icon-192.png",
			Large:    "/web/icons/icon-512.png",
			Maskable: "/web/icons/icon-192.png",
			SVG:      "/web/icons/icon.svg",
		},
		Styles: []string{"/web/app.css"},
		// echarts is deferred (after go-app's deferred app.js), so parsing
		// and the wasm's streaming compile never wait for 700 kB of chart
		// code; a chart drawn before it ran retries (echart.draw).
		Scripts: []string{"/web/echarts.min.js defer"},
		// The wasm's download and compile start from the head (boot.js);
		// serveAppJS instantiates that compile.
		RawHeaders:            web.BootHeaders(),
		Resources:             web.Resources(o.Assets),
		Version:               o.Version,
		WasmContentLength:     strconv.Itoa(len(raw)),
		ServiceWorkerTemplate: serviceWorkerJS,
	}
	return prerenderHandler{next: h}
}

// serviceWorkerJS replaces go-app's caching worker. duplexscope keeps no
// offline cache: a cached "/" would outlive a new build of the page, and
// go-app's install step would download the 15 MB app.wasm a second time
// while the page is starting its session.
const serviceWorkerJS = `// duplexscope app worker {{.Version}}: no offline cache, network only.
self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    for (const key of await caches.keys()) await caches.delete(key);
    await self.clients.claim();
  })());
});
`

// prerenderHandler serves the page routes: go-app prerenders them from a
// request stripped to its path.
//
// Why the strip: go-app v10.1.11 encodes attribute values with
// strconv.Quote, not HTML escaping, so a URL parameter prerendered into
// <input value=…> breaks out of the attribute (reflected XSS). The page's
// settings are read from the URL in the browser only (OnNav runs again
// there, from window.location, and go-app replaces the prerendered body),
// so the prerendered HTML never carries anything from the query, the
// fragment or a Host spelled in an absolute request URI.
type prerenderHandler struct{ next http.Handler }

func (c prerenderHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/app.js" {
		c.serveAppJS(w, r)
		return
	}
	if strings.HasPrefix(r.URL.Path, "/web/") || strings.Contains(strings.TrimPrefix(r.URL.Path, "/"), ".") {
		c.next.ServeHTTP(w, r)
		return
	}
	rec := &bufferedResponse{header: http.Header{}}
	c.next.ServeHTTP(rec, prerenderRequest(r))
	body := rec.body.Bytes()
	if strings.HasPrefix(rec.header.Get("Content-Type"), "text/html") {
		body = dropFalseBooleans(body)
		// Never cached: a new build must reach the next page load.
		rec.header.Set("Cache-Control", "no-store")
		rec.header.Del("ETag")
	}
	rec.send(w, body)
}

// serveAppJS serves go-app's app.js instantiating the compile web/boot.js
// started (web.EarlyAppJS says why).
func (c prerenderHandler) serveAppJS(w http.ResponseWriter, r *http.Request) {
	rec := &bufferedResponse{header: http.Header{}}
	c.next.ServeHTTP(rec, r)
	rec.send(w, web.EarlyAppJS(rec.body.Bytes()))
}

// dropFalseBooleans removes the boolean attributes go-app prerendered as
// ="false".
//
// Why: go-app writes Selected(false), Disabled(false), … as the string
// "false", and in HTML any value of a boolean attribute means true: before
// the wasm runs, every <option> of a select is selected (the select shows its
// last one) and every Disabled(false) control is disabled. In the browser
// go-app sets these as properties, so only the prerendered HTML needs this.
// The names are those go-app's setJSAttribute treats as booleans. Attribute
// values are strconv.Quote-d and text is escaped, so `="false"` with a bare
// quote after an attribute name occurs only as a real attribute. (No regexp:
// a package-level one would be compiled into app.wasm and run at its start.)
func dropFalseBooleans(page []byte) []byte {
	for _, name := range strings.Fields("async autofocus autoplay checked default defer disabled hidden ismap loop multiple muted open readonly required reversed selected") {
		page = bytes.ReplaceAll(page, []byte(" "+name+`="false"`), nil)
	}
	return page
}

// prerenderRequest is r as go-app may see it: the path only.
func prerenderRequest(r *http.Request) *http.Request {
	p := r.Clone(r.Context())
	p.URL = &url.URL{Path: r.URL.Path}
	p.RequestURI = (&url.URL{Path: r.URL.Path}).RequestURI()
	p.Host = ""
	return p
}

type bufferedResponse struct {
	header http.Header
	body   bytes.Buffer
	code   int
}

func (b *bufferedResponse) Header() http.Header { return b.header }
func (b *bufferedResponse) Write(p []byte) (int, error) {
	if b.code == 0 {
		b.code = http.StatusOK
	}
	return b.body.Write(p)
}

// send writes the recorded response to w with body in place of the
// recorded one.
func (b *bufferedResponse) send(w http.ResponseWriter, body []byte) {
	for k, v := range b.header {
		w.Header()[k] = v
	}
	if b.code == 0 {
		b.code = http.StatusOK
	}
	if b.code != http.StatusNotModified { // a 304's length is the cached body's
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	}
	w.WriteHeader(b.code)
	w.Write(body)
}

func (b *bufferedResponse) WriteHeader(code int) {
	if b.code == 0 {
		b.code = code
	}
}

// missingWasm answers page routes of a server built without the wasm.
type missingWasm struct{ assets http.Handler }

const missingWasmHTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>duplexscope — wasm build missing</title>
<link rel="icon" href="/web/icons/icon.svg"><link rel="stylesheet" href="/web/app.css"></head>
<body><div class="ds-missing"><h1>The wasm build is missing</h1>
<p>This duplexscope server was built without <code>web/app.wasm</code>, so the live page cannot load.
Build it and restart the server:</p><pre>make wasm &amp;&amp; make build</pre>
<p>or simply <code>make run</code>. The archive API, share pages (<code>/r/{id}</code>) and the simulator work without it.</p>
</div></body></html>
`

func (m missingWasm) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if strings.HasPrefix(r.URL.Path, "/web/") {
		m.assets.ServeHTTP(w, r)
		return
	}
	if r.URL.Path != "/" {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	w.Write([]byte(missingWasmHTML))
}
