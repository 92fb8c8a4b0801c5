package app

import (
	"fmt"
	"math"
	"strconv"

	"github.com/duplexscope/duplexscope/report"

	"github.com/duplexscope/duplexscope/chart"
	"github.com/duplexscope/duplexscope/metrics"
	"github.com/duplexscope/duplexscope/metrics/turntaking"
)

// liveSnapshot is everything the views draw, built off the UI goroutine.
type liveSnapshot struct {
	Phase, Status, Error string
	SessionID            string
	Final                bool // numbers come from the finished wire log (== duplexscope replay)
	Charts               map[chart.Metric]chartData
	Waterfall, Timeline  chartData
	Numbers, Stream      []bigNumber
	Pacing               pacingView
	InLevel, OutLevel    float64
	Warnings             []warning
	Log                  []logRow
	Plain                plainView
	Share                shareInfo
	Responses            int
	Probes               []probeView
	TurnTaking           *report.TurnTaking
	TTLabelled           int // labelled cases of the input (0: derived cases)
	SentS                float64
	InputRate            float64
	OutputRate           float64
	Camera               string // the video source ("Camera", "Video clip"), "" for none
	VideoFrames          int    // video frames the appends carried
	// Verdict is report.Judge of the report the page would save now.
	Verdict   report.Verdict
	ErrorKind string // the failure's kind when a person can act on it (dial-errors.go), else ""
}

// chartData is one chart's option JSON and its point count.
type chartData struct {
	Option string
	Points int
	Shape  string // series set (see echart.Shape)
}

// bigNumber is one headline figure with the clock it came from.
type bigNumber struct {
	Key, Value, Origin string
}

// pacingView: input pacing lag (actual − scheduled send), client send clock.
type pacingView struct {
	LastMs, P99Ms, MaxMs float64
	Frames, Dropped      int
	FrameMs              int
}

// respView is the per-response input of buildView.
type respView struct {
	ID          string
	CreatedMs   float64 // client receive clock
	PlayStartMs float64 // playback clock (mapped), 0 = not played
	Underruns   int
	Truncated   bool
	Transcript  string
}

// viewInput is what buildView needs; pure data, so it is tested natively.
type viewInput struct {
	Camera               string
	VideoFrames          int
	Phase, Status, Error string
	SessionID            string
	Final                bool
	Result               metrics.SessionResult
	Resp                 map[string]respView
	User, Model          []chart.Level
	Markers              []chart.Marker
	Captions             []chart.Caption
	Pacing               pacingView
	InLevel, OutLevel    float64
	Warn                 warnInput
	Log                  []logRow
	Share                shareInfo
	Probes               []probeView
	TurnTaking           *report.TurnTaking
	TTLabelled           int
	SentS                float64
	InputRate            float64
	OutputRate           float64
	// UserSpeech is VAD of the audio sent so far (trace clock): the speech
	// ends of the "end of your speech → heard" headline.
	UserSpeech []turntaking.Interval
	// Verdict, when set, is a recent judgement to reuse (the live run
	// rejudges at most every verdictEveryMs while streaming).
	Verdict *report.Verdict
	// SkipTimeline / SkipWaterfall leave out charts no view shows now
	// (building them costs main-thread time during a run).
	SkipTimeline, SkipWaterfall bool
	// Reuse, when set, supplies the charts (metric charts, waterfall) of an
	// earlier snapshot built from the same result.
	Reuse *liveSnapshot
}

func clockOrigin(c metrics.Clock) chart.Origin {
	if c == metrics.ClockServer {
		return chart.OriginServer
	}
	return chart.OriginClientReceive
}

// heardMs is a response's heard latency (created received → first sample
// played, playback clock), or false when it was not played.
func (r respView) heardMs() (float64, bool) {
	if r.PlayStartMs == 0 || r.CreatedMs == 0 {
		return 0, false
	}
	return metrics.Round(r.PlayStartMs-r.CreatedMs, 3), true
}

// waterfallMax is how many recent responses the waterfall shows (a bar
// chart of hundreds of responses is unreadable and slow to redraw).
const waterfallMax = 30

