package loadcurve

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/duplexscope/duplexscope/metrics"
	"github.com/duplexscope/duplexscope/trace"
)

// DefaultLevels are the concurrency levels of a load curve when none are given.
var DefaultLevels = []int{1, 2, 4, 8, 16}

// MaxLevel bounds one level's sessions.
const MaxLevel = 4096

// Clock labels a load curve's numbers.
const Clock = "TTFP: server clock when reported, else client receive clock; RTF: client receive clock; pacing lag: client send clock; underruns: runner playback clock"

// Response is one response of a load session.
type Response struct {
	TTFPMs    float64  `json:"ttfp_ms"`
	TTFPClock string   `json:"ttfp_clock"` // metrics.ClockServer or metrics.ClockClientReceive
	RTF       *float64 `json:"rtf,omitempty"`
}

// Session is one session of one level as its runner measured it.
type Session struct {
	Level int `json:"level"`
	// Index is the session's slot in its level: 0…N−1, N for the joiner.
	Index  int  `json:"index"`
	Joiner bool `json:"joiner,omitempty"`
	// Runner names who ran it ("cli", "browser", "shard 2/3", …).
	Runner    string     `json:"runner,omitempty"`
	SessionID string     `json:"session_id,omitempty"`
	Error     string     `json:"error,omitempty"`
	Responses []Response `json:"responses"`
	Underruns int        `json:"underruns"`
	// PacingLagMs are the input frames' send lags (ms, client send clock).
	PacingLagMs []float64 `json:"pacing_lag_ms,omitempty"`
}

// Level is one level of a load curve: N concurrent paced sessions plus one
// that joined while they ran (join_ttfp_ms).
type Level struct {
	Sessions       int      `json:"sessions"`
	Failed         int      `json:"failed"`
	Responses      int      `json:"responses"`
	TTFPP50Ms      *float64 `json:"ttfp_p50_ms"`
	TTFPP99Ms      *float64 `json:"ttfp_p99_ms"`
	TTFPOrigin     string   `json:"ttfp_origin"`
	RTFP50         *float64 `json:"rtf_p50"`
	PacingLagP99Ms float64  `json:"pacing_lag_p99_ms"`
	PacingLagMaxMs float64  `json:"pacing_lag_max_ms"`
	Underruns      int      `json:"underruns"`
	JoinTTFPMs     *float64 `json:"join_ttfp_ms"` // first response of the session that joined later
	JoinTTFPOrigin string   `json:"join_ttfp_origin,omitempty"`
	// Reported counts the sessions (joiner included) whose results are in;
	// a level is complete when Reported = Sessions + 1.
	Reported    int     `json:"reported"`
	WallSeconds float64 `json:"wall_s"`
	// CPUSecondsPerSession is the runner processes' CPU time over the level
	// divided by their sessions; PeakHeapMiB the largest in-use heap
	// sampled. Zero where a runner cannot measure them (a browser).
	CPUSecondsPerSession float64  `json:"cpu_s_per_session"`
	PeakHeapMiB          float64  `json:"peak_heap_mib"`
	FailureMessages      []string `json:"failures,omitempty"`
}

// Complete reports whether every session of the level (and its joiner) reported.
func (l Level) Complete() bool { return l.Reported >= l.Sessions+1 }

// Origin strings of TTFPOrigin.
const (
	OriginServer = "server clock"
	OriginClient = "client receive clock"
	OriginMixed  = "mixed"
)

// ParseLevels reads "1,2,4,8,16": positive, at most MaxLevel, no repeats.
// An empty string gives DefaultLevels.
func ParseLevels(s string) ([]int, error) {
	if strings.TrimSpace(s) == "" {
		return append([]int(nil), DefaultLevels...), nil
	}
	var out []int
	seen := map[int]bool{}
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 || n > MaxLevel {
			return nil, fmt.Errorf("level %q, want an integer 1…%d", strings.TrimSpace(f), MaxLevel)
		}
		if seen[n] {
			return nil, fmt.Errorf("level %d given twice", n)
		}
		seen[n] = true
		out = append(out, n)
	}
	return out, nil
}

// Slots returns the session indexes of level n that shard i (1-based) of
// count runs: k with k mod count = i−1. The joiner (index n) belongs to
// shard 1. count ≤ 1 means one runner runs them all.
func Slots(n, shard, count int) (slots []int, joiner bool) {
	if count <= 1 {
		shard, count = 1, 1
	}
	for k := 0; k < n; k++ {
		if k%count == shard-1 {
			slots = append(slots, k)
		}
	}
	return slots, shard == 1
}

