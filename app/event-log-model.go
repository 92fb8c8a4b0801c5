package app

import (
	"encoding/json"
	"regexp"

	"github.com/duplexscope/duplexscope/trace"
)

// logRow is one event-log line; runs of the same direction and type (audio
// and text deltas above all) fold into one row with a count.
type logRow struct {
	TMs    float64 // first event of the run, session clock
	LastMs float64
	Dir    string
	Type   string
	Count  int
	JSON   string // first event, audio payload elided
}

// maxLogRows bounds the log kept for display (the wire log keeps everything).
const maxLogRows = 5000

// eventLog folds wire-log entries for display.
type eventLog struct {
	rows    []logRow
	dropped int
}

var payloadRE = regexp.MustCompile(`"(delta|audio)":"([A-Za-z0-9+/=]{64})[A-Za-z0-9+/=]*"`)

// elide shortens base64 audio payloads so the log stays readable.
func elide(raw []byte) string {
	if len(raw) > 16384 {
		raw = raw[:16384]
	}
	return payloadRE.ReplaceAllString(string(raw), `"$1":"$2…"`)
}

func eventType(raw []byte) string {
	var t struct {
		Type string `json:"type"`
	}
	if json.Unmarshal(raw, &t) != nil || t.Type == "" {
		return "(not an event)"
	}
	return t.Type
}

// add appends ev, folding it into the previous row when dir and type match.
func (l *eventLog) add(ev trace.Event) {
	typ := eventType(ev.Event)
	if n := len(l.rows); n > 0 {
		last := &l.rows[n-1]
		if last.Dir == ev.Dir && last.Type == typ {
			last.Count++
			last.LastMs = ev.TMs
			return
		}
	}
	if len(l.rows) >= maxLogRows {
		copy(l.rows, l.rows[1:])
		l.rows = l.rows[:len(l.rows)-1]
		l.dropped++
	}
	l.rows = append(l.rows, logRow{TMs: ev.TMs, LastMs: ev.TMs, Dir: ev.Dir, Type: typ, Count: 1, JSON: elide(ev.Event)})
}

// snapshot returns a copy of the rows.
func (l *eventLog) snapshot() []logRow {
	return append([]logRow(nil), l.rows...)
}
