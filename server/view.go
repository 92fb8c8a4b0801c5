//go:build !js

package server

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/duplexscope/duplexscope/report"
)

// Clock origin labels shown next to every number.
const (
	clockServer   = "server clock"
	clockClient   = "client receive clock"
	clockPlayback = "playback clock"
	clockEngine   = "engine (server) clock"
	clockMixed    = "mixed clocks"
)

// Goal bands (issue 7/8): heard TTFP ≤ 300 ms green, ≤ 800 ms amber,
// > 1.5 s red (800 ms–1.5 s: "slow", still amber); RTF < 1 required.
const (
	bandGreen = "green"
	bandAmber = "amber"
	bandRed   = "red"
	bandNone  = "none"
)

func latencyBand(ms float64) string {
	switch {
	case ms <= 300:
		return bandGreen
	case ms <= 800:
		return bandAmber
	case ms <= 1500:
		return bandAmber
	}
	return bandRed
}

func latencyWords(ms float64) string {
	switch {
	case ms <= 300:
		return "feels instant"
	case ms <= 800:
		return "a noticeable pause"
	case ms <= 1500:
		return "slow"
	}
	return "too slow for conversation"
}

func rtfBand(v float64) string {
	if v < 1 {
		return bandGreen
	}
	return bandRed
}

func worst(bands ...string) string {
	rank := map[string]int{bandNone: 0, bandGreen: 1, bandAmber: 2, bandRed: 3}
	w := bandNone
	for _, b := range bands {
		if rank[b] > rank[w] {
			w = b
		}
	}
	return w
}

// fmtMs formats a millisecond value for display ("—" for none).
func fmtMs(v *float64) string {
	if v == nil || math.IsNaN(*v) || math.IsInf(*v, 0) {
		return "—"
	}
	return fmtNum(*v, 1) + " ms"
}

func fmtNum(v float64, digits int) string {
	return strconv.FormatFloat(v, 'f', digits, 64)
}

func fmtRTF(v *float64) string {
	if v == nil || math.IsNaN(*v) || math.IsInf(*v, 0) {
		return "—"
	}
	return fmtNum(*v, 3)
}

// rowClock is the clock of a row's ttft_ms / ttfp_ms.
func rowClock(r report.Row) string {
	switch r.Source {
	case report.SourceServer:
		return clockServer
	case report.SourceClient:
		return clockClient
	}
	return "unknown clock"
}

// latencyClock summarises the clocks of rows' ttft/ttfp values.
func latencyClock(rows []report.Row) (string, int, int) {
	var srv, cli int
	for _, r := range rows {
		switch r.Source {
		case report.SourceServer:
			srv++
		case report.SourceClient:
			cli++
		}
	}
	switch {
	case srv > 0 && cli == 0:
		return clockServer, srv, cli
	case cli > 0 && srv == 0:
		return clockClient, srv, cli
	case srv == 0 && cli == 0:
		return "unknown clock", 0, 0
	}
	return fmt.Sprintf("%s: %d server clock, %d client receive clock", clockMixed, srv, cli), srv, cli
}

type card struct {
	Key     string
	Name    string
	Value   string
	Sub     string
	Origin  string
	Explain string
	Band    string
	Goal    string
}

type verdict struct {
	Band string
	Text string
}

type stats struct {
	N        int
	Mean     float64
	P50, P99 float64
}

func statsOf(v []float64) (stats, bool) {
	s := report.Summarize(v, 3)
	if s == nil {
		return stats{}, false
	}
	return stats{N: s.Count, Mean: s.Mean, P50: s.P50, P99: s.P99}, true
}

func heardValues(r *report.Report) []float64 {
	var out []float64
	for _, x := range r.Responses {
		if x.HeardTTFPMs != nil && !math.IsNaN(*x.HeardTTFPMs) {
			out = append(out, *x.HeardTTFPMs)
		}
	}
	return out
}

// sessionP50s returns per-session p50s of a summary metric, for reports
// that carry only session entries (vllm --save-result imports).
func sessionP50s(r *report.Report, metric string) []float64 {
	var out []float64
	for _, s := range r.Metrics.Sessions {
		var sum *report.Summary
		switch metric {
		case "ttfp_ms":
			sum = s.TTFPMs
		case "ttft_ms":
			sum = s.TTFTMs
		case "rtf":
			sum = s.RTF
		case "tpot_ms":
			sum = s.TPOTMs
		}
		if sum != nil {
			out = append(out, sum.P50)
		}
	}
	return out
}

