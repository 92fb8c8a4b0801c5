//go:build !js

package server

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/duplexscope/duplexscope/audio"
	"github.com/duplexscope/duplexscope/chart"
	"github.com/duplexscope/duplexscope/report"
	"github.com/duplexscope/duplexscope/server/archive"
	"github.com/duplexscope/duplexscope/trace"
)

// The share page's player: the session's input and the model's replies
// rebuilt from the stored wire log (duplex-trace/v1: every sent append and
// every received audio delta with its client-clock time) and placed on the
// session's own timeline, seconds since stream start. output.wav, by
// contrast, is the replies glued end to end.
//
// Placement rule (the one a player follows): the input frame goes out at
// its send time (client send clock); a reply packet plays at its receive
// time (client receive clock), or right after the audio queued before it,
// whichever is later; output_audio_buffer.cleared (barge-in) drops what was
// still queued. The lanes are cut at MaxListenSeconds.
const (
	// MaxListenSeconds bounds one rebuilt lane (24 kHz PCM16: 28.8 MB).
	MaxListenSeconds = 600
	// maxListenSessions bounds the players on one share page.
	maxListenSessions = 8
	inputRate         = 16000
	replyRate         = 24000
	levelBinS         = 0.1 // envelope resolution of the session timeline chart
)

// timedText is a transcript line at AtS seconds since stream start (-1:
// time unknown).
type timedText struct {
	AtS        float64
	Who        string // "user" | "model"
	Text       string
	ResponseID string
	Origin     string
}

// sessionAudio is one session's rebuilt lanes, reply starts and transcripts.
type sessionAudio struct {
	Input   []byte // PCM16 mono 16 kHz, sample 0 = stream start
	Replies []byte // PCM16 mono 24 kHz, sample 0 = stream start
	// ReplyStartS is when each response's first sample plays (seconds
	// since stream start, playback placement above), in arrival order.
	ReplyStartS map[string]float64
	ReplyOrder  []string
	Markers     []chart.Marker
	Texts       []timedText // user transcriptions and model transcripts from the wire
	Cut         bool        // a lane reached MaxListenSeconds
}

// listenEvent is the part of a wire event the player reads.
type listenEvent struct {
	Type         string          `json:"type"`
	Audio        string          `json:"audio"`
	Delta        json.RawMessage `json:"delta"`
	ResponseID   string          `json:"response_id"`
	ItemID       string          `json:"item_id"`
	SampleRateHz int             `json:"sample_rate_hz"`
	SampleRate   int             `json:"sample_rate"`
	Transcript   string          `json:"transcript"`
	Response     *struct {
		ID string `json:"id"`
	} `json:"response"`
}

func (e listenEvent) respID() string {
	if e.ResponseID == "" && e.Response != nil {
		return e.Response.ID
	}
	return e.ResponseID
}

// deltaString is delta as a string (text deltas), "" otherwise.
func (e listenEvent) deltaString() string {
	var s string
	if len(e.Delta) > 0 && json.Unmarshal(e.Delta, &s) == nil {
		return s
	}
	return ""
}

// pcmOf decodes a base64 PCM16 payload at rate and converts it to want Hz.
func pcmOf(b64 string, rate, want int) []byte {
	b, err := base64.StdEncoding.DecodeString(b64)
	if err != nil || len(b) < 2 {
		return nil
	}
	b = b[:len(b)&^1]
	if rate > 0 && rate != want {
		b = audio.FloatToPCM16(audio.Resample(audio.PCM16ToFloat(b), rate, want))
	}
	return b
}

// lane is a growing PCM16 buffer with a play cursor.
type lane struct {
	pcm    []byte
	cursor int // bytes: where the next queued audio starts
	max    int
	cut    bool
}

// place writes pcm at byte offset max(at, cursor) and returns that offset.
func (l *lane) place(at int, pcm []byte) int {
	at = max(at&^1, l.cursor, 0)
	end := at + len(pcm)
	if end > l.max {
		l.cut = true
		end = l.max
		if at >= end {
			return at
		}
		pcm = pcm[:end-at]
	}
	if end > len(l.pcm) {
		l.pcm = append(l.pcm, make([]byte, end-len(l.pcm))...)
	}
	copy(l.pcm[at:], pcm)
	l.cursor = end
	return at
}

