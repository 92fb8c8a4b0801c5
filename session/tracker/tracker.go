package tracker

import (
	"encoding/json"
	"math"

	"github.com/duplexscope/duplexscope/audio"
	"github.com/duplexscope/duplexscope/metrics"
	"github.com/duplexscope/duplexscope/session"
	"github.com/duplexscope/duplexscope/trace"
)

// Marker kinds the tracker sets (the chart package's names for them).
const (
	MarkCreated    = "response.created"
	MarkFirstText  = "first text"
	MarkFirstAudio = "first audio"
	MarkCleared    = "buffer cleared"
	MarkDone       = "response.done"
)

// Mark is one instant on the model lane: TS is seconds from stream start.
type Mark struct {
	TS         float64
	Kind       string
	ResponseID string
}

// Caption is a model caption: the response's transcript so far, at the
// instant its first text arrived.
type Caption struct {
	TS   float64
	Text string
}

// Level is the loudness of one model audio chunk at its receive instant.
type Level struct{ TS, Level float64 }

// Response is what the views show of one response, from the wire. Its
// playback (played samples, underruns) is the player's, not the wire's,
// and is kept by whoever owns the player reports.
type Response struct {
	ID           string
	CreatedMs    float64 // client receive clock, 0 = not seen
	FirstAudioMs float64 // client receive clock, 0 = none played
	AudioBytes   int     // audio given to the player (24 kHz PCM16)
	Done         bool
	AudioDone    bool
	Truncated    bool // cancelled by the server or its buffer cleared
	Transcript   string
	Caption      int  // index of its caption + 1 (0: none yet)
	dirty        bool // changed since the last Delta
}

// ReceivedMs is the audio received for the response so far (ms).
func (r *Response) ReceivedMs() float64 { return float64(r.AudioBytes) / 48 } // 24 kHz PCM16: 48 bytes per ms

// Update is what one wire-log entry changed, for the caller's player, its
// audio store and its publishing.
type Update struct {
	Received *session.Received // the decoded received event (OK)
	OK       bool
	Action   session.PlayAction // the player's rule (session.PlaybackFeed)
	// FirstAudio: the response's first audio went to the player;
	// CreatedMs is then its response.created receive instant (or the
	// first audio's, when created was not seen).
	FirstAudio bool
	CreatedMs  float64
	// Boundary: a response finished or its first audio arrived — a
	// moment the views should show at once.
	Boundary bool
}

// Tracker follows a session's wire log event by event. The zero value is
// not ready: use New.
type Tracker struct {
	streamStartMs float64
	started       bool
	acc           metrics.Accumulator
	feed          session.PlaybackFeed
	resp          map[string]*Response
	order         []string
	marks         []Mark
	captions      []Caption
	levels        []Level
	legacy        bool
	lags          []float64
	log           Log
	sent          cursor   // what the last Delta carried
	changed       []string // ids of the responses changed since the last Delta, in that order
	captionFrom   int      // first caption changed since the last Delta
	metricsSeq    int      // Metrics.Seq of the last Delta with metrics
}

// New returns an empty tracker.
func New() *Tracker { return &Tracker{resp: map[string]*Response{}} }

// Add follows the next wire-log entry (trace order). rx is the session's
// decode of a received event (Observer.OnEvent); nil decodes it here, for
// a recorded wire log.
func (t *Tracker) Add(ev trace.Event, rx *session.Received) Update {
	t.acc.Add(ev)
	switch ev.Dir {
	case trace.DirLocal:
		t.log.Add(ev)
		t.noteLocal(ev)
		return Update{}
	case trace.DirRecv:
	default:
		t.log.Add(ev)
		return Update{}
	}
	if rx == nil {
		rx, _ = session.DecodeReceived(ev.Event)
	}
	switch { // the log's type, from the one decode
	case rx == nil || rx.Type == "":
		t.log.add(ev, notAnEvent)
	default:
		t.log.add(ev, rx.Type)
	}
	if rx == nil {
		return Update{}
	}
	u := Update{Received: rx, OK: true}
	u.Action, _ = t.feed.Action(rx)
	t.apply(ev.TMs, rx, &u)
	if rs := t.resp[rx.ID]; rs != nil && !rs.dirty {
		rs.dirty = true
		t.changed = append(t.changed, rx.ID)
	}
	return u
}