// cardsFor builds the metric cards and the verdict of a report.
func cardsFor(r *report.Report) ([]card, verdict) {
	rows := r.Metrics.Requests
	clock, _, _ := latencyClock(rows)
	perSession := len(rows) == 0 && len(r.Metrics.Sessions) > 0
	values := func(metric string) []float64 {
		if perSession {
			return sessionP50s(r, metric)
		}
		return report.Values(rows, metric)
	}
	basis := "per response"
	if perSession {
		basis = "median of per-session p50s (this file has session summaries only)"
		clock = "as the importing file reports (server clock when available)"
	}
	var cards []card
	var bands []string
	var vText []string

	heard, heardOK := statsOf(heardValues(r))
	ttfp, ttfpOK := statsOf(values("ttfp_ms"))
	switch {
	case heardOK:
		b := latencyBand(heard.P50)
		bands = append(bands, b)
		vText = append(vText, fmt.Sprintf("replies are heard after %s (median, playback clock): %s", fmtMs(&heard.P50), latencyWords(heard.P50)))
	case ttfpOK:
		b := latencyBand(ttfp.P50)
		bands = append(bands, b)
		vText = append(vText, fmt.Sprintf("first audio arrives %s after a reply starts (median, %s): %s", fmtMs(&ttfp.P50), clock, latencyWords(ttfp.P50)))
	}
	if ttfpOK {
		cards = append(cards, card{Key: "ttfp", Name: "Time to first audio (TTFP)", Value: fmtMs(&ttfp.P50), Band: latencyBand(ttfp.P50),
			Sub:     fmt.Sprintf("p50 %s; p99 %s; mean %s; n=%d (%s)", fmtMs(&ttfp.P50), fmtMs(&ttfp.P99), fmtMs(&ttfp.Mean), ttfp.N, basis),
			Origin:  clock,
			Explain: "How long after the model starts a reply its first audio is ready: vLLM-Omni's TTFP.",
			Goal:    "goal ≤ 300 ms; ≤ 800 ms acceptable; > 1.5 s too slow"})
	}
	if heardOK {
		cards = append(cards, card{Key: "heard", Name: "Heard latency", Value: fmtMs(&heard.P50), Band: latencyBand(heard.P50),
			Sub:     fmt.Sprintf("p50 %s; p99 %s; mean %s; n=%d", fmtMs(&heard.P50), fmtMs(&heard.P99), fmtMs(&heard.Mean), heard.N),
			Origin:  clockPlayback,
			Explain: "From the reply starting to its first sound actually playing on this machine; what a person hears.",
			Goal:    "goal ≤ 300 ms; ≤ 800 ms acceptable; > 1.5 s too slow"})
	}
	if s, ok := statsOf(values("ttft_ms")); ok {
		cards = append(cards, card{Key: "ttft", Name: "Time to first text (TTFT)", Value: fmtMs(&s.P50), Band: bandNone,
			Sub:     fmt.Sprintf("p50 %s; p99 %s; mean %s; n=%d (%s)", fmtMs(&s.P50), fmtMs(&s.P99), fmtMs(&s.Mean), s.N, basis),
			Origin:  clock,
			Explain: "How long after a reply starts its first words of text (transcript) appear."})
	}
	if s, ok := statsOf(values("rtf")); ok {
		b := rtfBand(s.P50)
		bands = append(bands, b)
		if s.P50 < 1 {
			vText = append(vText, fmt.Sprintf("audio is generated faster than real time (RTF %s)", fmtNum(s.P50, 2)))
		} else {
			vText = append(vText, fmt.Sprintf("audio is generated slower than real time (RTF %s), so playback will stall", fmtNum(s.P50, 2)))
		}
		cards = append(cards, card{Key: "rtf", Name: "Real-time factor (RTF)", Value: fmtNum(s.P50, 3), Band: b,
			Sub:     fmt.Sprintf("p50 %s; p99 %s; mean %s; n=%d (%s)", fmtNum(s.P50, 3), fmtNum(s.P99, 3), fmtNum(s.Mean, 3), s.N, basis),
			Origin:  clockClient,
			Explain: "Time spent producing a reply's audio divided by its length; below 1 means the model talks faster than real time.",
			Goal:    "must be < 1"})
	}
	if s, ok := statsOf(values("tpot_ms")); ok {
		cards = append(cards, card{Key: "tpot", Name: "Time per output token (TPOT)", Value: fmtMs(&s.P50), Band: bandNone,
			Sub:     fmt.Sprintf("p50 %s; p99 %s; mean %s; n=%d", fmtMs(&s.P50), fmtMs(&s.P99), fmtMs(&s.Mean), s.N),
			Origin:  clockEngine,
			Explain: "How fast the language model produces each token after the first (token-weighted)."})
	}
	turns := 0
	for _, s := range r.Metrics.Sessions {
		turns += s.AudioTurnCount
	}
	cards = append(cards, card{Key: "turns", Name: "Responses", Value: strconv.Itoa(turns), Band: bandNone,
		Sub:     fmt.Sprintf("%d response rows in %d sessions", len(rows), len(r.Metrics.Sessions)),
		Origin:  "count (audio_turn_count)",
		Explain: "How many replies the model gave that carried audio or engine metrics."})
	if s := r.Metrics.StreamTTFP; s != nil {
		cards = append(cards, card{Key: "stream", Name: "Stream TTFP", Value: fmtMs(&s.Mean), Band: bandNone,
			Sub:     fmt.Sprintf("mean over %d sessions; p50 %s; p99 %s", s.Count, fmtMs(&s.P50), fmtMs(&s.P99)),
			Origin:  clockClient + " (from the first input audio sent)",
			Explain: "From the first audio the user sent to the first audio the model sent back, per session."})
	}
	v := verdict{Band: worst(bands...)}
	switch {
	case len(vText) == 0:
		v.Text = "No latency numbers: the run produced no responses with audio."
	default:
		word := map[string]string{bandGreen: "Good", bandAmber: "Usable", bandRed: "Not good enough", bandNone: "Measured"}[v.Band]
		v.Text = word + ": " + strings.Join(vText, "; ") + "."
	}
	if !r.Complete {
		v.Text += " The run is incomplete: numbers cover what arrived."
	}
	return cards, v
}

