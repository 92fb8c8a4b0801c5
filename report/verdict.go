package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/duplexscope/duplexscope/metrics"
)

// Verdict codes (the data-verdict attribute of every page).
const (
	VerdictGood          = "good"
	VerdictUsable        = "usable"
	VerdictSlow          = "slow"
	VerdictNotRealTime   = "not-real-time"
	VerdictIncomplete    = "incomplete"
	VerdictNotEnoughData = "not-enough-data"
)

// Thresholds of the judgement (README "Verdict").
const (
	// MinResponses: fewer responses with a measured latency give
	// not-enough-data (one or two replies say little about a server).
	MinResponses = 3
	// MinP99Samples: a "p99" label needs this many samples; below it the
	// tail is shown as "slowest of N" (the maximum), since a p99 of a
	// handful of values is just an interpolation near the maximum.
	MinP99Samples = 20
	// NotRealTimeShare: when at least this share of responses has RTF ≥ 1
	// the verdict is not-real-time; any smaller non-zero share caps the
	// verdict at slow (the run is never called real-time).
	NotRealTimeShare = 0.5
)

// RTFRule states the real-time rule in words for every page.
const RTFRule = "Real-time rule: a response whose real-time factor (RTF: time to generate its audio ÷ the audio's length) is 1 or more was generated slower than real time, so its playback stalls. " +
	"If any response is, the run is never called real-time and is at best \"slow\"; if at least half are, the verdict is \"not real-time\"."

// Band colours: the data-band attribute and CSS band-* class of a card.
const (
	BandGreen = "green"
	BandAmber = "amber"
	BandRed   = "red"
)

// RTFBand is the colour of an RTF card with slow of n responses at RTF ≥ 1:
// red from NotRealTimeShare of them, amber for any, else green (RTFRule).
func RTFBand(slow, n int) string {
	switch {
	case float64(slow) >= NotRealTimeShare*float64(n):
		return BandRed
	case slow > 0:
		return BandAmber
	}
	return BandGreen
}

// LatencyBand is one row of the goal-band table: every band colour, word,
// verdict and footnote on every page comes from LatencyBands.
type LatencyBand struct {
	UpToMs  float64 // inclusive upper bound (+Inf for the last band)
	Band    string  // green | amber | red (the data-band / CSS class)
	Word    string  // what the wait feels like
	Verdict string  // the verdict a median latency in this band gives
}

// LatencyBands is the one goal-band table (median latency, ms).
var LatencyBands = []LatencyBand{
	{UpToMs: 300, Band: BandGreen, Word: "natural", Verdict: VerdictGood},
	{UpToMs: 800, Band: BandAmber, Word: "a noticeable pause", Verdict: VerdictUsable},
	{UpToMs: 1500, Band: BandAmber, Word: "noticeably slow", Verdict: VerdictSlow},
	{UpToMs: math.Inf(1), Band: BandRed, Word: "too slow for conversation", Verdict: VerdictSlow},
}

// BandFor returns the band of a latency in milliseconds, judged as shown
// (Seconds: 10 ms steps), so "0.30 s" is never called slower than the
// band "up to 0.30 s".
func BandFor(ms float64) LatencyBand {
	shown := math.Round(ms/10) * 10
	for _, b := range LatencyBands {
		if shown <= b.UpToMs {
			return b
		}
	}
	return LatencyBands[len(LatencyBands)-1]
}

// BandsFootnote states the band table in words.
func BandsFootnote() string {
	var parts []string
	lo := 0.0
	for _, b := range LatencyBands {
		var span string
		switch {
		case math.IsInf(b.UpToMs, 1):
			span = "above " + Seconds(lo)
		case lo == 0:
			span = "up to " + Seconds(b.UpToMs)
		default:
			span = Seconds(lo) + "–" + Seconds(b.UpToMs)
		}
		parts = append(parts, fmt.Sprintf("%s %s (%s, %s)", span, b.Word, b.Band, VerdictTitle(b.Verdict)))
		lo = b.UpToMs
	}
	return "Goal bands for the median latency: " + strings.Join(parts, "; ") + "."
}

