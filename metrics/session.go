package metrics

import (
	"slices"
	"strconv"

	"github.com/duplexscope/duplexscope/trace"
)

// Stream-window measurement_origin strings (docs/metrics.md#stream-window).
const (
	StreamOriginTTFT = "input stream start to first non-empty text delta"
	StreamOriginTTFP = "input stream start to first audio packet"
	StreamOriginRTF  = "input stream start-to-last-audio receive time divided by total emitted audio duration; includes concurrent realtime input"
)

// SessionResult is everything metrics derive from one session.
type SessionResult struct {
	Rows         []Row            // duplex_request_metrics rows, response_ids order
	Summary      SessionSummary   // the duplex_session_metrics entry
	OutputTokens Int              // Σ stage0_tokens.output_token_count (Python int, exact)
	Responses    []ResponseTiming // every listed response, also those without a row (UI)
	Counts       Counts
	// Faults are values the reference raises on (see Stage0Tokens.Faults),
	// by their path in the `score` layout; Score refuses when there are any.
	Faults []Fault
}

// Fault is one value the reference cannot compute: its JSON path in the
// `score` output and the reason.
type Fault struct {
	Path   string
	Reason string
}

func (f Fault) Error() string { return f.Path + ": " + f.Reason }

// SessionSummary is one duplex_session_metrics entry (docs/metrics.md#session-summary).
type SessionSummary struct {
	HasSample      bool
	SampleID       *string
	Split          *string
	SessionID      *string
	AudioTurnCount int
	TTFTMs         *Summary // always present (null when nil)
	TTFPMs         *Summary // always present
	RTF            *Summary // always present, 6 digits
	TPOTMs         *Summary // absent when nil
	ClientTTFTMs   *Summary // absent when nil
	ClientTTFPMs   *Summary // absent when nil
	Stream         *StreamWindow
}

// StreamWindow holds the session's input-stream window values
// (docs/metrics.md#stream-window), all on the client receive clock measured from stream start. Present
// only when a listed response had an audio packet in the window.
type StreamWindow struct {
	TTFTMs            *float64 // stream_ttft_ms, nil when no text
	TTFPMs            float64  // stream_ttfp_ms
	AudioGenerationMs float64  // stream_audio_generation_ms
	AudioDurationMs   float64  // stream_audio_duration_ms
	RTF               *float64 // stream_rtf, nil when duration is 0 (includes live input time)
}

// ResponseTiming is what a live view needs about one listed response beyond
// the row: client receive instants (trace milliseconds, the clock of
// trace.Event.TMs) of the events the metrics used, restricted to the window
// (nil = not seen), and which clock each latency came from.
type ResponseTiming struct {
	ResponseID   string
	RequestIndex int
	HasRow       bool
	CreatedMs    *float64 // first response.created
	FirstTextMs  *float64 // first non-empty text delta
	FirstAudioMs *float64 // first audio packet
	LastAudioMs  *float64 // last audio packet
	AudioPackets int      // audio packets in the window
	AudioBytes   int      // decoded audio bytes, whole session
	TTFTClock    Clock    // ClockServer, ClockClientReceive or ClockNone
	TTFPClock    Clock
}

// ScoreSession computes a recorded session's metrics: the batch way in. It
// is exactly an Accumulator fed every event in list order, so batch and live
// results cannot diverge.
func ScoreSession(s trace.Session) SessionResult {
	var a Accumulator
	a.SetMeta(s.Session)
	a.ssSet = true // stream_start_ms absent means 0.0, never a local annotation
	for _, ev := range s.Events {
		a.Add(ev)
	}
	return a.Snapshot()
}