type rowView struct {
	Session, Response, Source, Clock              string
	Index                                         int
	TTFT, TTFP, RTF, TPOT, ClientTTFT, ClientTTFP string
	Heard                                         string
	Warn                                          bool
}

func rowViews(r *report.Report) []rowView {
	heard := map[[2]string]*float64{}
	for _, x := range r.Responses {
		heard[[2]string{x.SessionID, x.ResponseID}] = x.HeardTTFPMs
	}
	out := make([]rowView, 0, len(r.Metrics.Requests))
	for _, row := range r.Metrics.Requests {
		sid, rid := deref(row.SessionID), deref(row.ResponseID)
		src := "engine only"
		if row.Source == report.SourceServer {
			src = "server"
		} else if row.Source == report.SourceClient {
			src = "client fallback"
		}
		out = append(out, rowView{
			Session: sid, Response: rid, Index: row.RequestIndex, Source: src, Clock: rowClock(row),
			TTFT: fmtMs(row.TTFTMs), TTFP: fmtMs(row.TTFPMs), RTF: fmtRTF(row.RTF), TPOT: fmtMs(row.TPOTMs),
			ClientTTFT: fmtMs(row.ClientTTFTMs), ClientTTFP: fmtMs(row.ClientTTFPMs), Heard: fmtMs(heard[[2]string{sid, rid}]),
			Warn: row.RTF != nil && *row.RTF >= 1,
		})
	}
	return out
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

type kv struct{ K, V string }

func runInfo(r *report.Report) []kv {
	run := r.Run
	src := run.Source.Kind
	if run.Source.Dataset != "" {
		src += ": " + run.Source.Dataset
	}
	if run.Source.Split != "" {
		src += " / " + run.Source.Split
	}
	frame := "—"
	if run.FrameMs > 0 {
		frame = strconv.Itoa(run.FrameMs) + " ms"
	}
	out := []kv{
		{"Model", run.Model}, {"Target", run.TargetURL}, {"Profile", run.Profile}, {"Input", src},
		{"Frame size", frame}, {"Client", run.Client}, {"duplexscope", run.Version},
		{"Archived", r.CreatedAt + " (server wall clock)"},
	}
	if run.StartedAt != "" {
		out = append(out, kv{"Started", run.StartedAt + " (client wall clock)"})
	}
	m := run.Machine
	if mach := strings.TrimSpace(strings.Join(slices.DeleteFunc([]string{m.OS, m.Arch, cpus(m.CPUs), m.Hostname, m.GoVersion}, func(s string) bool { return s == "" }), " · ")); mach != "" {
		out = append(out, kv{"Machine", mach})
	}
	if m.UserAgent != "" {
		out = append(out, kv{"Browser", m.UserAgent})
	}
	if run.Concurrency > 0 {
		out = append(out, kv{"Concurrency", strconv.Itoa(run.Concurrency)})
	}
	if run.RunID != "" {
		out = append(out, kv{"Run id", run.RunID})
	}
	if r.Imported != nil {
		out = append(out, kv{"Imported from", r.Imported.Format})
	}
	return slices.DeleteFunc(out, func(x kv) bool { return x.V == "" })
}

func cpus(n int) string {
	if n == 0 {
		return ""
	}
	return strconv.Itoa(n) + " CPUs"
}