// BandsGoal is the short goal line of a latency card.
func BandsGoal() string {
	b := LatencyBands
	return fmt.Sprintf("goal ≤ %s (%s); ≤ %s %s; > %s %s", Seconds(b[0].UpToMs), b[0].Word,
		Seconds(b[1].UpToMs), VerdictTitle(b[1].Verdict), Seconds(b[2].UpToMs), b[3].Word)
}

// Seconds formats milliseconds as seconds for people ("0.48 s").
func Seconds(ms float64) string {
	return strconv.FormatFloat(ms/1000, 'f', 2, 64) + " s"
}

// VerdictTitle is the verdict's name in words.
func VerdictTitle(code string) string {
	switch code {
	case VerdictGood:
		return "good"
	case VerdictUsable:
		return "usable"
	case VerdictSlow:
		return "slow"
	case VerdictNotRealTime:
		return "not real-time"
	case VerdictIncomplete:
		return "incomplete"
	case VerdictNotEnoughData:
		return "not enough data"
	}
	return code
}

// Stat is a latency distribution as people see it.
type Stat struct {
	N              int
	Mean, P50, P99 float64
	Max            float64
}

// StatOf summarises finite values (docs/metrics.md#summaries for mean/p50/p99),
// false when there is none.
func StatOf(values []float64) (Stat, bool) {
	s := metrics.Summarize(values, 3)
	if s == nil {
		return Stat{}, false
	}
	st := Stat{N: s.Count, Mean: s.Mean, P50: s.P50, P99: s.P99, Max: math.Inf(-1)}
	for _, v := range values {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			st.Max = math.Max(st.Max, v)
		}
	}
	return st, true
}

// TailLabel names the tail statistic: "p99" with at least MinP99Samples
// samples, else "slowest of N".
func TailLabel(n int) string {
	if n >= MinP99Samples {
		return "p99"
	}
	return "slowest of " + strconv.Itoa(n)
}

// TailLabel names s's tail statistic (see TailLabel).
func (s Stat) TailLabel() string { return TailLabel(s.N) }

// Tail is the value TailLabel names: the p99, or the maximum.
func (s Stat) Tail() float64 {
	if s.N >= MinP99Samples {
		return s.P99
	}
	return s.Max
}

// Latency keys (Facts.Judged): which latency the verdict used.
const (
	LatencySpeechEnd = "speech_end_to_heard_ms"
	LatencyHeard     = "heard_ttfp_ms"
	LatencyTTFP      = "ttfp_ms"
)

// Facts are the statistics a verdict is computed from; pages show them
// with the verdict so every number agrees with it.
type Facts struct {
	// Responses counts response rows (audio turns for session-only imports).
	Responses int
	// PerSession: the file has session summaries only (vllm --save-result);
	// TTFP and RTF are then per-session p50s.
	PerSession bool
	// Simulated: playback was simulated (CLI): never called "heard".
	Simulated bool
	// SpeechEnd, Heard, TTFP and RTF are nil when nothing was measured.
	SpeechEnd, Heard, TTFP, RTF *Stat
	// TTFPClock is the clock of TTFP values (server, client receive, mixed).
	TTFPClock string
	// RTFSlow counts responses at RTF ≥ 1 (of RTF.N).
	RTFSlow int
	// Judged names the latency the verdict used (Latency*), "" for none.
	Judged string
	// Incomplete lists why the run is incomplete, in words.
	Incomplete []string
}

// JudgedStat returns the latency the verdict used.
func (f Facts) JudgedStat() *Stat {
	switch f.Judged {
	case LatencySpeechEnd:
		return f.SpeechEnd
	case LatencyHeard:
		return f.Heard
	case LatencyTTFP:
		return f.TTFP
	}
	return nil
}

// PlaybackWord is how a playback-clock latency is named: "heard" for
// real playback, never for simulated.
func (f Facts) PlaybackWord() string {
	if f.Simulated {
		return "simulated playback"
	}
	return "heard"
}