// Snapshot returns the metrics of the events added so far.
func (a *Accumulator) Snapshot() SessionResult {
	res := SessionResult{Rows: make([]Row, 0, len(a.listed)), Counts: a.counts}
	res.Counts.SampleRates = slices.Clone(a.counts.SampleRates)
	hasSample := a.meta.SampleID != nil
	sessionID := a.meta.ResolvedSessionID()
	rate := a.sampleRate()
	res.Responses = make([]ResponseTiming, 0, len(a.listed))
	n := len(a.listed)
	vals := make([]float64, (6+4+nVals)*n) // one slab: six summary inputs, instants, row values
	times, rowVals := vals[6*n:10*n], vals[10*n:]
	smp := newSamples(vals[:6*n], n)
	var (
		stream streamEnds
		slab   rawSlab // one allocation for all rows' timing fields
	)
	for i, ri := range a.listed {
		st := &a.resps[ri]
		byteMs := a.byteMs(st, rate)
		res.Responses = append(res.Responses, responseTiming(st, i, times[4*i:4*i+4:4*i+4]))
		rt := &res.Responses[len(res.Responses)-1]
		stream.add(&st.win, byteMs)
		res.Rows = append(res.Rows, Row{})
		row := &res.Rows[len(res.Rows)-1]
		if !a.fillRow(row, i, byteMs, func() *RawMetric { return slab.next(len(a.listed) - i) }, rowVals[nVals*i:nVals*(i+1)]) {
			res.Rows = res.Rows[:len(res.Rows)-1]
			continue
		}
		rt.HasRow = true
		if m := row.Raw; m != nil {
			rt.TTFTClock, rt.TTFPClock = m.TTFTClock, m.TTFPClock
			smp.add(m)
		}
		if row.Stage0 != nil {
			res.addStage0(row.Stage0, len(res.Rows)-1)
		}
	}
	res.Summary = SessionSummary{
		HasSample: hasSample, SampleID: a.meta.SampleID, Split: a.meta.Split, SessionID: sessionID,
		AudioTurnCount: len(res.Rows),
		TTFTMs:         summarizeOwned(smp.ttft, 3),
		TTFPMs:         summarizeOwned(smp.ttfp, 3),
		RTF:            summarizeOwned(smp.rtf, 6),
		TPOTMs:         summarizeOwned(smp.tpot, 3),
		ClientTTFTMs:   summarizeOwned(smp.cttft, 3),
		ClientTTFPMs:   summarizeOwned(smp.cttfp, 3),
	}
	res.Summary.Stream = stream.window(a.ss)
	return res
}

// Mark is the accumulator's change count, for FirstChanged.
func (a *Accumulator) Mark() uint64 { return a.tick }

// FirstChanged is the position, in response_ids order, of the first listed
// response whose Snapshot row or timing may differ from a Snapshot taken
// when Mark returned m (the number listed when none): a live view that has
// the rows of that Snapshot needs only those from there on.
func (a *Accumulator) FirstChanged(m uint64) int {
	if a.allRev > m {
		return 0
	}
	for i, ri := range a.listed {
		if a.resps[ri].rev > m {
			return i
		}
	}
	return len(a.listed)
}

// sampleRate is the rate audio bytes are timed at: the last
// sample_rate_hz seen, else the default.
func (a *Accumulator) sampleRate() float64 {
	if a.rate == 0 {
		return defaultSampleRate
	}
	return a.rate
}

// byteMs is the duration of st's decoded audio at rate, used when the
// response has no server-reported one.
func (a *Accumulator) byteMs(st *respState, rate float64) float64 {
	return float64(st.bytes) * 1000 / (rate * 2)
}

// fillRow fills row with listed response i's metrics; ok is false when it
// gets no row (docs/metrics.md#which-responses-get-a-row). raw supplies the
// RawMetric its timing fields go in, and store the nVals values they point
// into.
func (a *Accumulator) fillRow(row *Row, i int, byteMs float64, raw func() *RawMetric, store []float64) bool {
	st := &a.resps[a.listed[i]]
	w := &st.win
	if !(w.packets > 0 && w.hasCreated) && w.stage0 == nil {
		return false // no timing fields and no stage-0 snapshot
	}
	*row = Row{HasSample: a.meta.SampleID != nil, SampleID: a.meta.SampleID, Split: a.meta.Split,
		SessionID: a.meta.ResolvedSessionID(), RequestIndex: i, ResponseID: st.id}
	if w.packets > 0 && w.hasCreated {
		row.Raw = raw()
		rawMetric(row.Raw, w, byteMs, store)
	}
	if w.stage0 != nil {
		stage0Metric(row, w.stage0, store)
	}
	return true
}

// responseTiming is a listed response's timing for the live view; ms holds
// its four instants (created, first text, first and last audio), which the
// pointers point into.
func responseTiming(st *respState, i int, ms []float64) ResponseTiming {
	w := &st.win
	rt := ResponseTiming{ResponseID: st.id, RequestIndex: i, AudioPackets: w.packets, AudioBytes: st.bytes}
	ms[0], ms[1], ms[2], ms[3] = w.created, w.textMs, w.firstMs, w.lastMs
	if w.hasCreated {
		rt.CreatedMs = &ms[0]
	}
	if w.hasText {
		rt.FirstTextMs = &ms[1]
	}
	if w.packets > 0 {
		rt.FirstAudioMs, rt.LastAudioMs = &ms[2], &ms[3]
	}
	return rt
}

// streamEnds collects the session's stream-window ends over the listed
// responses (docs/metrics.md#stream-window): the earliest text and first
// audio packet and the latest audio packet, by arrival order, and the
// summed audio duration.
type streamEnds struct {
	text, first, last *window
	durationMs        float64
}