// Summarize pools the sessions of level n (others are ignored).
func Summarize(n int, sessions []Session) Level {
	lv := Level{Sessions: n}
	var ttfp, rtf, lags []float64
	server, client := 0, 0
	joinIdx := -1
	for _, s := range sessions {
		if s.Level != n {
			continue
		}
		lv.Reported++
		if s.Error != "" {
			lv.Failed++
			lv.FailureMessages = append(lv.FailureMessages, s.Error)
		}
		lv.Underruns += s.Underruns
		if s.Joiner {
			// Several joiners (a re-run) keep the lowest index: deterministic.
			if len(s.Responses) > 0 && (joinIdx < 0 || s.Index < joinIdx) {
				joinIdx = s.Index
				v := s.Responses[0].TTFPMs
				lv.JoinTTFPMs, lv.JoinTTFPOrigin = &v, originOf(s.Responses[0].TTFPClock)
			}
			continue
		}
		lags = append(lags, s.PacingLagMs...)
		for _, r := range s.Responses {
			ttfp = append(ttfp, r.TTFPMs)
			if r.TTFPClock == string(metrics.ClockServer) {
				server++
			} else {
				client++
			}
			if r.RTF != nil {
				rtf = append(rtf, *r.RTF)
			}
		}
	}
	lv.Responses = len(ttfp)
	if s := metrics.Summarize(ttfp, 3); s != nil {
		lv.TTFPP50Ms, lv.TTFPP99Ms = &s.P50, &s.P99
	}
	if s := metrics.Summarize(rtf, 6); s != nil {
		lv.RTFP50 = &s.P50
	}
	switch {
	case server+client == 0:
		// no response: no clock to name
	case server > 0 && client == 0:
		lv.TTFPOrigin = OriginServer
	case server == 0:
		lv.TTFPOrigin = OriginClient
	default:
		lv.TTFPOrigin = OriginMixed
	}
	if s := metrics.Summarize(lags, 3); s != nil {
		lv.PacingLagP99Ms = s.P99
		sort.Float64s(lags)
		lv.PacingLagMaxMs = metrics.Round(lags[len(lags)-1], 3)
	}
	return lv
}

func originOf(c string) string {
	if c == string(metrics.ClockServer) {
		return OriginServer
	}
	return OriginClient
}

// Curve summarises every level: those of levels in that order, then any
// other level some session reported, ascending.
func Curve(levels []int, sessions []Session) []Level {
	order := append([]int(nil), levels...)
	seen := map[int]bool{}
	for _, n := range order {
		seen[n] = true
	}
	var extra []int
	for _, s := range sessions {
		if !seen[s.Level] {
			seen[s.Level] = true
			extra = append(extra, s.Level)
		}
	}
	sort.Ints(extra)
	out := make([]Level, 0, len(order)+len(extra))
	for _, n := range append(order, extra...) {
		out = append(out, Summarize(n, sessions))
	}
	return out
}

// FromTrace describes a finished session from its wire log: each metrics
// row's TTFP (with its clock) and RTF, the playback underruns (a
// duplexscope.playback_end note with underrun_ms > 0, as the session
// package's playback writes them) and the input lags given (ms).
func FromTrace(t trace.Session, lagsMs []float64) Session {
	s := Session{Responses: []Response{}}
	if t.Session.SessionID != nil {
		s.SessionID = *t.Session.SessionID
	}
	s.Responses = Responses(metrics.ScoreSession(t).Rows)
	s.Underruns = Underruns(t)
	for _, l := range lagsMs {
		s.PacingLagMs = append(s.PacingLagMs, metrics.Round(l, 3))
	}
	return s
}

// Responses are the rows' finished responses (each one's TTFP with its
// clock, and RTF): a finished session's, or a running one's so far from
// its accumulator (the live view on either thread). Never nil.
func Responses(rows []metrics.Row) []Response {
	out := []Response{}
	for _, row := range rows {
		if row.Raw != nil {
			out = append(out, Response{TTFPMs: row.Raw.TTFPMs, TTFPClock: string(row.Raw.TTFPClock), RTF: row.Raw.RTF})
		}
	}
	return out
}

var playbackEnd = []byte(`"duplexscope.playback_end"`)

// Underruns counts the playback underruns a wire log's notes record.
func Underruns(t trace.Session) int {
	n := 0
	for _, e := range t.Events {
		if e.Dir != trace.DirLocal || !bytes.Contains(e.Event, playbackEnd) {
			continue
		}
		var ev struct {
			UnderrunMs float64 `json:"underrun_ms"`
		}
		if json.Unmarshal(e.Event, &ev) == nil && ev.UnderrunMs > 0 && !math.IsNaN(ev.UnderrunMs) {
			n++
		}
	}
	return n
}
