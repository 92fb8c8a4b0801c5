package tracker

import (
	"cmp"
	"encoding/base64"
	"encoding/json"
	"math"
	"reflect"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/duplexscope/duplexscope/metrics"
)

// LogRows returns a copy of the last n event-log rows.
func (t *Tracker) LogRows(n int) []LogRow { return t.log.Last(n) }

// cursor is how much of each append-only list a Delta has carried.
type cursor struct {
	marks, levels, lags int
	logRows             int    // absolute row index (rows dropped + index)
	metrics             uint64 // the accumulator's Mark at the last metrics sent
}

// Delta is what changed since the previous Delta. Lists that only grow
// come as their new tails; captions from the first changed one; changed
// responses whole, in the order first seen; the metrics only when asked.
type Delta struct {
	StreamStartMs float64    `json:"stream_start_ms"`
	Responses     []Response `json:"responses,omitempty"`
	Marks         []Mark     `json:"marks,omitempty"`
	CaptionsFrom  int        `json:"captions_from"`
	Captions      []Caption  `json:"captions,omitempty"`
	Levels        []Level    `json:"levels,omitempty"`
	Lags          []float64  `json:"lags,omitempty"`
	Legacy        bool       `json:"legacy,omitempty"`
	LogFrom       int        `json:"log_from"` // absolute index of Log[0]
	Log           []LogRow   `json:"log,omitempty"`
	// Metrics is the metrics.SessionResult in Go's own JSON layout (the
	// metrics types write the reference's, which does not read back).
	Metrics *Metrics `json:"metrics,omitempty"`
}

// Metrics is a metrics.SessionResult as a Delta carries it: defined types
// without the reference-layout MarshalJSON methods, and of the rows and
// timings only those that may have changed since the last Metrics (a
// 10-minute session's whole result is hundreds of kB, and encoding it took
// the worker tens of ms twice a second, in the way of its send schedule).
type Metrics struct {
	// Seq counts the Metrics a Tracker sent (from 1): a reader that
	// missed one cannot merge the next unless it is whole (both From 0).
	Seq int
	// Rows replace the receiver's rows from RowsFrom on, Responses its
	// timings from ResponsesFrom on.
	RowsFrom      int
	Rows          []rowWire
	ResponsesFrom int
	Responses     []metrics.ResponseTiming
	Summary       summaryWire
	OutputTokens  metrics.Int
	Counts        metrics.Counts
	Faults        []metrics.Fault
}

type (
	rowWire     metrics.Row
	summaryWire metrics.SessionSummary
)

// toWire is r's listed responses from position k on (and their rows),
// with everything else whole.
func toWire(r metrics.SessionResult, k int) *Metrics {
	from, _ := slices.BinarySearchFunc(r.Rows, k, func(row metrics.Row, k int) int { return cmp.Compare(row.RequestIndex, k) })
	w := &Metrics{RowsFrom: from, ResponsesFrom: k, Responses: r.Responses[k:],
		Summary: summaryWire(r.Summary), OutputTokens: r.OutputTokens, Counts: r.Counts, Faults: r.Faults}
	w.Rows = make([]rowWire, len(r.Rows)-from)
	for i, row := range r.Rows[from:] {
		w.Rows[i] = rowWire(row)
	}
	return w
}

// merge applies m to r, the result of the Metrics numbered seq, in new
// slices (views drawn from r keep theirs); false when m does not follow r
// (one was lost), r unchanged.
func (m *Metrics) merge(r *metrics.SessionResult, seq int) bool {
	whole := m.RowsFrom == 0 && m.ResponsesFrom == 0
	if !whole && (m.Seq != seq+1 || m.RowsFrom > len(r.Rows) || m.ResponsesFrom > len(r.Responses)) {
		return false
	}
	rows := make([]metrics.Row, m.RowsFrom, m.RowsFrom+len(m.Rows))
	copy(rows, r.Rows)
	for _, row := range m.Rows {
		rows = append(rows, metrics.Row(row))
	}
	*r = metrics.SessionResult{Rows: rows, Responses: slices.Concat(r.Responses[:m.ResponsesFrom], m.Responses),
		Summary: metrics.SessionSummary(m.Summary), OutputTokens: m.OutputTokens, Counts: m.Counts, Faults: m.Faults}
	return true
}

// MaxViewLogRows is how many event-log rows a View keeps (what the log
// view shows).
const MaxViewLogRows = 1000