// add takes one listed response's window; byteMs is its decoded audio's
// duration, used when the response has no server-reported one.
func (e *streamEnds) add(w *window, byteMs float64) {
	if w.hasText && (e.text == nil || w.textSeq < e.text.textSeq) {
		e.text = w
	}
	if w.packets > 0 {
		if e.first == nil || w.firstSeq < e.first.firstSeq {
			e.first = w
		}
		if e.last == nil || w.lastSeq > e.last.lastSeq {
			e.last = w
		}
	}
	if w.hasDur5 {
		e.durationMs += w.dur5
	} else {
		e.durationMs += byteMs
	}
}

// window is the session's StreamWindow measured from the stream start ss
// (seconds); nil when no listed response had an audio packet.
func (e *streamEnds) window(ss float64) *StreamWindow {
	if e.first == nil {
		return nil
	}
	sw := &StreamWindow{
		TTFPMs:            round3((e.first.firstT - ss) * 1000),
		AudioGenerationMs: round3(max(0, (e.last.lastT-ss)*1000)),
		AudioDurationMs:   round3(e.durationMs),
	}
	if e.text != nil {
		sw.TTFTMs = ptr(round3((e.text.textT - ss) * 1000))
	}
	if sw.AudioDurationMs > 0 {
		sw.RTF = ptr(round6((sw.AudioGenerationMs / 1000) / (sw.AudioDurationMs / 1000)))
	}
	return sw
}

// rawSlab hands out the rows' RawMetrics from one allocation.
type rawSlab []RawMetric

// next returns a zero RawMetric; room is how many more rows may need one,
// the size of a new allocation when the current one is full.
func (s *rawSlab) next(room int) *RawMetric {
	if len(*s) == cap(*s) {
		*s = make([]RawMetric, 0, room)
	}
	*s = (*s)[:len(*s)+1]
	return &(*s)[len(*s)-1]
}

// stage0Metric puts the stage-0 snapshot on the row and, on a row with
// timing fields, its tpot_ms (kept in store's vTPOT slot).
func stage0Metric(row *Row, s0 *stage0Parsed, store []float64) {
	row.Stage0 = &s0.tokens
	if row.Raw == nil {
		return
	}
	row.Raw.HasTPOT = true
	if s0.tpotOK {
		row.Raw.TPOTMs = &store[vTPOT]
		*row.Raw.TPOTMs = s0.tpot
	}
}

// addStage0 counts a row's stage-0 output tokens and records the values
// the reference would raise on; rowIndex is the row's place in Rows.
func (res *SessionResult) addStage0(s0 *Stage0Tokens, rowIndex int) {
	res.OutputTokens = res.OutputTokens.Add(s0.OutputTokenCount)
	for _, f := range s0.Faults {
		res.Faults = append(res.Faults, Fault{
			Path:   "request_metrics[" + strconv.Itoa(rowIndex) + "].stage0_tokens." + f.Field,
			Reason: f.Reason + " in the reference"})
	}
}

// samples are the session summary's inputs: the rows' values that count.
// Each list has its own fixed stretch of one allocation.
type samples struct {
	ttft, ttfp, rtf, tpot, cttft, cttfp []float64
}

// newSamples splits vals (6n long) into six empty lists of capacity n.
func newSamples(vals []float64, n int) samples {
	return samples{
		ttft: vals[0:0:n], ttfp: vals[n : n : 2*n], rtf: vals[2*n : 2*n : 3*n],
		tpot: vals[3*n : 3*n : 4*n], cttft: vals[4*n : 4*n : 5*n], cttfp: vals[5*n : 5*n : 6*n],
	}
}

// add takes a row's timing fields: tpot only when positive, the client
// latencies only when not negative (docs/metrics.md#session-summary).
func (s *samples) add(m *RawMetric) {
	if m.TTFTMs != nil {
		s.ttft = append(s.ttft, *m.TTFTMs)
	}
	s.ttfp = append(s.ttfp, m.TTFPMs)
	if m.RTF != nil {
		s.rtf = append(s.rtf, *m.RTF)
	}
	if m.TPOTMs != nil && *m.TPOTMs > 0 {
		s.tpot = append(s.tpot, *m.TPOTMs)
	}
	if m.ClientTTFTMs != nil && *m.ClientTTFTMs >= 0 {
		s.cttft = append(s.cttft, *m.ClientTTFTMs)
	}
	if m.ClientTTFPMs != nil && *m.ClientTTFPMs >= 0 {
		s.cttfp = append(s.cttfp, *m.ClientTTFPMs)
	}
}