// clear drops what was queued after byte offset at (barge-in).
func (l *lane) clear(at int) {
	at = max(at&^1, 0)
	if l.cursor > at && at < len(l.pcm) {
		clear(l.pcm[at:])
		l.pcm = l.pcm[:at]
		l.cursor = at
	}
}

// alignSession rebuilds a session's lanes from its wire log. originMs is the
// stream start on the log's clock (nil: the first sent append).
func alignSession(t trace.Session, originMs *float64) *sessionAudio {
	in := &lane{max: MaxListenSeconds * inputRate * 2}
	out := &lane{max: MaxListenSeconds * replyRate * 2}
	sa := &sessionAudio{ReplyStartS: map[string]float64{}}
	origin := 0.0
	switch {
	case originMs != nil:
		origin = *originMs
	case t.Session.StreamStartMs != nil:
		origin = *t.Session.StreamStartMs
	default:
		for _, ev := range t.Events {
			if ev.Dir == trace.DirSend && bytes.Contains(ev.Event, []byte(`"input_audio_buffer.append"`)) {
				origin = ev.TMs
				break
			}
		}
	}
	model := map[string]*timedText{}
	user := map[string]*timedText{}
	for _, ev := range t.Events {
		var e listenEvent
		if json.Unmarshal(ev.Event, &e) != nil {
			continue
		}
		s := (ev.TMs - origin) / 1000
		switch {
		case ev.Dir == trace.DirSend && (e.Type == "input_audio_buffer.append" || e.Type == "input.audio.append"):
			p := e.Audio
			if p == "" {
				p = e.deltaString()
			}
			rate := cmpOr(e.SampleRateHz, e.SampleRate, inputRate)
			if pcm := pcmOf(p, rate, inputRate); len(pcm) > 0 {
				in.place(byteAt(s, inputRate), pcm)
			}
		case ev.Dir != trace.DirRecv:
		case e.Type == "response.output_audio.delta" || e.Type == "response.audio.delta":
			p := e.deltaString()
			if p == "" {
				p = e.Audio
			}
			pcm := pcmOf(p, cmpOr(e.SampleRateHz, replyRate), replyRate)
			if len(pcm) == 0 {
				continue
			}
			id := e.respID()
			at := out.place(byteAt(s, replyRate), pcm)
			if _, seen := sa.ReplyStartS[id]; !seen && at < out.max {
				start := float64(at/2) / replyRate
				sa.ReplyStartS[id] = start
				sa.ReplyOrder = append(sa.ReplyOrder, id)
				sa.Markers = append(sa.Markers, chart.Marker{TS: s, Kind: chart.MarkFirstAudio, ResponseID: id},
					chart.Marker{TS: start, Kind: chart.MarkPlaybackStart, ResponseID: id})
			}
		case e.Type == "output_audio_buffer.cleared":
			out.clear(byteAt(s, replyRate))
			sa.Markers = append(sa.Markers, chart.Marker{TS: s, Kind: chart.MarkCleared, ResponseID: e.respID()})
		case e.Type == "response.created":
			sa.Markers = append(sa.Markers, chart.Marker{TS: s, Kind: chart.MarkCreated, ResponseID: e.respID()})
		case e.Type == "response.done":
			sa.Markers = append(sa.Markers, chart.Marker{TS: s, Kind: chart.MarkDone, ResponseID: e.respID()})
		case e.Type == "response.output_audio_transcript.delta" || e.Type == "response.audio_transcript.delta" ||
			e.Type == "response.output_text.delta" || e.Type == "response.text.delta":
			id := e.respID()
			tt := model[id]
			if tt == nil {
				tt = &timedText{AtS: s, Who: "model", ResponseID: id, Origin: "model transcript (client receive clock)"}
				model[id] = tt
			}
			tt.Text += e.deltaString()
		case e.Type == "conversation.item.input_audio_transcription.delta" || e.Type == "conversation.item.input_audio_transcription.completed":
			tt := user[e.ItemID]
			if tt == nil {
				tt = &timedText{AtS: s, Who: "user", Origin: "server's transcription of the input (client receive clock)"}
				user[e.ItemID] = tt
			}
			if e.Type == "conversation.item.input_audio_transcription.completed" {
				tt.Text = e.Transcript
			} else {
				tt.Text += e.deltaString()
			}
		}
	}
	for _, m := range []map[string]*timedText{user, model} {
		for _, tt := range m {
			if strings.TrimSpace(tt.Text) != "" {
				sa.Texts = append(sa.Texts, *tt)
			}
		}
	}
	sort.SliceStable(sa.Texts, func(i, j int) bool { return sa.Texts[i].AtS < sa.Texts[j].AtS })
	sa.Input, sa.Replies, sa.Cut = in.pcm, out.pcm, in.cut || out.cut
	// Both lanes span the same time so players and the chart line up.
	end := math.Max(float64(len(sa.Input))/2/inputRate, float64(len(sa.Replies))/2/replyRate)
	sa.Input = padTo(sa.Input, int(math.Ceil(end*inputRate))*2)
	sa.Replies = padTo(sa.Replies, int(math.Ceil(end*replyRate))*2)
	return sa
}