// Delta returns what changed since the last call and moves the cursor;
// withResult adds the metrics (O(responses): callers throttle it).
func (t *Tracker) Delta(withResult bool) Delta {
	d := Delta{StreamStartMs: t.streamStartMs, Legacy: t.legacy, CaptionsFrom: t.captionFrom}
	for _, id := range t.changed {
		rs := t.resp[id]
		rs.dirty = false
		d.Responses = append(d.Responses, *rs)
	}
	t.changed = t.changed[:0]
	d.Marks = append(d.Marks, t.marks[t.sent.marks:]...)
	d.Levels = append(d.Levels, t.levels[t.sent.levels:]...)
	d.Lags = append(d.Lags, t.lags[t.sent.lags:]...)
	if t.captionFrom < len(t.captions) {
		d.Captions = append(d.Captions, t.captions[t.captionFrom:]...)
	}
	// The last row carried may have folded more events since: resend it.
	from := max(t.sent.logRows-1, t.log.dropped, 0)
	total := t.log.dropped + len(t.log.rows)
	from = max(from, total-MaxViewLogRows)
	d.LogFrom = from
	if from < total {
		d.Log = append(d.Log, t.log.rows[from-t.log.dropped:]...)
	}
	t.sent = cursor{marks: len(t.marks), levels: len(t.levels), lags: len(t.lags), logRows: total, metrics: t.sent.metrics}
	t.captionFrom = len(t.captions)
	if withResult {
		d.Metrics = toWire(t.acc.Snapshot(), t.acc.FirstChanged(t.sent.metrics))
		t.metricsSeq++
		d.Metrics.Seq = t.metricsSeq
		t.sent.metrics = t.acc.Mark()
	}
	return d
}

// ResendMetrics makes the next Delta with metrics carry them whole, for a
// reader that lost one (Merged.Lost).
func (t *Tracker) ResendMetrics() { t.sent.metrics = 0 } // every listed response was touched after mark 0

// View is the page's copy of a Tracker, kept by its Deltas.
type View struct {
	streamStartMs float64
	resp          map[string]*Response
	order         []string
	marks         []Mark
	captions      []Caption
	levels        []Level
	lags          []float64
	legacy        bool
	logFrom       int // absolute index of log[0]
	log           []LogRow
	result        metrics.SessionResult
	metricsSeq    int // Seq of the Metrics result has
}

// NewView returns an empty view.
func NewView() *View { return &View{resp: map[string]*Response{}} }

// Merged is what a Delta brought that its reader acts on at once.
type Merged struct {
	// FirstAudio: responses whose first audio the Delta brings (probes
	// follow the model's next turn by them).
	FirstAudio []Response
	// Boundary: a response's first audio or its end (draw now).
	Boundary bool
	// Lost: the Delta's metrics did not follow the view's (one before it
	// was lost), so the view kept its own.
	Lost bool
}

// Merge applies d.
func (v *View) Merge(d Delta) Merged {
	var m Merged
	v.streamStartMs, v.legacy = d.StreamStartMs, v.legacy || d.Legacy
	for _, r := range d.Responses {
		old := v.resp[r.ID]
		if old == nil {
			v.order = append(v.order, r.ID)
			old = &Response{}
		}
		if r.FirstAudioMs != 0 && old.FirstAudioMs == 0 {
			m.FirstAudio = append(m.FirstAudio, r)
		}
		m.Boundary = m.Boundary || (r.FirstAudioMs != 0 && old.FirstAudioMs == 0) || (r.Done && !old.Done)
		v.resp[r.ID] = &r
	}
	v.marks = append(v.marks, d.Marks...)
	v.levels = append(v.levels, d.Levels...)
	v.lags = append(v.lags, d.Lags...)
	if d.CaptionsFrom <= len(v.captions) {
		v.captions = append(v.captions[:d.CaptionsFrom], d.Captions...)
	}
	v.mergeLog(d.LogFrom, d.Log)
	switch {
	case d.Metrics == nil:
	case d.Metrics.merge(&v.result, v.metricsSeq):
		v.metricsSeq = d.Metrics.Seq
	default:
		m.Lost = true
	}
	return m
}

func (v *View) mergeLog(from int, rows []LogRow) {
	switch end := v.logFrom + len(v.log); {
	case len(rows) == 0:
		return
	case from >= v.logFrom && from <= end:
		v.log = append(v.log[:from-v.logFrom], rows...)
	default: // a gap (rows fell off the tracker's front): start again
		v.log, v.logFrom = append([]LogRow(nil), rows...), from
	}
	if n := len(v.log) - MaxViewLogRows; n > 0 {
		v.log = append([]LogRow(nil), v.log[n:]...)
		v.logFrom += n
	}
}

// StreamStartMs is the first append's send stamp (0 before it).
func (v *View) StreamStartMs() float64 { return v.streamStartMs }

// Order is the responses' ids in the order first seen.
func (v *View) Order() []string { return v.order }

// Response returns id's state (nil: not seen).
func (v *View) Response(id string) *Response { return v.resp[id] }

// Marks is the model lane's marks so far.
func (v *View) Marks() []Mark { return v.marks }

// Captions is the model's captions so far.
func (v *View) Captions() []Caption { return v.captions }

// Levels is the model audio's levels so far.
func (v *View) Levels() []Level { return v.levels }

