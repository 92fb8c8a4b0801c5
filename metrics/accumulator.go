package metrics

import (
	"encoding/json"
	"slices"

	"github.com/duplexscope/duplexscope/protocol"
	"github.com/duplexscope/duplexscope/trace"
)

// Event types the metrics read (docs/metrics.md#counted-events). Legacy names
// (response.audio.delta, response.audio_transcript.delta) are not counted.
const (
	typeCreated    = "response.created"
	typeDone       = "response.done"
	typeAudioDelta = "response.output_audio.delta"
)

func isTextType(t string) bool {
	return t == "response.output_audio_transcript.delta" || t == "response.output_text.delta" || t == "response.text.delta"
}

const defaultSampleRate = 24000.0

// Counts tallies what Add did with the events it was given.
type Counts struct {
	Accepted   int `json:"accepted"`   // recv JSON objects that reached the metric code
	Duplicates int `json:"duplicates"` // dropped by server_event_seq de-duplication
	Ignored    int `json:"ignored"`    // send/local entries and non-object events
	// Warnings (docs/metrics.md#reference-quirks), never part of the vLLM keys:
	Legacy      int       `json:"legacy"`       // response.audio.delta / response.audio_transcript.delta seen, not counted (P11)
	SampleRates []float64 `json:"sample_rates"` // distinct sample_rate_hz values in force, in order; > 1 means P8 applies
}

// Accumulator computes a session's metrics event by event. The zero value
// is ready to use (stream start 0.0, no sample identity). Add is cheap
// (O(1) per event apart from parsing the event's JSON); Snapshot is
// O(responses) and does not change the accumulator, so it can be called at
// any time. A later event may revise rows computed earlier, exactly as the
// batch definition implies (the session-wide output sample rate, merged
// server values, the latest stage-0 snapshot, responses created late).
//
// Accumulator is not safe for concurrent use.
type Accumulator struct {
	meta     trace.SessionMeta
	ss       float64 // stream start, seconds
	ssSet    bool    // stream start given explicitly (meta or SetStreamStart)
	counts   Counts
	hasSeq   bool
	lastSeq  Int     // exact: 2^53 and 2^53+1 differ
	rate     float64 // session-wide output sample rate; 0 = default
	ids      map[string]int
	resps    []respState
	listed   []int // indices into resps, response_ids order
	recs     []rec // identity-carrying accepted events, for re-windowing
	accepted int
	// tick counts changes (see Mark); allRev is the tick of the last one
	// every response's row depends on (meta, stream start, sample rate).
	tick, allRev uint64
}

// rec is the window-relevant part of one accepted event with an identity.
type rec struct {
	t, tMs   float64
	resp     int
	seq      int
	created  bool
	text     bool
	packet   bool
	clientAu bool // client_ttfp quirk: payload is any string
	hasDur2  bool // row metadata duration (booleans count, clamped ≥ 0)
	hasDur5  bool // stream-window metadata duration (finite, ≥ 0, no booleans)
	dur2     float64
	dur5     float64
	srv      *srvObj       // response_request_metrics object found on this event
	stage0   *stage0Parsed // stage_metrics["0"] object found on this event
}

// srvVal is one key of a server response_request_metrics object: present
// in the object, and usable (a real, finite, ≥ 0 number).
type srvVal struct {
	present, valid bool
	v              float64
}

// srvOrigin is a measurement_origin key: present, and its ttft/ttfp strings.
type srvOrigin struct {
	present          bool
	hasTTFT, hasTTFP bool
	ttft, ttfp       string
}

// srvObj is the part of a response_request_metrics object metrics read.
type srvObj struct {
	ttft, ttfp srvVal
	origin     srvOrigin
}

// merge is the reference's shallow dict update, restricted to the keys read.
func (m *srvObj) merge(o *srvObj) {
	if o.ttft.present {
		m.ttft = o.ttft
	}
	if o.ttfp.present {
		m.ttfp = o.ttfp
	}
	if o.origin.present {
		m.origin = o.origin
	}
}

