//go:build !js

package server

import (
	"context"
	"fmt"
	"maps"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/duplexscope/duplexscope/report"
	"github.com/duplexscope/duplexscope/server/archive"
)

type historyItem struct {
	ID, Created, Model, Profile, Source, P50, P99, RunID, Shard string
	Responses                                                   int
	historyLabels
	// Verdict is report.Judge's code for the run ("" when the report
	// could not be read); VerdictText its reasons in words.
	Verdict, VerdictTitle, VerdictText string
}

// historyLabels tell a row's run apart (badges.go): its name or model, tags,
// badges, and whether it is ticked for comparing.
type historyLabels struct {
	Title    string
	Tags     []string
	Badges   []badge
	Complete bool
	Picked   bool // the run "compare with…" came from: the baseline
}

type trend struct {
	Model, Points, Summary string
	W, H                   int
}

type historyView struct {
	Query, Model string
	Items        []historyItem
	Trends       []trend
	Next         string
	// Pick is the run the share page's "compare with…" came from (the
	// compare form sends it first, as the baseline); PickTitle names it.
	Pick, PickTitle string
}

// metaTitle names a listed run: its name, else its model.
func metaTitle(m archive.Meta) string {
	if m.Name != "" {
		return m.Name
	}
	return m.Model
}

// sparkline maps values to SVG polyline points in a w×h box.
func sparkline(vals []float64, w, h int) string {
	if len(vals) == 0 {
		return ""
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range vals {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	span := hi - lo
	if span == 0 {
		span = 1
	}
	var b strings.Builder
	for i, v := range vals {
		x := 2.0
		if len(vals) > 1 {
			x = 2 + float64(i)*float64(w-4)/float64(len(vals)-1)
		}
		y := float64(h-2) - (v-lo)/span*float64(h-4)
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%.1f,%.1f", x, y)
	}
	return b.String()
}

func (s *Server) handleHistory(w http.ResponseWriter, r *http.Request) {
	if !s.canList(r) {
		// With a write token the list of ids is not for anyone who asks.
		http.Redirect(w, r, "/signin?next="+url.QueryEscape(r.URL.RequestURI()), http.StatusSeeOther)
		return
	}
	q := r.URL.Query()
	f, err := parseFilter(q)
	if err != nil {
		s.errorPage(w, http.StatusBadRequest, "Bad search", err.Error())
		return
	}
	if f.Limit == 0 {
		f.Limit = 100
	}
	ctx, cancel := ctxTimeout(r)
	defer cancel()
	pg, err := s.cfg.Store.List(ctx, f)
	if err != nil {
		if strings.Contains(err.Error(), "bad cursor") {
			s.errorPage(w, http.StatusBadRequest, "Bad page link", err.Error())
			return
		}
		s.log.Error("history", "err", err)
		s.errorPage(w, http.StatusInternalServerError, "Archive error", "The archive could not be listed.")
		return
	}
	v := historyView{Query: f.Text, Model: f.Model}
	if pick := q.Get("pick"); pick != "" {
		if !archive.ValidID(pick) {
			s.errorPage(w, http.StatusBadRequest, "Not a report id", "pick is the id of the run to compare with (32 characters of a–z and 2–7).")
			return
		}
		rec, err := s.cfg.Store.Get(ctx, pick)
		if s.readFailed(w, err, "Report not found", "The run to compare with is not in the archive.", "The run to compare with could not be read.", "history pick", "id", pick) {
			return
		}
		v.Pick, v.PickTitle = pick, metaTitle(rec.Meta)
	}
	byModel := map[string][]archive.Meta{}
	for _, m := range pg.Items {
		it := historyItem{ID: m.ID, Created: m.CreatedAt.UTC().Format(time.RFC3339), Model: m.Model, Profile: m.Profile, Source: m.Source,
			P50: fmtMs(m.TTFPP50Ms), P99: fmtMs(m.TTFPP99Ms), RunID: m.RunID, Responses: m.Responses,
			historyLabels: historyLabels{Title: metaTitle(m), Tags: m.Tags, Badges: s.runBadges(r, m.Client, m.TargetURL, m.Complete),
				Complete: m.Complete, Picked: m.ID == v.Pick}}
		if m.ShardCnt > 0 {
			it.Shard = "shard " + strconv.Itoa(m.ShardIdx) + "/" + strconv.Itoa(m.ShardCnt)
		}
		s.judgeHistoryItem(ctx, &it)
		v.Items = append(v.Items, it)
		if m.TTFPP50Ms != nil {
			byModel[m.Model] = append(byModel[m.Model], m)
		}
	}
	for _, model := range slices.Sorted(maps.Keys(byModel)) {
		ms := byModel[model]
		var vals []float64
		for i := len(ms) - 1; i >= 0; i-- { // oldest first
			vals = append(vals, *ms[i].TTFPP50Ms)
		}
		last := vals[len(vals)-1]
		v.Trends = append(v.Trends, trend{Model: model, W: 200, H: 40, Points: sparkline(vals, 200, 40),
			Summary: fmt.Sprintf("%d runs · latest TTFP p50 %s", len(vals), fmtMs(&last))})
	}
	if pg.Next != "" {
		nq := url.Values{}
		for k, vs := range q {
			nq[k] = vs
		}
		nq.Set("cursor", pg.Next) // keeps pick: the baseline stays chosen on older pages
		v.Next = "/history?" + nq.Encode()
	}
	p := &page{Heading: "History", historyView: v, Title: "duplexscope · history", Description: fmt.Sprintf("%d archived runs", len(v.Items))}
	s.render(w, "history", http.StatusOK, p)
}

// judgeHistoryItem gives a history row the verdict of its report (the one
// judgement, report.Judge) and a TTFP tail labelled as the share page
// labels it ("slowest of N" below report.MinP99Samples responses). The
// report comes through the decoded-report cache.
func (s *Server) judgeHistoryItem(ctx context.Context, it *historyItem) {
	rep, err := s.loadReport(ctx, it.ID)
	if err != nil {
		it.VerdictText = "—"
		return
	}
	jv := report.Judge(rep)
	it.Verdict, it.VerdictTitle, it.VerdictText = jv.Code, jv.Title(), jv.Text()
	if t := jv.Facts.TTFP; t != nil && t.N < report.MinP99Samples {
		tail := t.Tail()
		it.P99 = fmtMs(&tail) + " (" + t.TailLabel() + ")"
	}
}