// finitePoints drops points whose value is NaN or ±Inf (possible only from
// extreme server values), which no summary counts and no chart can encode.
func finitePoints(ps []chart.Point) []chart.Point {
	out := ps[:0]
	for _, p := range ps {
		if !math.IsNaN(p.Value) && !math.IsInf(p.Value, 0) {
			out = append(out, p)
		}
	}
	return out
}

// buildView turns metrics and page state into the views' snapshot.
func buildView(in viewInput) *liveSnapshot {
	s := &liveSnapshot{
		Phase: in.Phase, Status: in.Status, Error: in.Error, SessionID: in.SessionID, Final: in.Final,
		Charts: map[chart.Metric]chartData{}, Pacing: in.Pacing, InLevel: in.InLevel, OutLevel: in.OutLevel,
		Log: in.Log, Share: in.Share, SentS: in.SentS, Probes: in.Probes, TurnTaking: in.TurnTaking, TTLabelled: in.TTLabelled, InputRate: in.InputRate, OutputRate: in.OutputRate,
		Camera: in.Camera, VideoFrames: in.VideoFrames,
	}
	sr := rowSeriesOf(in)
	s.Responses = sr.responses
	buildCharts(s, in, sr)
	sum := in.Result.Summary
	// The verdict and every headline number come from report.Judge over
	// the report this run would save: the share page shows the same.
	if in.Verdict != nil {
		s.Verdict = *in.Verdict
	} else if rep := liveReport(in.Result, sortedResp(in.Resp), in.UserSpeech, in.Error, in.SessionID); rep != nil {
		s.Verdict = report.Judge(rep)
	}
	s.Numbers = headlineNumbers(s.Verdict.Facts, sr, sum)
	s.Stream = streamNumbers(sum.Stream)
	w := in.Warn
	w.Rows = in.Result.Rows
	w.Underruns = 0
	for _, rv := range in.Resp {
		w.Underruns += rv.Underruns
	}
	s.Warnings = computeWarnings(w)
	s.Plain = buildPlain(s.Verdict, sum.AudioTurnCount, s.Responses, s.Warnings, in.Phase)
	return s
}

// rowSeries is what the charts take from the metrics rows: each metric's
// points with their clocks, the waterfall's steps.
type rowSeries struct {
	pts                    map[chart.Metric][]chart.Point
	steps                  []chart.Step
	ttfpClocks, ttftClocks map[metrics.Clock]bool
	responses              int // rows with timing fields
}

func rowSeriesOf(in viewInput) rowSeries {
	sr := rowSeries{pts: map[chart.Metric][]chart.Point{}, ttfpClocks: map[metrics.Clock]bool{}, ttftClocks: map[metrics.Clock]bool{}}
	pts := sr.pts
	for _, row := range in.Result.Rows {
		raw := row.Raw
		rv := in.Resp[row.ResponseID]
		step := chart.Step{Index: row.RequestIndex, ResponseID: row.ResponseID}
		if raw != nil {
			sr.responses++
			if raw.TTFTMs != nil {
				pts[chart.TTFT] = append(pts[chart.TTFT], chart.Point{Index: row.RequestIndex, ResponseID: row.ResponseID, Value: *raw.TTFTMs, Origin: clockOrigin(raw.TTFTClock)})
				sr.ttftClocks[raw.TTFTClock] = true
			}
			pts[chart.TTFP] = append(pts[chart.TTFP], chart.Point{Index: row.RequestIndex, ResponseID: row.ResponseID, Value: raw.TTFPMs, Origin: clockOrigin(raw.TTFPClock)})
			sr.ttfpClocks[raw.TTFPClock] = true
			if raw.RTF != nil {
				pts[chart.RTF] = append(pts[chart.RTF], chart.Point{Index: row.RequestIndex, ResponseID: row.ResponseID, Value: *raw.RTF, Origin: chart.OriginClientReceive})
			}
			// Chart exactly what the session summary's tpot_ms counts: values
			// > 0 (a 0 ms TPOT means "nothing weighted" and is left out there).
			if raw.HasTPOT && raw.TPOTMs != nil && *raw.TPOTMs > 0 {
				pts[chart.TPOT] = append(pts[chart.TPOT], chart.Point{Index: row.RequestIndex, ResponseID: row.ResponseID, Value: *raw.TPOTMs, Origin: chart.OriginServer})
			}
			if raw.TTFTClock == metrics.ClockServer {
				step.ServerTTFTMs = raw.TTFTMs
			}
			if raw.TTFPClock == metrics.ClockServer {
				v := raw.TTFPMs
				step.ServerTTFPMs = &v
			}
			step.ClientTTFTMs, step.ClientTTFPMs = raw.ClientTTFTMs, raw.ClientTTFPMs
		}
		if h, ok := rv.heardMs(); ok {
			pts[chart.Heard] = append(pts[chart.Heard], chart.Point{Index: row.RequestIndex, ResponseID: row.ResponseID, Value: h, Origin: chart.OriginPlayback})
			if step.ClientTTFPMs != nil {
				d := math.Max(0, h-*step.ClientTTFPMs)
				step.ReceivedToPlayedMs = &d
			}
		}
		sr.steps = append(sr.steps, step)
	}
	return sr
}

