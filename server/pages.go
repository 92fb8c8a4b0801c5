//go:build !js

package server

import (
	"bytes"
	"context"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/duplexscope/duplexscope/report"
	"github.com/duplexscope/duplexscope/server/archive"
)

//go:embed templates/*.html
var templateFS embed.FS

var pageTemplates = map[string]*template.Template{}

func init() {
	for _, name := range []string{"share", "compare", "history", "error"} {
		pageTemplates[name] = template.Must(template.New(name+".html").ParseFS(templateFS, "templates/layout.html", "templates/labels.html", "templates/listen.html", "templates/"+name+".html"))
	}
}

// The Content-Security-Policy of every HTML page is defined here and
// nowhere else: setPageHeaders for the server-rendered pages (share,
// compare, history, run, error, placeholder, sign-in), setAppPageHeaders
// for the go-app page (/ and /load), and ensurePagePolicy as the net under
// both (any HTML answer that set neither gets the strict one).

// contentSecurityPolicy is set on every server-rendered page: no inline
// script or style, nothing from other origins.
const contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; media-src 'self' blob: data:; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// appContentSecurityPolicy is the go-app page's. go-app v10 bootstraps
// from files (/wasm_exec.js, /app.js: no inline script, so no hash or
// nonce is needed; a test keeps it so), instantiates app.wasm
// ('wasm-unsafe-eval'), registers /app-worker.js (worker-src) and loads
// the audio worklets from /web/ (script-src). go-app sets inline style
// attributes through setAttribute (style-src-attr; style elements stay
// 'self'). The session dials whatever server the user types (ws:, wss:;
// http: and https: URLs are dialled as ws: and wss:), downloads are blob:
// URLs. connect-src also allows http: and https: (no more reach than ws:
// and wss: already give): after a websocket fails before opening, the page
// sends one no-cors request to the same host and path to tell "connection
// refused" from "wrong path" (it reads nothing of the answer).
const appContentSecurityPolicy = "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; style-src-attr 'unsafe-inline'; img-src 'self' data: blob:; media-src 'self' blob: data:; connect-src 'self' ws: wss: http: https:; worker-src 'self'; manifest-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

func setPageHeaders(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", contentSecurityPolicy)
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Cache-Control", "no-cache")
}

// setAppPageHeaders sets the go-app page's CSP and framing headers on h
// (the page handler sets its own Content-Type and caching).
func setAppPageHeaders(h http.Header) {
	h.Set("Content-Security-Policy", appContentSecurityPolicy)
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Frame-Options", "DENY")
}

// ensurePagePolicy gives an HTML answer that set no CSP the strict one.
func ensurePagePolicy(h http.Header) {
	if h.Get("Content-Security-Policy") != "" || !strings.HasPrefix(strings.ToLower(h.Get("Content-Type")), "text/html") {
		return
	}
	h.Set("Content-Security-Policy", contentSecurityPolicy)
	h.Set("X-Frame-Options", "DENY")
}

type link struct{ Name, URL, Note string }

type shardView struct {
	Received, Count int
	Final           bool
	Shown, Total    int // responses in the table and charts / in the run
}

// page is the data of every page template.
type page struct {
	Title, Description, Heading string
	Version, EchartsPath        string
	Message                     string

	// share / run pages
	Verdict   verdict
	Judgement judgement // report.Judge's code, rule and band table (share pages)
	Stream    []card    // input-stream window numbers, apart from the headline cards
	Cards     []card
	Rows      []rowView
	Info      []kv
	Warnings  []report.Warning
	Downloads []link
	Shards    *shardView
	Charts    []chartView
	Beyond    beyondView // turn-taking, probes, load curve (optional)

	// names, badges, labels (badges.go)
	teamView
	listenPage // player, transcripts, HTML export (listenpage.go)

	// compare
	compareView
	// history
	historyView
}

func (s *Server) render(w http.ResponseWriter, name string, code int, p *page) {
	p.Version, p.EchartsPath = s.cfg.Version, s.cfg.EchartsPath
	var buf bytes.Buffer
	if err := pageTemplates[name].Execute(&buf, p); err != nil {
		s.log.Error("render", "page", name, "err", err)
		writeError(w, http.StatusInternalServerError, "rendering failed", nil)
		return
	}
	setPageHeaders(w)
	w.WriteHeader(code)
	w.Write(buf.Bytes())
}

func (s *Server) errorPage(w http.ResponseWriter, code int, heading, msg string) {
	s.render(w, "error", code, &page{Title: "duplexscope · " + heading, Description: msg, Heading: heading, Message: msg})
}

// readFailed answers a failed archive read on a page and reports whether
// there was one (the handler returns): a 404 page headed notFound saying
// missing, or an "Archive error" page saying unreadable, with the error
// logged under logMsg and logAttrs (the person never sees the cause).
func (s *Server) readFailed(w http.ResponseWriter, err error, notFound, missing, unreadable, logMsg string, logAttrs ...any) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, archive.ErrNotFound) {
		s.errorPage(w, http.StatusNotFound, notFound, missing)
		return true
	}
	s.log.Error(logMsg, append(logAttrs, "err", err)...)
	s.errorPage(w, http.StatusInternalServerError, "Archive error", unreadable)
	return true
}

