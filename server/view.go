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

// Band colours (data-band / CSS band-*). The goal bands themselves, their
// words and footnote are report.LatencyBands: one table for every page.
const (
	bandGreen = report.BandGreen
	bandAmber = report.BandAmber
	bandRed   = report.BandRed
	bandNone  = "none"
)

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
	var b [32]byte // one allocation, not two: a share page has six per row
	return string(append(strconv.AppendFloat(b[:0], *v, 'f', 1, 64), " ms"...))
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

// judgement is the share page's view of report.Judge: the data-verdict
// code, the rule and the band table in words.
type judgement struct {
	Code     string
	RTFRule  string
	Footnote string
	// HeardCol names the playback-clock column: "heard", or "simulated
	// playback" when nothing played (CLI).
	HeardCol, HeardClock string
	MinResponses, MinP99 int
}

// msOrS formats a latency for a card.
func msOrS(ms float64) string { return fmtMs(&ms) }

// statSub is a card's distribution line; the tail is "p99" only with
// report.MinP99Samples samples, else "slowest of N".
func statSub(s *report.Stat, f func(float64) string, basis string) string {
	out := fmt.Sprintf("p50 %s; %s %s; mean %s; n=%d", f(s.P50), s.TailLabel(), f(s.Tail()), f(s.Mean), s.N)
	if basis != "" {
		out += " (" + basis + ")"
	}
	return out
}

// cardsFor builds the metric cards and the verdict of a report, both from
// report.Judge's statistics.
func cardsFor(r *report.Report) ([]card, verdict) {
	jv := report.Judge(r)
	f := jv.Facts
	basis := "per response"
	if f.PerSession {
		basis = "median of per-session p50s (this file has session summaries only)"
	}
	goal := report.BandsGoal()
	var cards []card
	if s := f.SpeechEnd; s != nil {
		explain := "What a person waits: from the end of the user's speech (voice detection on the audio sent) to the first sound of the reply."
		if f.Simulated {
			explain = "From the end of the user's speech (voice detection on the audio sent) to the reply's first sound on a simulated player: this run was headless, no audio was played."
		}
		cards = append(cards, card{Key: "speechend", Name: f.LatencyName(report.LatencySpeechEnd), Value: msOrS(s.P50), Band: report.BandFor(s.P50).Band,
			Sub: statSub(s, msOrS, "first reply after each speech end"), Origin: f.LatencyOrigin(report.LatencySpeechEnd), Explain: explain, Goal: goal})
	}
	if s := f.TTFP; s != nil {
		cards = append(cards, card{Key: "ttfp", Name: "Time to first audio (TTFP)", Value: msOrS(s.P50), Band: report.BandFor(s.P50).Band,
			Sub:     statSub(s, msOrS, basis),
			Origin:  f.TTFPClock,
			Explain: "How long after the model starts a reply its first audio is ready: vLLM-Omni's TTFP. It leaves out the user's turn end, the network and playback.",
			Goal:    goal})
	}
	if s := f.Heard; s != nil {
		explain := "From the reply starting to its first sound actually playing on this machine; what a person hears."
		if f.Simulated {
			explain = "From the reply starting to its first sample on a simulated serial player (headless run: no audio was played; equals the client TTFP whenever the player is idle)."
		}
		key := "heard"
		if f.Simulated {
			key = "playback" // nothing was heard: not even the key says so
		}
		cards = append(cards, card{Key: key, Name: f.LatencyName(report.LatencyHeard), Value: msOrS(s.P50), Band: report.BandFor(s.P50).Band,
			Sub: statSub(s, msOrS, ""), Origin: f.LatencyOrigin(report.LatencyHeard), Explain: explain, Goal: goal})
	}
	values := func(metric string) []float64 { return report.Values(r.Metrics.Requests, metric) }
	if s, ok := report.StatOf(values("ttft_ms")); ok && !f.PerSession {
		cards = append(cards, card{Key: "ttft", Name: "Time to first text (TTFT)", Value: msOrS(s.P50), Band: bandNone,
			Sub:     statSub(&s, msOrS, basis),
			Origin:  f.TTFPClock,
			Explain: "How long after a reply starts its first words of text (transcript) appear."})
	}
	if s := f.RTF; s != nil {
		b := report.RTFBand(f.RTFSlow, s.N)
		rtf := func(v float64) string { return fmtNum(v, 3) }
		cards = append(cards, card{Key: "rtf", Name: "Real-time factor (RTF)", Value: fmtNum(s.P50, 3), Band: b,
			Sub:     fmt.Sprintf("%d of %d responses at RTF ≥ 1; ", f.RTFSlow, s.N) + statSub(s, rtf, basis),
			Origin:  clockClient,
			Explain: "Time spent producing a reply's audio divided by its length; below 1 means that reply was generated quicker than it plays (the real-time rule is under the cards).",
			Goal:    "must be < 1 for every response"})
	}
	if s, ok := report.StatOf(values("tpot_ms")); ok && !f.PerSession {
		cards = append(cards, card{Key: "tpot", Name: "Time per output token (TPOT)", Value: msOrS(s.P50), Band: bandNone,
			Sub:     statSub(&s, msOrS, ""),
			Origin:  clockEngine,
			Explain: "How fast the language model produces each token after the first (token-weighted)."})
	}
	turns := 0
	for _, s := range r.Metrics.Sessions {
		turns += s.AudioTurnCount
	}
	cards = append(cards, card{Key: "turns", Name: "Responses", Value: strconv.Itoa(turns), Band: bandNone,
		Sub:     fmt.Sprintf("%d response rows in %d sessions", len(r.Metrics.Requests), len(r.Metrics.Sessions)),
		Origin:  "count (audio_turn_count)",
		Explain: fmt.Sprintf("How many replies the model gave that carried audio or engine metrics; a verdict needs at least %d with a measured latency.", report.MinResponses)})
	return cards, verdict{Band: jv.Band, Text: jv.Text()}
}

// judgementFor is the share page's verdict code, rule and footnote.
func judgementFor(r *report.Report) judgement {
	jv := report.Judge(r)
	j := judgement{Code: jv.Code, RTFRule: report.RTFRule, Footnote: report.BandsFootnote(), HeardCol: "heard", HeardClock: "Heard: playback clock.",
		MinResponses: report.MinResponses, MinP99: report.MinP99Samples}
	if jv.Facts.Simulated {
		j.HeardCol = "simulated playback"
		j.HeardClock = "Simulated playback: a serial player simulated on the client receive clock (headless run; no audio was played)."
	}
	return j
}

// streamCards are the input-stream window numbers: shown apart from the
// headline cards, with what they include.
func streamCards(r *report.Report) []card {
	s := r.Metrics.StreamTTFP
	if s == nil {
		return nil
	}
	return []card{{Key: "stream", Name: "Stream TTFP", Value: fmtMs(&s.Mean), Band: bandNone,
		Sub:     fmt.Sprintf("mean over %d sessions; p50 %s", s.Count, fmtMs(&s.P50)) + tailOf(s),
		Origin:  clockClient + " (from the first input audio sent)",
		Explain: "From the first audio the user sent to the first audio the model sent back, per session. It includes the user's own speech and the wait for their turn to end, so it is not a reply latency."}}
}

// tailOf is a summary's p99 for people, only with enough sessions (the
// stored summary has no maximum to show instead).
func tailOf(s *report.Summary) string {
	if s.Count >= report.MinP99Samples {
		return "; p99 " + fmtMs(&s.P99)
	}
	return ""
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