// byteAt is the PCM16 byte offset of s seconds at rate, s clamped to
// [0, MaxListenSeconds+1] (a wild t_ms must not overflow the conversion;
// anything past the cap is cut anyway).
func byteAt(s float64, rate int) int {
	s = min(max(s, 0), MaxListenSeconds+1)
	return int(math.Round(s*float64(rate))) * 2
}

func cmpOr(v ...int) int {
	for _, x := range v {
		if x > 0 {
			return x
		}
	}
	return 0
}

func padTo(b []byte, n int) []byte {
	if len(b) >= n {
		return b
	}
	return append(b, make([]byte, n-len(b))...)
}

// DurationS is the session's length on the timeline.
func (sa *sessionAudio) DurationS() float64 { return float64(len(sa.Replies)) / 2 / replyRate }

// mix is the input (resampled to 24 kHz) and the replies summed: what a
// listener beside the user would have heard.
func (sa *sessionAudio) mix() []byte {
	n := len(sa.Replies) / 2
	var in []float32
	if len(sa.Input) > 0 {
		in = audio.Resample(audio.PCM16ToFloat(sa.Input), inputRate, replyRate)
	}
	out := audio.PCM16ToFloat(sa.Replies)
	for i := 0; i < n && i < len(in); i++ {
		out[i] += in[i]
	}
	return audio.FloatToPCM16(out)
}

// wav returns one lane as a WAV file: "input", "replies" or "mix".
func (sa *sessionAudio) wav(laneName string) ([]byte, bool) {
	var b bytes.Buffer
	var err error
	switch laneName {
	case "input":
		err = audio.WritePCM16WAV(&b, sa.Input, inputRate)
	case "replies":
		err = audio.WritePCM16WAV(&b, sa.Replies, replyRate)
	case "mix":
		err = audio.WritePCM16WAV(&b, sa.mix(), replyRate)
	default:
		return nil, false
	}
	return b.Bytes(), err == nil
}

// levels is a lane's envelope in levelBinS bins, silent bins left out.
func levels(pcm []byte, rate int) []chart.Level {
	bin := int(levelBinS*float64(rate)) * 2
	var out []chart.Level
	for at := 0; at < len(pcm); at += bin {
		rms := audio.RMSPCM16(pcm[at:min(at+bin, len(pcm))])
		if rms < 0.003 {
			continue
		}
		out = append(out, chart.Level{TS: float64(at/2) / float64(rate), Level: math.Min(1, rms*4)})
	}
	return out
}

// listenCache keeps the most recently rebuilt sessions, up to
// listenCacheBytes of PCM: the page and the players' range requests that
// follow it ask for the same ones.
type listenCache struct {
	mu    sync.Mutex
	keys  []string
	m     map[string]*sessionAudio
	bytes int
	sem   chan struct{} // rebuilds at once (maxListenRebuilds)
}

// maxListenRebuilds bounds the wire logs decoded at once (each up to
// Config.MaxAttachment of JSON); the others wait for a turn.
const maxListenRebuilds = 2

// acquire takes a rebuild turn; release gives it back.
func (c *listenCache) acquire(ctx context.Context) error {
	c.mu.Lock()
	if c.sem == nil {
		c.sem = make(chan struct{}, maxListenRebuilds)
	}
	sem := c.sem
	c.mu.Unlock()
	select {
	case sem <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (c *listenCache) release() { <-c.sem }

const listenCacheBytes = 192 << 20

func (c *listenCache) get(k string) *sessionAudio {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m[k]
}

func (c *listenCache) put(k string, v *sessionAudio) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]*sessionAudio{}
	}
	if _, ok := c.m[k]; ok {
		return
	}
	size := len(v.Input) + len(v.Replies)
	for len(c.keys) > 0 && c.bytes+size > listenCacheBytes {
		old := c.m[c.keys[0]]
		c.bytes -= len(old.Input) + len(old.Replies)
		delete(c.m, c.keys[0])
		c.keys = c.keys[1:]
	}
	c.keys = append(c.keys, k)
	c.m[k] = v
	c.bytes += size
}