func parseSrv(o obj) *srvObj {
	if o == nil {
		return nil
	}
	val := func(k string) srvVal {
		raw := o.get(k)
		if raw == nil {
			return srvVal{}
		}
		f, ok := realFinite(raw)
		return srvVal{present: true, valid: ok && f >= 0, v: f}
	}
	s := &srvObj{ttft: val("ttft_ms"), ttfp: val("ttfp_ms")}
	if raw := o.get("measurement_origin"); raw != nil {
		s.origin.present = true
		if mo := object(raw); mo != nil {
			s.origin.ttft, s.origin.hasTTFT = str(mo.get("ttft"))
			s.origin.ttfp, s.origin.hasTTFP = str(mo.get("ttfp"))
		}
	}
	return s
}

// stage0Parsed is a stage "0" snapshot converted once, when it arrives.
type stage0Parsed struct {
	tokens Stage0Tokens
	tpotOK bool // vllm_tpot_ms is a real, finite, ≥ 0 number (row tpot_ms)
	tpot   float64
}

func parseStage0(raw json.RawMessage) *stage0Parsed {
	if raw == nil {
		return nil
	}
	p := &stage0Parsed{tokens: *newStage0(raw)}
	if f, ok := realFinite(object(raw).get("vllm_tpot_ms")); ok && f >= 0 {
		p.tpotOK, p.tpot = true, f
	}
	return p
}

type respState struct {
	id    string
	index int    // request_index; -1 until listed
	bytes int    // decoded audio bytes of all accepted deltas (any time)
	rev   uint64 // tick of its last change
	win   window
}

// touch notes a change to response ri's row or timing.
func (a *Accumulator) touch(ri int) {
	a.tick++
	a.resps[ri].rev = a.tick
}

// touchAll notes a change to every response's row.
func (a *Accumulator) touchAll() {
	a.tick++
	a.allRev = a.tick
}

// window is a response's state over its events at or after stream start.
type window struct {
	hasCreated        bool
	createdT, created float64
	hasText           bool
	textT, textMs     float64
	textSeq           int
	packets           int
	firstT, firstMs   float64
	firstSeq          int
	lastT, lastMs     float64
	lastSeq           int
	hasClientAudio    bool
	clientAudioT      float64
	hasDur2, hasDur5  bool
	dur2, dur5        float64
	srv               srvObj // shallow merge of server objects, arrival order
	stage0            *stage0Parsed
	hasSrv            bool
}

// SetMeta sets the session identity and stream start (stream_start_ms,
// 0.0 when nil). It may be called before or after events are added.
//
// When m.StreamStartMs is nil and no stream start was set before, a later
// "local" entry {"type": "duplexscope.stream_start"} sets it (see Add).
func (a *Accumulator) SetMeta(m trace.SessionMeta) {
	if m.StreamStartMs == nil && a.ssSet {
		m.StreamStartMs = a.meta.StreamStartMs
	}
	a.meta = m
	a.touchAll()
	if m.StreamStartMs != nil {
		a.ssSet = true
	}
	a.setStreamStart(m.StreamStartS())
}

// SetStreamStart sets the stream start, client monotonic milliseconds taken
// just before the first input append was sent. Events already added are
// re-windowed, so it may be called late.
func (a *Accumulator) SetStreamStart(ms float64) {
	a.meta.StreamStartMs = &ms
	a.ssSet = true
	a.setStreamStart(ms / 1000.0)
}

func (a *Accumulator) setStreamStart(s float64) {
	if s == a.ss {
		return
	}
	a.ss = s
	a.touchAll()
	for i := range a.resps {
		a.resps[i].win = window{}
	}
	for i := range a.recs {
		a.apply(&a.recs[i])
	}
}

// LocalStreamStart is the type of the "local" trace entry a live session
// records just before its first input append; its t_ms is the stream start.
const LocalStreamStart = "duplexscope.stream_start"