// reportPage fills the share-page data of a report.
func reportPage(r *report.Report, heading string) *page {
	cards, v := cardsFor(r)
	p := &page{
		Heading:   heading,
		Verdict:   v,
		Judgement: judgementFor(r),
		Stream:    streamCards(r),
		Cards:     cards,
		Rows:      rowViews(r),
		Info:      runInfo(r),
		Warnings:  r.Warnings,
		Beyond:    beyondFor(r),
	}
	title := []string{"duplexscope", r.Run.Model}
	for _, c := range cards {
		if c.Key == "speechend" || c.Key == "ttfp" || c.Key == "heard" || c.Key == "playback" || c.Key == "rtf" {
			title = append(title, c.Name+" "+c.Value)
		}
	}
	p.Title = strings.Join(title, " · ")
	p.Description = v.Text
	if len(r.Metrics.Requests) > 0 {
		p.Charts = []chartView{latencyChart("chart-latency", r), rtfChart("chart-rtf", r), waterfallChart("chart-timeline", r)}
	}
	if c, ok := loadChart("chart-load", r); ok {
		p.Charts = append(p.Charts, c)
	}
	return p
}

func (s *Server) handleSharePage(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if !archive.ValidID(id) {
		s.errorPage(w, http.StatusBadRequest, "Not a report link", "Report ids are 32 characters of a–z and 2–7.")
		return
	}
	ctx, cancel := ctxTimeout(r)
	defer cancel()
	rep, err := s.loadReport(ctx, id)
	if s.readFailed(w, err, "Report not found", "No report has this id; it may have been deleted.", "The report could not be read.", "share page", "id", id) {
		return
	}
	p := reportPage(rep, runTitle(rep, "Duplex test of "))
	p.Badges, p.Labels = s.runBadges(r, rep.Run.Client, rep.Run.TargetURL, rep.Complete), labelsOf(id, rep)
	if rep.Run.Name != "" {
		p.Title = rep.Run.Name + " · " + p.Title
	}
	_ = s.addListen(ctx, p, rep, id, false, 0) // no budget: cannot fail
	base := "/api/reports/" + id
	p.Downloads = []link{
		{"report.json", base + "/export?format=json", "duplexscope report (schema " + report.Schema + ")"},
		{"duplex_metrics.json", base + "/export?format=vllm", "vLLM-Omni layout"},
		{"responses.csv", base + "/export?format=csv", "one row per response"},
		{"share page as one HTML file", base + "/export?format=html", "charts and audio inline, opens offline"},
	}
	for _, a := range rep.Attachments {
		p.Downloads = append(p.Downloads, link{a.Name, base + "/attachments/" + url.PathEscape(a.Name), a.Kind})
	}
	if rep.Run.RunID != "" {
		p.Downloads = append(p.Downloads, link{"whole run " + rep.Run.RunID, "/runs/" + url.PathEscape(rep.Run.RunID), "all shards merged"})
	}
	s.render(w, "share", http.StatusOK, p)
}

// loadReport reads and decodes one stored report.
func (s *Server) loadReport(ctx context.Context, id string) (*report.Report, error) {
	// Always ask the store (a delete on another server sharing the
	// database must show); reuse the decoded form when the body is the same.
	rec, err := s.cfg.Store.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	key := id + "/" + rec.BodySHA256 + "/" + strconv.FormatInt(rec.Rev, 10) // Rev: relabelled (PATCH)
	if r := s.cache.get(key); r != nil {
		return r, nil
	}
	r, err := decodeRecord(rec)
	if err != nil {
		return nil, err
	}
	s.cache.put(key, r)
	return r, nil
}

func (s *Server) handleRunPage(w http.ResponseWriter, r *http.Request) {
	run := r.PathValue("run")
	if !report.ValidRunID(run) {
		s.errorPage(w, http.StatusBadRequest, "Not a run link", "Run ids are letters, digits, '.', '_' and '-'.")
		return
	}
	ctx, cancel := ctxTimeout(r)
	defer cancel()
	m, err := s.mergedRun(ctx, run)
	if errors.Is(err, errRunTooLarge) {
		s.errorPage(w, http.StatusRequestEntityTooLarge, "Run too large to merge", err.Error())
		return
	}
	if s.readFailed(w, err, "Run not found", "No shard of this run has been uploaded yet.", "The run could not be merged.", "run page", "run", run) {
		return
	}
	resp := m.resp
	shown := pageReport(resp.Report, runPageRows)
	p := reportPage(shown, "Run "+run+" of "+resp.Report.Run.Model)
	p.Cards, p.Verdict = cardsFor(resp.Report) // the numbers from every response
	p.Judgement, p.Stream = judgementFor(resp.Report), streamCards(resp.Report)
	p.Description = p.Verdict.Text
	p.Shards = &shardView{Received: len(resp.ShardsReceived), Count: resp.ShardCount, Final: resp.Final,
		Shown: len(shown.Metrics.Requests), Total: len(resp.Report.Metrics.Requests)}
	p.Downloads = []link{{"run.json", "/api/runs/" + url.PathEscape(run), "merged report with shard status"}}
	for i, id := range resp.ShardIDs {
		p.Downloads = append(p.Downloads, link{fmt.Sprintf("shard upload %d", i+1), "/r/" + id, "share page of one upload"})
	}
	s.render(w, "share", http.StatusOK, p)
}