// listenSession is a session of a report that has a wire log to play.
type listenSession struct {
	Index   int // among the report's sessions with a wire log
	Session report.SessionExtra
	WireLog report.Attachment
}

// listenSessions lists the report's playable sessions (at most
// maxListenSessions).
func listenSessions(r *report.Report) []listenSession {
	var out []listenSession
	for _, se := range r.Sessions {
		if se.WireLog == "" {
			continue
		}
		for _, a := range r.Attachments {
			if a.Name == se.WireLog && a.Kind == report.AttachWireLog {
				out = append(out, listenSession{Index: len(out), Session: se, WireLog: a})
				break
			}
		}
		if len(out) == maxListenSessions {
			break
		}
	}
	return out
}

var errNoWireLog = errors.New("this session has no stored wire log")

// sessionAudioFor rebuilds (or reuses) one session's lanes.
func (s *Server) sessionAudioFor(ctx context.Context, id string, ls listenSession) (*sessionAudio, error) {
	key := id + "/" + ls.WireLog.Name + "/" + ls.WireLog.SHA256
	if sa := s.listen.get(key); sa != nil {
		return sa, nil
	}
	if err := s.listen.acquire(ctx); err != nil {
		return nil, err
	}
	defer s.listen.release()
	if sa := s.listen.get(key); sa != nil { // rebuilt while this one waited
		return sa, nil
	}
	a, err := s.cfg.Store.GetAttachment(ctx, id, ls.WireLog.Name)
	if errors.Is(err, archive.ErrNotFound) {
		return nil, errNoWireLog
	}
	if err != nil {
		return nil, err
	}
	t, err := trace.DecodeSession(a.Data)
	if err != nil {
		return nil, fmt.Errorf("wire log %s: %w", ls.WireLog.Name, err)
	}
	sa := alignSession(t, ls.Session.StreamStartMs)
	s.listen.put(key, sa)
	return sa, nil
}

// handleListenAudio serves GET /api/reports/{id}/audio/{lane}.wav
// (?session=N): one rebuilt lane of the report's Nth playable session.
func (s *Server) handleListenAudio(w http.ResponseWriter, r *http.Request) {
	id, ok := pathID(w, r)
	if !ok {
		return
	}
	laneName, ok := strings.CutSuffix(r.PathValue("file"), ".wav")
	if !ok || (laneName != "input" && laneName != "replies" && laneName != "mix") {
		writeError(w, http.StatusNotFound, "audio: want input.wav, replies.wav or mix.wav", nil)
		return
	}
	n := 0
	if v := r.URL.Query().Get("session"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 0 || n >= maxListenSessions {
			writeError(w, http.StatusBadRequest, fmt.Sprintf("session: want 0–%d", maxListenSessions-1), nil)
			return
		}
	}
	ctx, cancel := ctxTimeout(r)
	defer cancel()
	rep, err := s.loadReport(ctx, id)
	if s.storeFailed(w, err, "no report "+id, "reading the report failed", "") {
		return
	}
	ls := listenSessions(rep)
	if n >= len(ls) {
		writeError(w, http.StatusNotFound, "this report has no wire log for session "+strconv.Itoa(n)+": nothing to play", nil)
		return
	}
	sa, err := s.sessionAudioFor(ctx, id, ls[n])
	if errors.Is(err, errNoWireLog) {
		writeError(w, http.StatusNotFound, err.Error(), nil)
		return
	}
	if err != nil {
		s.log.Error("listen", "id", id, "err", err)
		writeError(w, http.StatusInternalServerError, "the wire log could not be read", nil)
		return
	}
	b, ok := sa.wav(laneName)
	if !ok {
		writeError(w, http.StatusInternalServerError, "encoding the audio failed", nil)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "audio/wav")
	h.Set("Content-Security-Policy", "default-src 'none'; sandbox")
	h.Set("Content-Disposition", `inline; filename="`+laneName+`.wav"`)
	h.Set("Cache-Control", "no-cache")
	http.ServeContent(w, r, laneName+".wav", time.Time{}, bytes.NewReader(b))
}