// Add feeds one trace entry. Only "recv" entries whose event is a JSON
// object count; a replayed server_event_seq is dropped (docs/metrics.md#de-duplication).
// The one "local" entry Add reads is LocalStreamStart, and only while no
// stream start was set explicitly (SetMeta with a stream start,
// SetStreamStart, or ScoreSession, which always follows the trace meta).
//
// When ev is a response.done whose response has a row, Add returns that
// row as it stands (done true), so a live view learns of a finished
// response without reading the event again.
func (a *Accumulator) Add(ev trace.Event) (row Row, done bool) {
	ri := a.add(ev)
	if ri < 0 {
		return Row{}, false
	}
	st := &a.resps[ri]
	if st.index < 0 {
		return Row{}, false // not listed: no response.created
	}
	store := make([]float64, nVals)
	ok := a.fillRow(&row, st.index, a.byteMs(st, a.sampleRate()), func() *RawMetric { return new(RawMetric) }, store)
	return row, ok
}

// add feeds ev and returns the index of the response a response.done
// names, −1 for any other entry.
func (a *Accumulator) add(ev trace.Event) int {
	if ev.Dir != trace.DirRecv {
		if ev.Dir == trace.DirLocal && !a.ssSet {
			if t, _ := str(object(ev.Event).get("type")); t == LocalStreamStart {
				a.SetStreamStart(ev.TMs)
			}
		}
		a.counts.Ignored++
		return -1
	}
	o := object(ev.Event)
	if o == nil {
		a.counts.Ignored++
		return -1
	}
	if seq, ok := seqOf(o.get("server_event_seq")); ok {
		if a.hasSeq && seq.Cmp(a.lastSeq) <= 0 {
			a.counts.Duplicates++
			return -1
		}
		a.hasSeq, a.lastSeq = true, seq
	}
	a.counts.Accepted++
	a.accepted++
	typ, _ := str(o.get("type"))
	v := newView(o)
	rid, hasID := v.identity()

	var r rec
	if typ == "response.audio.delta" || typ == "response.audio_transcript.delta" {
		a.counts.Legacy++
	}
	if typ == typeAudioDelta {
		if hz, ok := intLike(o.get("sample_rate_hz")); ok && hz > 0 {
			if hz != a.rate {
				a.touchAll() // rows without a duration are timed at it
			}
			a.rate = hz
			if !slices.Contains(a.counts.SampleRates, hz) {
				a.counts.SampleRates = append(a.counts.SampleRates, hz)
			}
		}
		p := o.get("delta")
		if !truthy(p) {
			p = o.get("audio")
		}
		r.clientAu = kindOf(p) == jString
		r.packet = nonEmptyString(p)
		if r.packet {
			if v.md != nil {
				d := v.md.get("audio_duration_ms")
				if f, ok := numberOrBool(d); ok && finite(f) {
					r.hasDur2, r.dur2 = true, max(0, f)
				}
				if f, ok := realFinite(d); ok && f >= 0 {
					r.hasDur5, r.dur5 = true, f
				}
			}
		}
		if hasID && r.packet {
			if b, ok := strBytes(p); ok {
				if n, ok := b64Len(b); ok {
					ri := a.respIndex(rid)
					a.resps[ri].bytes += n
					a.touch(ri)
				}
			}
		}
	}
	if !hasID {
		return -1
	}
	ri := a.respIndex(rid)
	if typ == typeCreated {
		r.created = true
		if st := &a.resps[ri]; st.index < 0 {
			st.index = len(a.listed)
			a.listed = append(a.listed, ri)
			a.touch(ri)
		}
	}
	r.text = isTextType(typ) && nonEmptyString(o.get("delta"))
	r.srv = parseSrv(v.serverMetrics())
	r.stage0 = parseStage0(v.stage0())
	r.t, r.tMs, r.resp, r.seq = ev.TMs/1000.0, ev.TMs, ri, a.accepted
	a.recs = append(a.recs, r)
	a.apply(&a.recs[len(a.recs)-1])
	if typ != typeDone {
		return -1
	}
	return ri
}

func (a *Accumulator) respIndex(rid []byte) int {
	if i, ok := a.ids[string(rid)]; ok { // no allocation: a lookup
		return i
	}
	if a.ids == nil {
		a.ids = make(map[string]int)
	}
	id := string(rid)
	a.ids[id] = len(a.resps)
	a.resps = append(a.resps, respState{id: id, index: -1})
	return len(a.resps) - 1
}