// Legacy reports whether legacy event names came.
func (v *View) Legacy() bool { return v.legacy }

// PacingLagsMs are the pacing notes' lags so far.
func (v *View) PacingLagsMs() []float64 { return v.lags }

// LogRows returns a copy of the last n event-log rows.
func (v *View) LogRows(n int) []LogRow {
	rows := v.log
	if len(rows) > n {
		rows = rows[len(rows)-n:]
	}
	return append([]LogRow(nil), rows...)
}

// Result is the metrics as of the last Delta that carried them.
func (v *View) Result() metrics.SessionResult { return v.result }

// Encode writes d as JSON for postMessage. Two things do not survive
// plain JSON, and a server can send both: NaN and infinities (a Python
// float("inf") in its engine metrics) are cleared here, in the live copy
// only — the report is scored from the wire log, exactly; and a response
// id with a lone surrogate (which the one identity rule keeps apart, as
// WTF-8 bytes) would collapse into U+FFFD, so ids travel escaped.
func Encode(d Delta) ([]byte, error) {
	d.Responses = append([]Response(nil), d.Responses...)
	for i := range d.Responses {
		d.Responses[i].ID = escapeString(d.Responses[i].ID)
	}
	d.Marks = append([]Mark(nil), d.Marks...)
	for i := range d.Marks {
		d.Marks[i].ResponseID = escapeString(d.Marks[i].ResponseID)
	}
	if m := d.Metrics; m != nil {
		c := *m
		c.Rows = append([]rowWire(nil), m.Rows...)
		for i := range c.Rows {
			c.Rows[i].ResponseID = escapeString(c.Rows[i].ResponseID)
		}
		c.Responses = append([]metrics.ResponseTiming(nil), m.Responses...)
		for i := range c.Responses {
			c.Responses[i].ResponseID = escapeString(c.Responses[i].ResponseID)
		}
		d.Metrics = &c
	}
	b, err := json.Marshal(d)
	if err == nil || d.Metrics == nil {
		return b, err
	}
	d.Metrics = rewrite(reflect.ValueOf(d.Metrics)).Interface().(*Metrics)
	return json.Marshal(d)
}

// Decode reads a Delta written by Encode.
func Decode(b []byte) (Delta, error) {
	var d Delta
	if err := json.Unmarshal(b, &d); err != nil {
		return Delta{}, err
	}
	for i := range d.Responses {
		d.Responses[i].ID = unescapeString(d.Responses[i].ID)
	}
	for i := range d.Marks {
		d.Marks[i].ResponseID = unescapeString(d.Marks[i].ResponseID)
	}
	if m := d.Metrics; m != nil {
		for i := range m.Rows {
			m.Rows[i].ResponseID = unescapeString(m.Rows[i].ResponseID)
		}
		for i := range m.Responses {
			m.Responses[i].ResponseID = unescapeString(m.Responses[i].ResponseID)
		}
	}
	return d, nil
}

// escapeMark starts an escaped id: a noncharacter no id begins with (one
// that does is escaped too, so the mapping is one to one).
const escapeMark = "\uffff"

func escapeString(s string) string {
	if utf8.ValidString(s) && !strings.HasPrefix(s, escapeMark) {
		return s
	}
	return escapeMark + base64.RawStdEncoding.EncodeToString([]byte(s))
}

func unescapeString(s string) string {
	rest, ok := strings.CutPrefix(s, escapeMark)
	if !ok {
		return s
	}
	b, err := base64.RawStdEncoding.DecodeString(rest)
	if err != nil {
		return s
	}
	return string(b)
}

// rewrite deep-copies v with its non-finite floats zeroed and its pointers
// to a non-finite float nil (JSON null). Reflection, because such values
// hide anywhere in a row (engine metrics, durations from a server's
// metadata); it runs only when plain encoding failed, in the worker.
func rewrite(v reflect.Value) reflect.Value {
	bad := func(f float64) bool { return math.IsNaN(f) || math.IsInf(f, 0) }
	switch v.Kind() {
	case reflect.Float64:
		if bad(v.Float()) {
			return reflect.Zero(v.Type())
		}
	case reflect.Pointer:
		if v.IsNil() {
			return v
		}
		e := v.Elem()
		if e.Kind() == reflect.Float64 && bad(e.Float()) {
			return reflect.Zero(v.Type())
		}
		p := reflect.New(e.Type())
		p.Elem().Set(rewrite(e))
		return p
	case reflect.Struct:
		out := reflect.New(v.Type()).Elem()
		out.Set(v)
		for i := range v.NumField() {
			if f := out.Field(i); f.CanSet() {
				f.Set(rewrite(v.Field(i)))
			}
		}
		return out
	case reflect.Slice:
		if v.IsNil() {
			return v
		}
		out := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		for i := range v.Len() {
			out.Index(i).Set(rewrite(v.Index(i)))
		}
		return out
	}
	return v
}
