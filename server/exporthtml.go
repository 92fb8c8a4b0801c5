//go:build !js

package server

import (
	"bytes"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"regexp"
	"strings"

	"github.com/duplexscope/duplexscope/report"
	"github.com/duplexscope/duplexscope/server/archive"
)

// The single-file HTML export of a share page
// (GET /api/reports/{id}/export?format=html): the same sections, with the
// vendored echarts runtime, share.js, share.css, the chart options and the
// session audio (mixed lane, data: URI) inline, so it opens offline from a
// file and asks nothing of the network.

// DefaultMaxExport bounds one HTML export (Config.MaxExport); the echarts
// runtime alone is about 1.1 MB and 10 minutes of mixed session audio
// about 38 MB in base64.
const DefaultMaxExport = 32 << 20

// exportCSP is sent with the export (a sandbox: opened from the server it
// runs in an opaque origin) and written into it as a meta tag, which holds
// when it is opened from a file: inline script and style, data: images and
// audio, nothing else.
const (
	exportCSP     = "sandbox allow-scripts; default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; media-src data:; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
	exportMetaCSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; media-src data:; base-uri 'none'; form-action 'none'"
)

var errExportTooLarge = errors.New("export too large")

// exportFields are the export template's own data.
type exportFields struct {
	ExportCSP     string
	ExportID      string
	ExportCSS     template.CSS
	ExportJS      template.JS
	ExportEcharts template.JS // a marker replaced by the runtime after the link scrub
}

// echartsMarker stands where the runtime goes: it is spliced in after
// scrubLinks, whose attribute pattern must not run over the runtime.
const echartsMarker = "/*duplexscope:echarts-runtime*/"

func init() {
	pageTemplates["export"] = template.Must(template.New("export.html").ParseFS(templateFS, "templates/layout.html", "templates/labels.html", "templates/listen.html", "templates/export.html"))
}

// linkAttr matches an attribute that can make the browser fetch or
// navigate, its value quoted either way or bare.
var linkAttr = regexp.MustCompile(`(?i)\s(?:href|src|srcset|action|formaction|poster|cite|background|ping|xlink:href)\s*=\s*("[^"]*"|'[^']*'|[^\s"'=<>` + "`" + `]+)`)

// scriptElem matches a script element: its body is code or JSON, not
// markup, and is left alone.
var scriptElem = regexp.MustCompile(`(?is)<script\b[^>]*>.*?</script\s*>`)

// scrubLinks removes every link attribute whose target is not inside the
// file (data: or #fragment) from the markup outside script elements: a
// link the share page has (history, downloads, compare) would leave an
// offline file or call home.
func scrubLinks(b []byte) []byte {
	scrub := func(m []byte) []byte {
		return linkAttr.ReplaceAllFunc(m, func(a []byte) []byte {
			v := strings.ToLower(strings.TrimSpace(strings.Trim(string(linkAttr.FindSubmatch(a)[1]), `"'`)))
			if strings.HasPrefix(v, "#") || strings.HasPrefix(v, "data:") {
				return a
			}
			return nil
		})
	}
	var out []byte
	last := 0
	for _, loc := range scriptElem.FindAllIndex(b, -1) {
		out = append(out, scrub(b[last:loc[0]])...)
		out = append(out, b[loc[0]:loc[1]]...)
		last = loc[1]
	}
	return append(out, scrub(b[last:])...)
}

// echartsRuntime reads the vendored runtime served at Config.EchartsPath.
func (s *Server) echartsRuntime() []byte {
	p, ok := strings.CutPrefix(s.cfg.EchartsPath, "/web/")
	if !ok || s.cfg.Web == nil || !fs.ValidPath(p) {
		return nil
	}
	b, err := fs.ReadFile(s.cfg.Web, p)
	if err != nil {
		return nil
	}
	// A "</script" inside would end the inline element early.
	return bytes.ReplaceAll(b, []byte("</script"), []byte(`<\/script`))
}

// exportHTML answers format=html.
func (s *Server) exportHTML(w http.ResponseWriter, r *http.Request, rec archive.Record, rep *report.Report) {
	tooLarge := func() {
		writeError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf(
			"the HTML export of this report would exceed %d bytes (the server's export limit): download report.json and the audio separately, or raise the limit", s.cfg.MaxExport), nil)
	}
	runtime := s.echartsRuntime()
	css, _ := fs.ReadFile(assetFS, "assets/share.css")
	js, _ := fs.ReadFile(assetFS, "assets/share.js")
	ljs, _ := fs.ReadFile(assetFS, "assets/listen.js")
	js = append(append(js, '\n'), ljs...)
	fixed := int64(len(runtime) + len(css) + len(js) + 64<<10) // page text allowance
	if fixed > s.cfg.MaxExport {
		tooLarge()
		return
	}
	ctx, cancel := ctxTimeout(r)
	defer cancel()
	// the share page's title, badges, tags and notes (no "compare with…":
	// the file is offline)
	p := reportPage(rep, runTitle(rep, "Duplex test of "))
	p.Badges, p.Labels = s.runBadges(r, rep.Run.Client, rep.Run.TargetURL, rep.Complete), labelsOf("", rep)
	if err := s.addListen(ctx, p, rep, rec.ID, true, s.cfg.MaxExport-fixed); errors.Is(err, errExportTooLarge) {
		tooLarge()
		return
	}
	p.Version, p.EchartsPath = s.cfg.Version, "echarts (inline)"
	p.exportFields = exportFields{ExportCSP: exportMetaCSP, ExportID: rec.ID,
		ExportCSS: template.CSS(css), ExportJS: template.JS(js), ExportEcharts: template.JS(echartsMarker)}
	if runtime == nil {
		p.ExportEcharts = template.JS("/* the echarts runtime is not served here: charts are not drawn */")
	}
	var buf bytes.Buffer
	if err := pageTemplates["export"].Execute(&buf, p); err != nil {
		s.log.Error("export html", "id", rec.ID, "err", err)
		writeError(w, http.StatusInternalServerError, "rendering the export failed", nil)
		return
	}
	out := scrubLinks(buf.Bytes())
	if runtime != nil {
		out = bytes.Replace(out, []byte(echartsMarker), runtime, 1)
	}
	if int64(len(out)) > s.cfg.MaxExport {
		tooLarge()
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Disposition", `attachment; filename="duplexscope-`+rec.ID+`.html"`)
	h.Set("Content-Security-Policy", exportCSP)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-cache")
	w.Write(out)
}