// apply folds one record into its response's window state.
func (a *Accumulator) apply(r *rec) {
	if !(r.t >= a.ss) {
		return
	}
	a.touch(r.resp)
	w := &a.resps[r.resp].win
	if r.created && !w.hasCreated {
		w.hasCreated, w.createdT, w.created = true, r.t, r.tMs
	}
	if r.text && !w.hasText {
		w.hasText, w.textT, w.textMs, w.textSeq = true, r.t, r.tMs, r.seq
	}
	if r.packet {
		if w.packets == 0 {
			w.firstT, w.firstMs, w.firstSeq = r.t, r.tMs, r.seq
		}
		w.packets++
		w.lastT, w.lastMs, w.lastSeq = r.t, r.tMs, r.seq
		if r.hasDur2 && (!w.hasDur2 || r.dur2 > w.dur2) {
			w.hasDur2, w.dur2 = true, r.dur2
		}
		if r.hasDur5 && (!w.hasDur5 || r.dur5 > w.dur5) {
			w.hasDur5, w.dur5 = true, r.dur5
		}
	}
	if r.clientAu && !w.hasClientAudio {
		w.hasClientAudio, w.clientAudioT = true, r.t
	}
	if r.srv != nil {
		w.srv.merge(r.srv)
		w.hasSrv = true
	}
	if r.stage0 != nil {
		w.stage0 = r.stage0
	}
}

// view holds an event's top level and the nested objects the lookups of
// docs/protocol.md#server-request-metrics and #stage-metrics visit, each
// decoded at most once (nil when absent or not an object).
type view struct {
	o                       obj
	vo, md, mdvo, mdde      obj
	resp, rmd, rmdvo, rmdde obj
}

func newView(o obj) *view {
	v := &view{o: o, vo: object(o.get("vllm_omni")), md: object(o.get("metadata")), resp: object(o.get("response"))}
	if v.md != nil {
		v.mdvo, v.mdde = object(v.md.get("vllm_omni")), object(v.md.get("duplex_event"))
	}
	if v.resp != nil {
		if v.rmd = object(v.resp.get("metadata")); v.rmd != nil {
			v.rmdvo, v.rmdde = object(v.rmd.get("vllm_omni")), object(v.rmd.get("duplex_event"))
		}
	}
	return v
}

// identity is response_id if it is a string, else response.id if that is a
// string, and none when that string is empty (protocol.IdentityOf: the
// reference lists a response only `if response_id`).
func (v *view) identity() ([]byte, bool) {
	var inner json.RawMessage
	if v.resp != nil {
		inner = v.resp.get("id")
	}
	return protocol.IdentityBytes(v.o.get("response_id"), inner)
}

// seqOf returns server_event_seq when it is a Python int (a JSON integer
// literal of any size, or a boolean), exactly.
func seqOf(raw json.RawMessage) (Int, bool) {
	if kindOf(raw) == jBool {
		return pyIntOf(raw)
	}
	return intLiteral(raw)
}

func field(o obj, k string) obj {
	if o == nil {
		return nil
	}
	return object(o.get(k))
}

// serverMetrics returns the first response_request_metrics object found in
// the eight places of docs/protocol.md#server-request-metrics, or nil.
func (v *view) serverMetrics() obj {
	const k = "response_request_metrics"
	for _, parent := range [...]obj{v.o, v.vo, v.md, v.mdvo, v.mdde, v.rmd, v.rmdvo, v.rmdde} {
		if m := field(parent, k); m != nil {
			return m
		}
	}
	return nil
}

// stage0 returns stage "0" of the first stage_metrics object found in the
// five places of docs/protocol.md#stage-metrics, or nil when that object has no object
// stage "0". A top-level stage_metrics and duplex_event are not read.
func (v *view) stage0() json.RawMessage {
	const k = "stage_metrics"
	for _, parent := range [...]obj{v.vo, v.md, v.mdvo, v.rmd, v.rmdvo} {
		if sm := field(parent, k); sm != nil {
			if kindOf(sm.get("0")) != jObject {
				return nil
			}
			return trimWS(sm.get("0"))
		}
	}
	return nil
}