// LatencyName names a latency key in words for people (never "heard" for
// simulated playback).
func (f Facts) LatencyName(key string) string {
	switch {
	case key == LatencySpeechEnd && f.Simulated:
		return "End of speech → first sound of the reply (simulated playback)"
	case key == LatencySpeechEnd:
		return "End of your speech → reply heard"
	case key == LatencyHeard && f.Simulated:
		return "Reply start → first sound (simulated playback)"
	case key == LatencyHeard:
		return "Reply start → first sound heard"
	case key == LatencyTTFP:
		return "Time to first audio (vLLM TTFP)"
	}
	return key
}

// LatencyOrigin is the clock a latency key was measured on.
func (f Facts) LatencyOrigin(key string) string {
	switch {
	case key == LatencyTTFP:
		return f.TTFPClock
	case f.Simulated && key == LatencySpeechEnd:
		return "simulated playback clock (headless; no audio played), user speech end on the client send clock"
	case f.Simulated:
		return "simulated playback clock (headless; no audio played)"
	case key == LatencySpeechEnd:
		return "playback clock, user speech end on the client send clock"
	}
	return "playback clock"
}

// Verdict is the one judgement of a run: a code (data-verdict), a band
// colour for the existing data-band attributes, and its reasons in words.
type Verdict struct {
	Code    string
	Band    string // green | amber | red | none
	Reasons []string
	Facts   Facts
}

// Title is the verdict's headline word, capitalised.
func (v Verdict) Title() string {
	t := VerdictTitle(v.Code)
	return strings.ToUpper(t[:1]) + t[1:]
}

// Text is the verdict with its reasons as one sentence.
func (v Verdict) Text() string {
	if len(v.Reasons) == 0 {
		return v.Title() + "."
	}
	return v.Title() + ": " + strings.Join(v.Reasons, "; ") + "."
}

// SimulatedPlayback reports whether a report's playback-clock numbers
// come from a simulated player (the CLI) rather than audio that played.
func SimulatedPlayback(r *Report) bool {
	if r.SpeechEndToHeard != nil && r.SpeechEndToHeard.Playback == PlaybackSimulated {
		return true
	}
	if r.Run.Client == ClientCLI {
		return true
	}
	for _, x := range r.Responses {
		if strings.Contains(strings.ToLower(x.HeardOrigin), "simulated") {
			return true
		}
	}
	return false
}

// speechEndSummary is Report.SpeechEndToHeard (nil without values).
func speechEndSummary(r *Report) *PlaybackSummary {
	var v []float64
	for _, x := range r.Responses {
		if x.SpeechEndToHeardMs != nil {
			v = append(v, *x.SpeechEndToHeardMs)
		}
	}
	s := metrics.Summarize(v, 3)
	if s == nil {
		return nil
	}
	p := PlaybackReal
	if SimulatedPlayback(&Report{Run: r.Run, Responses: r.Responses}) {
		p = PlaybackSimulated
	}
	return &PlaybackSummary{Summary: *s, Playback: p}
}

// FactsOf computes a report's statistics: every page's numbers and its
// verdict come from here.
func FactsOf(r *Report) Facts {
	rows := r.Metrics.Requests
	f := Facts{Responses: len(rows), Simulated: SimulatedPlayback(r)}
	f.PerSession = len(rows) == 0 && len(r.Metrics.Sessions) > 0
	values := func(metric string) []float64 { return Values(rows, metric) }
	f.TTFPClock = ttfpClock(rows)
	if f.PerSession {
		f.Responses = 0
		for _, s := range r.Metrics.Sessions {
			f.Responses += s.AudioTurnCount
		}
		values = func(metric string) []float64 { return sessionP50s(r, metric) }
		f.TTFPClock = "as the importing file reports (server clock when available)"
	}
	stat := func(v []float64) *Stat {
		if s, ok := StatOf(v); ok {
			return &s
		}
		return nil
	}
	var heard, speech []float64
	for _, x := range r.Responses {
		if x.HeardTTFPMs != nil {
			heard = append(heard, *x.HeardTTFPMs)
		}
		if x.SpeechEndToHeardMs != nil {
			speech = append(speech, *x.SpeechEndToHeardMs)
		}
	}
	f.SpeechEnd, f.Heard, f.TTFP = stat(speech), stat(heard), stat(values("ttfp_ms"))
	rtf := values("rtf")
	f.RTF = stat(rtf)
	for _, v := range rtf {
		if v >= 1 {
			f.RTFSlow++
		}
	}
	// The headline is what people feel: speech end → heard when enough
	// replies have it, then reply start → heard, then vLLM's TTFP.
	enough := func(s *Stat) bool {
		return s != nil && (s.N >= MinResponses || f.PerSession && f.Responses >= MinResponses)
	}
	switch {
	case enough(f.SpeechEnd):
		f.Judged = LatencySpeechEnd
	case enough(f.Heard):
		f.Judged = LatencyHeard
	case enough(f.TTFP):
		f.Judged = LatencyTTFP
	}
	f.Incomplete = incompleteReasons(r)
	return f
}