// apply updates the state of the response the event names.
func (t *Tracker) apply(tMs float64, in *session.Received, u *Update) {
	id := in.ID
	ts := (tMs - t.streamStartMs) / 1000
	switch {
	case in.Type == "response.created":
		if id != "" && t.resp[id] == nil {
			t.resp[id] = &Response{ID: id, CreatedMs: tMs}
			t.order = append(t.order, id)
			t.marks = append(t.marks, Mark{TS: ts, Kind: MarkCreated, ResponseID: id})
		}
	case session.IsAudioDelta(in.Type):
		if in.Type == "response.audio.delta" {
			t.legacy = true
		}
		rs := t.ensure(id)
		if rs == nil || u.Action != session.PlayPush {
			return
		}
		if rs.FirstAudioMs == 0 {
			rs.FirstAudioMs = tMs
			t.marks = append(t.marks, Mark{TS: ts, Kind: MarkFirstAudio, ResponseID: id})
			// The model's next turn is a response that speaks: a
			// "listen" decision (created, no audio) is not one.
			u.FirstAudio, u.CreatedMs = true, rs.CreatedMs
			if u.CreatedMs == 0 {
				u.CreatedMs = tMs
			}
			u.Boundary = true
		}
		pcm := in.PCM()
		rs.AudioBytes += len(pcm)
		t.levels = append(t.levels, Level{TS: ts, Level: math.Min(1.1, audio.RMSPCM16(pcm)*4)})
	case session.IsTextDelta(in.Type):
		rs := t.ensure(id)
		if rs == nil || in.Text == "" {
			return
		}
		if rs.Caption == 0 {
			t.marks = append(t.marks, Mark{TS: ts, Kind: MarkFirstText, ResponseID: id})
			t.captions = append(t.captions, Caption{TS: ts})
			rs.Caption = len(t.captions)
		}
		rs.Transcript += in.Text
		t.captions[rs.Caption-1].Text = ClipText(rs.Transcript, 40)
		t.captionFrom = min(t.captionFrom, rs.Caption-1)
	case in.Type == "response.output_audio.done" || in.Type == "response.audio.done":
		if rs := t.resp[id]; rs != nil {
			rs.AudioDone = true
		}
	case in.Type == "response.done":
		u.Boundary = true
		if rs := t.resp[id]; rs != nil {
			rs.Done = true
			// Cancelled by the server (barge-in) before any audio: no
			// buffer to clear, but the response was cut off all the same.
			rs.Truncated = rs.Truncated || in.Status == "cancelled"
			t.marks = append(t.marks, Mark{TS: ts, Kind: MarkDone, ResponseID: id})
		}
	case in.Type == "output_audio_buffer.cleared":
		if rs := t.resp[id]; rs != nil {
			rs.Truncated = true
			t.marks = append(t.marks, Mark{TS: ts, Kind: MarkCleared, ResponseID: id})
		}
	}
}

// ensure returns id's state, creating it for events seen before created.
func (t *Tracker) ensure(id string) *Response {
	if id == "" {
		return nil
	}
	rs := t.resp[id]
	if rs == nil {
		rs = &Response{ID: id}
		t.resp[id] = rs
		t.order = append(t.order, id)
	}
	return rs
}

// noteLocal reads the session's local entries the views use: the stream
// start (metrics.LocalStreamStart, the first append's send stamp, as the
// accumulator reads it) and each append's pacing lag.
func (t *Tracker) noteLocal(ev trace.Event) {
	var p struct {
		Type  string  `json:"type"`
		LagMs float64 `json:"lag_ms"`
	}
	if json.Unmarshal(ev.Event, &p) != nil {
		return
	}
	switch p.Type {
	case "duplexscope.pacing":
		t.lags = append(t.lags, p.LagMs)
	case metrics.LocalStreamStart:
		if !t.started {
			t.streamStartMs, t.started = ev.TMs, true
		}
	}
}

// StreamStartMs is the first append's send stamp (0 before it).
func (t *Tracker) StreamStartMs() float64 { return t.streamStartMs }

// Result is the metrics of the events so far (what `duplexscope replay`
// computes of the wire log up to now).
func (t *Tracker) Result() metrics.SessionResult { return t.acc.Snapshot() }

// Response returns id's state (nil: not seen). The caller must not keep it
// past its next Add.
func (t *Tracker) Response(id string) *Response { return t.resp[id] }

// Order is the responses' ids in the order they were first seen.
func (t *Tracker) Order() []string { return t.order }

// Known reports whether the player was given audio of id (its playback
// reports concern a response this session sent).
func (t *Tracker) Known(id string) bool { return t.feed.Known(id) }

// Marks, Captions and Levels are the timeline's model lane so far; the
// slices are the tracker's (append-only: a caller may keep a prefix).
func (t *Tracker) Marks() []Mark { return t.marks }

// Captions: see Marks. A caption's text grows with its transcript.
func (t *Tracker) Captions() []Caption { return t.captions }

// Levels: see Marks.
func (t *Tracker) Levels() []Level { return t.levels }

// Legacy reports whether legacy event names (response.audio.delta) came.
func (t *Tracker) Legacy() bool { return t.legacy }

// PacingLagsMs are the duplexscope.pacing notes' lags so far.
func (t *Tracker) PacingLagsMs() []float64 { return t.lags }

// Log is the folded event log.
func (t *Tracker) Log() *Log { return &t.log }

// ClipText shortens s to n runes, ending it with "…" when cut.
func ClipText(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