// buildCharts sets s's metric charts, waterfall and timeline (reusing an
// earlier snapshot's where in says so).
func buildCharts(s *liveSnapshot, in viewInput, sr rowSeries) {
	if in.Reuse != nil {
		s.Charts = in.Reuse.Charts
		s.Waterfall = in.Reuse.Waterfall
	} else {
		for _, m := range []chart.Metric{chart.TTFT, chart.TTFP, chart.RTF, chart.TPOT, chart.Heard} {
			sr.pts[m] = finitePoints(sr.pts[m]) // JSON has no NaN/Inf, and the summaries leave them out too
			b, err := chart.MetricOptions(m, sr.pts[m])
			if err == nil {
				s.Charts[m] = chartData{Option: string(b), Points: len(sr.pts[m]), Shape: seriesShape(sr.pts[m])}
			}
		}
	}
	if !in.SkipWaterfall && (in.Reuse == nil || in.Reuse.Waterfall.Option == "") {
		steps := sr.steps
		if len(steps) > waterfallMax {
			steps = steps[len(steps)-waterfallMax:]
		}
		if b, err := chart.WaterfallOptions(steps); err == nil {
			s.Waterfall = chartData{Option: string(b), Points: len(steps), Shape: "waterfall"} // always its 4 series
		}
	}
	if !in.SkipTimeline {
		if b, err := chart.TimelineOptions(chart.Timeline{User: in.User, Model: in.Model, Markers: in.Markers, Captions: in.Captions}); err == nil {
			s.Timeline = chartData{Option: string(b), Points: len(in.Markers)}
		}
	}
}

// headlineNumbers are the big numbers, each with its clock.
func headlineNumbers(f report.Facts, sr rowSeries, sum metrics.SessionSummary) []bigNumber {
	ttftStat, _ := report.StatOf(values(sr.pts[chart.TTFT]))
	return []bigNumber{
		statNumber("speech end → heard", f.SpeechEnd, "p50", "ms", f.LatencyOrigin(report.LatencySpeechEnd)),
		statNumber("TTFP", f.TTFP, "p50", "ms", clocksLabel(sr.ttfpClocks)),
		statNumber("speech end → heard", f.SpeechEnd, "tail", "ms", f.LatencyOrigin(report.LatencySpeechEnd)),
		statNumber("TTFP", f.TTFP, "tail", "ms", clocksLabel(sr.ttfpClocks)),
		statNumber("heard", f.Heard, "p50", "ms", chart.OriginPlayback.Label()),
		statNumber("heard", f.Heard, "tail", "ms", chart.OriginPlayback.Label()),
		statNumber("TTFT", statPtr(ttftStat), "p50", "ms", clocksLabel(sr.ttftClocks)),
		statNumber("TTFT", statPtr(ttftStat), "tail", "ms", clocksLabel(sr.ttftClocks)),
		statNumber("RTF", f.RTF, "p50", "×", chart.OriginClientReceive.Label()),
		statNumber("RTF", f.RTF, "tail", "×", chart.OriginClientReceive.Label()),
		summaryNumber("TPOT p50", sum.TPOTMs, "p50", "ms", chart.OriginServer.Label()+" (engine)"),
		{Key: "audio_turn_count", Value: strconv.Itoa(sum.AudioTurnCount), Origin: "responses with a metrics row"},
	}
}