// Judge turns a report into its verdict. Order: incomplete (the run or a
// session ended early or failed) → not-enough-data (fewer than
// MinResponses measured replies) → not-real-time (at least
// NotRealTimeShare of responses at RTF ≥ 1) → the band of the headline
// latency's median (LatencyBands), capped at slow when any response had
// RTF ≥ 1.
func Judge(r *Report) Verdict {
	f := FactsOf(r)
	v := Verdict{Facts: f}
	lat := f.JudgedStat()
	switch {
	case len(f.Incomplete) > 0:
		v.Code, v.Band = VerdictIncomplete, "red"
		v.Reasons = append(v.Reasons, f.Incomplete...)
		v.Reasons = append(v.Reasons, "the numbers cover only what arrived")
		if f.RTFSlow > 0 {
			v.Reasons = append(v.Reasons, rtfWords(f))
		}
		return v
	case lat == nil:
		v.Code, v.Band = VerdictNotEnoughData, "none"
		n := 0
		for _, s := range []*Stat{f.SpeechEnd, f.Heard, f.TTFP} {
			if s != nil {
				n = max(n, s.N)
			}
		}
		if f.Responses == 0 {
			v.Reasons = append(v.Reasons, "the model gave no response with audio, so there is nothing to judge")
		} else {
			v.Reasons = append(v.Reasons, fmt.Sprintf("only %d of %d responses had a measured latency; a verdict needs at least %d", n, f.Responses, MinResponses))
		}
		if f.RTFSlow > 0 {
			v.Reasons = append(v.Reasons, rtfWords(f))
		}
		return v
	}
	b := BandFor(lat.P50)
	v.Code, v.Band = b.Verdict, b.Band
	switch {
	case f.RTF != nil && float64(f.RTFSlow) >= NotRealTimeShare*float64(f.RTF.N):
		v.Code, v.Band = VerdictNotRealTime, "red"
		v.Reasons = append(v.Reasons, rtfWords(f), latencyWords(f, lat))
		return v
	case f.RTFSlow > 0 && (v.Code == VerdictGood || v.Code == VerdictUsable):
		v.Code, v.Band = VerdictSlow, "amber"
	}
	v.Reasons = append(v.Reasons, latencyWords(f, lat))
	if f.RTF != nil {
		v.Reasons = append(v.Reasons, rtfWords(f))
	}
	return v
}

// latencyWords says the headline latency, its basis and its band word.
func latencyWords(f Facts, s *Stat) string {
	var what string
	switch {
	case f.Judged == LatencySpeechEnd && f.Simulated:
		what = "replies start %s after the user's speech ends (simulated playback: nothing played)"
	case f.Judged == LatencySpeechEnd:
		what = "replies are heard %s after you stop speaking (playback clock)"
	case f.Judged == LatencyHeard && f.Simulated:
		what = "replies start %s after the model begins them (simulated playback: nothing played)"
	case f.Judged == LatencyHeard:
		what = "replies are heard %s after the model begins them (playback clock)"
	default:
		what = "first audio arrives %s after a reply starts (vLLM TTFP, " + f.TTFPClock + ")"
	}
	basis := fmt.Sprintf("median of %d", s.N)
	if f.PerSession && f.Judged == LatencyTTFP {
		basis = fmt.Sprintf("median of %d per-session medians", s.N)
	}
	return fmt.Sprintf(what, "about "+Seconds(s.P50)) + fmt.Sprintf(": %s (%s; %s: %s)", BandFor(s.P50).Word, basis, s.TailLabel(), Seconds(s.Tail()))
}