// rawMetric computes a row's timing fields (docs/metrics.md#row-timing to
// #measurement-origin).
// store holds the nVals slots the row's pointers point into.
func rawMetric(m *RawMetric, w *window, byteMs float64, store []float64) {
	c := w.createdT
	*m = RawMetric{
		Source: SourceClient,
		Origin: MeasurementOrigin{TTFT: OriginTTFT, TTFP: OriginTTFP, TPOT: OriginTPOT, RTF: OriginRTF,
			ClientTTFT: OriginClientTTFT, ClientTTFP: OriginClientTTFP},
	}
	srvTTFT, okT := w.srv.ttft.v, w.srv.ttft.valid
	srvTTFP, okP := w.srv.ttfp.v, w.srv.ttfp.valid
	origin := w.srv.origin
	set := func(i int, v float64) *float64 {
		store[i] = v
		return &store[i]
	}
	switch {
	case okT:
		m.TTFTMs, m.TTFTClock = set(vTTFT, srvTTFT), ClockServer
		if origin.hasTTFT {
			m.Origin.TTFT = origin.ttft
		}
	case w.hasText:
		m.TTFTMs, m.TTFTClock = set(vTTFT, round3((w.textT-c)*1000)), ClockClientReceive
	}
	if okP {
		m.TTFPMs, m.TTFPClock = srvTTFP, ClockServer
		if origin.hasTTFP {
			m.Origin.TTFP = origin.ttfp
		}
	} else {
		m.TTFPMs, m.TTFPClock = round3((w.firstT-c)*1000), ClockClientReceive
	}
	m.AudioGenerationMs = round3(max(0, (w.lastT-c)*1000))
	if w.hasDur2 {
		m.AudioDurationMs = round3(w.dur2)
	} else {
		m.AudioDurationMs = round3(byteMs)
	}
	if okT || okP {
		m.Source, m.ServerUsed = SourceServer, true
		if w.hasText {
			m.CreatedToFirstTextMs = set(vCreatedText, round3((w.textT-c)*1000))
		}
		m.CreatedToFirstAudioMs = round3((w.firstT - c) * 1000)
	}
	if m.AudioDurationMs > 0 {
		m.RTF = set(vRTF, round6((m.AudioGenerationMs/1000)/(m.AudioDurationMs/1000)))
	}
	if w.hasText {
		m.ClientTTFTMs = set(vClientTTFT, round3(max(0, w.textT-c)*1000))
	}
	if w.hasClientAudio {
		m.ClientTTFPMs = set(vClientTTFP, round3(max(0, w.clientAudioT-c)*1000))
	}
}

// Object returns the entry as an ordered JSON object
// (docs/metrics.md#session-summary, stream keys in the report file's order).
func (s SessionSummary) Object() Object {
	o := identity(make(Object, 0, 18), s.HasSample, s.SampleID, s.Split, s.SessionID)
	o = append(o,
		Member{"audio_turn_count", s.AudioTurnCount},
		Member{"ttft_ms", summaryValue(s.TTFTMs)},
		Member{"ttfp_ms", summaryValue(s.TTFPMs)},
		Member{"rtf", summaryValue(s.RTF)})
	for _, kv := range []struct {
		k string
		v *Summary
	}{{"tpot_ms", s.TPOTMs}, {"client_ttft_ms", s.ClientTTFTMs}, {"client_ttfp_ms", s.ClientTTFPMs}} {
		if kv.v != nil {
			o = append(o, Member{kv.k, summaryValue(kv.v)})
		}
	}
	if w := s.Stream; w != nil {
		o = append(o,
			Member{"stream_ttft_ms", floatOrNil(w.TTFTMs)},
			Member{"stream_ttfp_ms", w.TTFPMs},
			Member{"stream_rtf", floatOrNil(w.RTF)},
			Member{"stream_audio_generation_ms", w.AudioGenerationMs},
			Member{"stream_audio_duration_ms", w.AudioDurationMs},
			Member{"stream_measurement_origin", Object{
				{"ttft", StreamOriginTTFT}, {"ttfp", StreamOriginTTFP}, {"rtf", StreamOriginRTF},
			}})
	}
	return o
}

// MarshalJSON writes the entry in docs/metrics.md#session-summary key order.
func (s SessionSummary) MarshalJSON() ([]byte, error) { return s.Object().MarshalJSON() }

func summaryValue(s *Summary) any {
	if s == nil {
		return nil
	}
	return s.Object()
}

// Object returns {count, mean, p50, p99}.
func (s Summary) Object() Object {
	return Object{{"count", s.Count}, {"mean", s.Mean}, {"p50", s.P50}, {"p99", s.P99}}
}

// Object returns the `score` layout of a session: {"kind": "session",
// "request_metrics": […], "session_metrics": {…}, "output_tokens": n}.
func (r SessionResult) Object() Object {
	rows := make([]any, len(r.Rows))
	for i, row := range r.Rows {
		rows[i] = row.Object()
	}
	return Object{
		{"kind", trace.KindSession},
		{"request_metrics", rows},
		{"session_metrics", r.Summary.Object()},
		{"output_tokens", r.OutputTokens},
	}
}

// MarshalJSON writes the `score` layout (see Object).
func (r SessionResult) MarshalJSON() ([]byte, error) { return r.Object().MarshalJSON() }
