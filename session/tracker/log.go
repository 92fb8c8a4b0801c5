package tracker

import (
	"encoding/json"
	"strings"

	"github.com/duplexscope/duplexscope/trace"
)

// LogRow is one event-log line; runs of the same direction and type (audio
// and text deltas above all) fold into one row with a count.
type LogRow struct {
	TMs    float64 // first event of the run, trace clock
	LastMs float64
	Dir    string
	Type   string
	Count  int
	JSON   string // first event, audio payload elided
}

// MaxLogRows bounds the log kept for display (the wire log keeps everything).
const MaxLogRows = 5000

// Log folds wire-log entries for display.
type Log struct {
	rows    []LogRow
	dropped int
}

// Add appends ev, folding it into the previous row when dir and type match.
func (l *Log) Add(ev trace.Event) { l.add(ev, eventType(ev.Event)) }

// add is Add with the event's type already read ("(not an event)" when it
// is not a JSON object with a string type): a received audio delta is tens
// of kB, and one JSON pass over it costs the session worker about a
// millisecond in wasm.
func (l *Log) add(ev trace.Event, typ string) {
	if n := len(l.rows); n > 0 {
		last := &l.rows[n-1]
		if last.Dir == ev.Dir && last.Type == typ {
			last.Count++
			last.LastMs = ev.TMs
			return
		}
	}
	if len(l.rows) >= MaxLogRows {
		copy(l.rows, l.rows[1:])
		l.rows = l.rows[:len(l.rows)-1]
		l.dropped++
	}
	l.rows = append(l.rows, LogRow{TMs: ev.TMs, LastMs: ev.TMs, Dir: ev.Dir, Type: typ, Count: 1, JSON: Elide(ev.Event)})
}

// Last returns a copy of the last n rows (all when fewer).
func (l *Log) Last(n int) []LogRow {
	rows := l.rows
	if len(rows) > n {
		rows = rows[len(rows)-n:]
	}
	return append([]LogRow(nil), rows...)
}

// Dropped counts rows that fell off the front (MaxLogRows).
func (l *Log) Dropped() int { return l.dropped }

// notAnEvent is the log's type of an entry that is not a JSON object with
// a string type.
const notAnEvent = "(not an event)"

func eventType(raw []byte) string {
	var t struct {
		Type string `json:"type"`
	}
	if json.Unmarshal(raw, &t) != nil || t.Type == "" {
		return notAnEvent
	}
	return t.Type
}

// elideKeep is how much of a long base64 payload the log keeps.
const elideKeep = 64

// Elide shortens base64 audio payloads ("delta" and "audio" string values
// longer than 64 base64 characters) so the log stays readable; input past
// 16 KiB is cut first. A hand-written scan, not a regexp: the session
// worker's wasm stays small.
func Elide(raw []byte) string {
	if len(raw) > 16384 {
		raw = raw[:16384]
	}
	s := string(raw)
	var b strings.Builder
	for {
		i, key := nextPayload(s)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		start := i + len(key)
		n := 0
		for start+n < len(s) && isBase64(s[start+n]) {
			n++
		}
		if n < elideKeep || start+n >= len(s) || s[start+n] != '"' {
			// No match here; one may start inside this key's value.
			b.WriteString(s[:i+1])
			s = s[i+1:]
			continue
		}
		b.WriteString(s[:start+elideKeep])
		b.WriteString("…")
		s = s[start+n:]
	}
}

// nextPayload finds the first `"delta":"` or `"audio":"` in s.
func nextPayload(s string) (int, string) {
	const d, a = `"delta":"`, `"audio":"`
	i, j := strings.Index(s, d), strings.Index(s, a)
	switch {
	case i < 0 && j < 0:
		return -1, ""
	case j < 0 || (i >= 0 && i < j):
		return i, d
	default:
		return j, a
	}
}

func isBase64(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '='
}