// rtfWords states the RTF outcome; "faster than real time" only when no
// response was slower.
func rtfWords(f Facts) string {
	if f.RTF == nil {
		return "real-time factor unknown"
	}
	if f.RTFSlow == 0 {
		return fmt.Sprintf("every response (%d) was generated faster than real time (highest RTF %s)", f.RTF.N, strconv.FormatFloat(f.RTF.Max, 'f', 2, 64))
	}
	if float64(f.RTFSlow) >= NotRealTimeShare*float64(f.RTF.N) {
		return fmt.Sprintf("%d of %d responses were generated slower than real time (RTF ≥ 1, up to %s): the model does not keep up, so replies stall",
			f.RTFSlow, f.RTF.N, strconv.FormatFloat(f.RTF.Max, 'f', 2, 64))
	}
	return fmt.Sprintf("%d of %d responses were generated slower than real time (RTF ≥ 1, up to %s), so those replies stall and the run is not real-time",
		f.RTFSlow, f.RTF.N, strconv.FormatFloat(f.RTF.Max, 'f', 2, 64))
}

// incompleteReasons says in words why a run is incomplete (nil when it
// is complete): sessions that ended early or failed, with their reason.
func incompleteReasons(r *Report) []string {
	var out []string
	more := 0
	for _, s := range r.Sessions {
		if s.Complete && s.Error == "" {
			continue
		}
		if len(out) == 3 {
			more++
			continue
		}
		what := "ended early"
		if s.Error != "" {
			what = "ended early: " + ErrorWords(s.Error)
		}
		if s.SessionID != "" {
			out = append(out, "session "+s.SessionID+" "+what)
		} else {
			out = append(out, "the session "+what)
		}
	}
	if more > 0 {
		out = append(out, fmt.Sprintf("%d more sessions ended early", more))
	}
	switch {
	case len(out) > 0 || r.Complete:
	case r.Run.RunID != "":
		out = append(out, "not every shard of run "+r.Run.RunID+" has arrived complete")
	default:
		out = append(out, "the run ended before it finished (a session was stopped, failed or disconnected)")
	}
	return out
}

// ErrorWords turns a stored session error into words, naming a server
// that shut the session down.
func ErrorWords(e string) string {
	e = strings.TrimSpace(e)
	switch {
	case strings.Contains(e, "server_shutdown"):
		return "the server shut the session down (session.closed, reason server_shutdown)"
	case strings.Contains(e, "session.expired"):
		return "the server expired the session (session.expired)"
	case strings.Contains(e, "transport dropped"):
		return "the connection dropped without session.closed"
	}
	if len(e) > 300 {
		e = strings.ToValidUTF8(e[:300], "") + "…"
	}
	return e
}

// ttfpClock names the clock of rows' ttft/ttfp values.
func ttfpClock(rows []Row) string {
	var srv, cli int
	for _, r := range rows {
		switch r.Source {
		case SourceServer:
			srv++
		case SourceClient:
			cli++
		}
	}
	switch {
	case srv > 0 && cli == 0:
		return "server clock"
	case cli > 0 && srv == 0:
		return "client receive clock"
	case srv == 0 && cli == 0:
		return "unknown clock"
	}
	return fmt.Sprintf("mixed clocks: %d server clock, %d client receive clock", srv, cli)
}

// sessionP50s returns per-session p50s of a summary metric, for reports
// that carry only session entries (vllm --save-result imports).
func sessionP50s(r *Report, metric string) []float64 {
	var out []float64
	for _, s := range r.Metrics.Sessions {
		var sum *Summary
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
