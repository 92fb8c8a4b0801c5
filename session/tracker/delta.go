package tracker

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/duplexscope/duplexscope/metrics"
)

// State is what the live views read of a session's wire log: a Tracker
// where the session runs, a View where its Deltas arrive (the page, with
// the session in the worker).
type State interface {
	StreamStartMs() float64
	Order() []string
	Response(id string) *Response
	Marks() []Mark
	Captions() []Caption
	Levels() []Level
	Legacy() bool
	PacingLagsMs() []float64
	LogRows(n int) []LogRow
	Result() metrics.SessionResult
}

// LogRows returns a copy of the last n event-log rows.
func (t *Tracker) LogRows(n int) []LogRow { return t.log.Last(n) }

// cursor is how much of each append-only list a Delta has carried.
type cursor struct {
	marks, levels, lags int
	logRows             int // absolute row index (rows dropped + index)
}

// Delta is what changed since the previous Delta. Lists that only grow
// come as their new tails; captions from the first changed one; changed
// responses whole, in the order first seen; the metrics only when asked.
type Delta struct {
	StreamStartMs float64                `json:"stream_start_ms"`
	Responses     []Response             `json:"responses,omitempty"`
	Marks         []Mark                 `json:"marks,omitempty"`
	CaptionsFrom  int                    `json:"captions_from"`
	Captions      []Caption              `json:"captions,omitempty"`
	Levels        []Level                `json:"levels,omitempty"`
	Lags          []float64              `json:"lags,omitempty"`
	Legacy        bool                   `json:"legacy,omitempty"`
	LogFrom       int                    `json:"log_from"` // absolute index of Log[0]
	Log           []LogRow               `json:"log,omitempty"`
	Result        *metrics.SessionResult `json:"-"`
	// ResultWire carries Result through Encode and Decode: the metrics
	// types write the reference's layout, which does not read back.
	ResultWire *resultWire `json:"result,omitempty"`
	Escaped    bool        `json:"escaped,omitempty"` // strings escaped (Encode)
}

// resultWire is metrics.SessionResult with Go's own JSON: defined types
// drop the reference-layout MarshalJSON methods.
type resultWire struct {
	Rows         []rowWire
	Summary      summaryWire
	OutputTokens metrics.Int
	Responses    []metrics.ResponseTiming
	Counts       metrics.Counts
	Faults       []metrics.Fault
}

type (
	rowWire     metrics.Row
	summaryWire metrics.SessionSummary
)

func toWire(r metrics.SessionResult) *resultWire {
	w := &resultWire{Summary: summaryWire(r.Summary), OutputTokens: r.OutputTokens, Responses: r.Responses, Counts: r.Counts, Faults: r.Faults}
	w.Rows = make([]rowWire, len(r.Rows))
	for i, row := range r.Rows {
		w.Rows[i] = rowWire(row)
	}
	return w
}

func (w *resultWire) result() metrics.SessionResult {
	r := metrics.SessionResult{Summary: metrics.SessionSummary(w.Summary), OutputTokens: w.OutputTokens, Responses: w.Responses, Counts: w.Counts, Faults: w.Faults}
	r.Rows = make([]metrics.Row, len(w.Rows))
	for i, row := range w.Rows {
		r.Rows[i] = metrics.Row(row)
	}
	return r
}

// MaxViewLogRows is how many event-log rows a View keeps (what the log
// view shows).
const MaxViewLogRows = 1000

// Delta returns what changed since the last call and moves the cursor;
// withResult adds the metrics (O(responses): callers throttle it).
func (t *Tracker) Delta(withResult bool) Delta {
	d := Delta{StreamStartMs: t.streamStartMs, Legacy: t.legacy, CaptionsFrom: t.captionFrom}
	for _, id := range t.order {
		if t.changed[id] {
			d.Responses = append(d.Responses, *t.resp[id])
		}
	}
	clear(t.changed)
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
	t.sent = cursor{marks: len(t.marks), levels: len(t.levels), lags: len(t.lags), logRows: total}
	t.captionFrom = len(t.captions)
	if withResult {
		r := t.acc.Snapshot()
		d.Result = &r
	}
	return d
}

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
}

// NewView returns an empty view.
func NewView() *View { return &View{resp: map[string]*Response{}} }

// Merge applies d; it returns the responses whose first audio d brings
// (probes follow the model's next turn by it).
func (v *View) Merge(d Delta) (firstAudio []Response) {
	v.streamStartMs, v.legacy = d.StreamStartMs, v.legacy || d.Legacy
	for _, r := range d.Responses {
		old := v.resp[r.ID]
		if old == nil {
			v.order = append(v.order, r.ID)
			old = &Response{}
		}
		if r.FirstAudioMs != 0 && old.FirstAudioMs == 0 {
			firstAudio = append(firstAudio, r)
		}
		v.resp[r.ID] = &r
	}
	v.marks = append(v.marks, d.Marks...)
	v.levels = append(v.levels, d.Levels...)
	v.lags = append(v.lags, d.Lags...)
	if d.CaptionsFrom <= len(v.captions) {
		v.captions = append(v.captions[:d.CaptionsFrom], d.Captions...)
	}
	v.mergeLog(d.LogFrom, d.Log)
	if d.Result != nil {
		v.result = *d.Result
	}
	return firstAudio
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
// only — the report is scored from the wire log, exactly; and strings that
// are not UTF-8 (a response id with a lone surrogate) would collapse into
// U+FFFD, so they travel escaped (Decode restores them).
func Encode(d Delta) ([]byte, error) {
	if d.Result != nil {
		d.ResultWire = toWire(*d.Result)
	}
	b, err := json.Marshal(d)
	if err == nil && !bytes.Contains(b, []byte(`\ufffd`)) {
		return b, nil
	}
	d.Escaped = true
	d = rewrite(reflect.ValueOf(d), escapeString).Interface().(Delta)
	return json.Marshal(d)
}

// Decode reads a Delta written by Encode.
func Decode(b []byte) (Delta, error) {
	var d Delta
	if err := json.Unmarshal(b, &d); err != nil {
		return Delta{}, err
	}
	if d.Escaped {
		d = rewrite(reflect.ValueOf(d), unescapeString).Interface().(Delta)
		d.Escaped = false
	}
	if d.ResultWire != nil {
		r := d.ResultWire.result()
		d.Result, d.ResultWire = &r, nil
	}
	return d, nil
}

// escapeMark starts an escaped string: a noncharacter no id begins with
// (one that does is escaped too, so the mapping is one to one).
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

// rewrite deep-copies v with str applied to its strings, its non-finite
// floats zeroed and its pointers to a non-finite float nil (JSON null).
// Reflection, because such values hide anywhere in a row (engine metrics,
// ids); it runs only when plain encoding failed.
func rewrite(v reflect.Value, str func(string) string) reflect.Value {
	bad := func(f float64) bool { return math.IsNaN(f) || math.IsInf(f, 0) }
	switch v.Kind() {
	case reflect.String:
		out := reflect.New(v.Type()).Elem()
		out.SetString(str(v.String()))
		return out
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
		p.Elem().Set(rewrite(e, str))
		return p
	case reflect.Struct:
		out := reflect.New(v.Type()).Elem()
		out.Set(v)
		for i := range v.NumField() {
			if f := out.Field(i); f.CanSet() {
				f.Set(rewrite(v.Field(i), str))
			}
		}
		return out
	case reflect.Slice:
		if v.IsNil() {
			return v
		}
		out := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		for i := range v.Len() {
			out.Index(i).Set(rewrite(v.Index(i), str))
		}
		return out
	}
	return v
}