// streamNumbers are the input-stream window's numbers (nil without one).
func streamNumbers(w *metrics.StreamWindow) []bigNumber {
	if w == nil {
		return nil
	}
	o := "from input stream start, " + chart.OriginClientReceive.Label()
	return []bigNumber{
		{Key: "stream_ttft_ms", Value: optMs(w.TTFTMs), Origin: o},
		{Key: "stream_ttfp_ms", Value: fmtMs(w.TTFPMs), Origin: o},
		{Key: "stream_audio_generation_ms", Value: fmtMs(w.AudioGenerationMs), Origin: o},
		{Key: "stream_audio_duration_ms", Value: fmtMs(w.AudioDurationMs), Origin: "emitted audio"},
		{Key: "stream_rtf", Value: optRatio(w.RTF), Origin: "includes live input time; not comparable with per-response RTF"},
	}
}

// seriesShape is the set of origins (one series each) of a metric chart.
func seriesShape(pts []chart.Point) string {
	seen := map[chart.Origin]bool{}
	for _, p := range pts {
		seen[p.Origin] = true
	}
	shape := "metric"
	for _, o := range []chart.Origin{chart.OriginServer, chart.OriginClientReceive, chart.OriginPlayback} {
		if seen[o] {
			shape += "|" + string(o)
		}
	}
	return shape
}

func clocksLabel(c map[metrics.Clock]bool) string {
	switch {
	case c[metrics.ClockServer] && c[metrics.ClockClientReceive]:
		return "mixed: server clock and client receive clock"
	case c[metrics.ClockServer]:
		return chart.OriginServer.Label()
	case c[metrics.ClockClientReceive]:
		return chart.OriginClientReceive.Label() + " (server metrics missing)"
	}
	return "no data yet"
}

// statNumber is a headline figure of a statistic: its p50, or its tail
// labelled "p99" only with report.MinP99Samples values ("slowest of N"
// otherwise).
func statNumber(name string, s *report.Stat, which, unit, origin string) bigNumber {
	key := name + " p50"
	if which == "tail" {
		key = name + " p99"
		if s != nil {
			key = name + " " + s.TailLabel()
		}
	}
	if s == nil {
		return bigNumber{Key: key, Value: "—", Origin: origin}
	}
	v := s.P50
	if which == "tail" {
		v = s.Tail()
	}
	if unit == "×" {
		return bigNumber{Key: key, Value: strconv.FormatFloat(v, 'f', 3, 64), Origin: origin}
	}
	return bigNumber{Key: key, Value: fmtMs(v), Origin: origin}
}

func statPtr(s report.Stat) *report.Stat {
	if s.N == 0 {
		return nil
	}
	return &s
}

// values are the finite values of chart points.
func values(ps []chart.Point) []float64 {
	out := make([]float64, 0, len(ps))
	for _, p := range ps {
		out = append(out, p.Value)
	}
	return out
}

func summaryNumber(key string, s *metrics.Summary, which, unit, origin string) bigNumber {
	if s == nil {
		return bigNumber{Key: key, Value: "—", Origin: origin}
	}
	v := s.P50
	if which == "p99" {
		v = s.P99
	}
	if unit == "×" {
		return bigNumber{Key: key, Value: strconv.FormatFloat(v, 'f', 3, 64), Origin: origin}
	}
	return bigNumber{Key: key, Value: fmtMs(v), Origin: origin}
}

func fmtMs(v float64) string {
	if math.Abs(v) >= 10000 {
		return fmt.Sprintf("%.2f s", v/1000)
	}
	return fmt.Sprintf("%.0f ms", v)
}

func optMs(v *float64) string {
	if v == nil {
		return "—"
	}
	return fmtMs(*v)
}

func optRatio(v *float64) string {
	if v == nil {
		return "—"
	}
	return strconv.FormatFloat(*v, 'f', 3, 64)
}
