//go:build !js

package sim

import (
	"encoding/json"
	"sync"
)

// Truth is one session's ground truth as GET /sim/sessions/{id}/truth
// serves it. All times are server-monotonic milliseconds (the simulator's
// Clock), taken just before each frame is handed to the websocket write.
type Truth struct {
	SessionID  string          `json:"session_id"`
	Profile    string          `json:"profile"`
	Faults     []string        `json:"faults"`
	Behaviors  []string        `json:"behaviors"`
	EventNames string          `json:"event_names"`
	OpenedMs   float64         `json:"opened_ms"`
	EndedMs    *float64        `json:"ended_ms"`
	EndReason  string          `json:"end_reason,omitempty"` // client_close, disconnect, config_timeout, idle_timeout, unexpected_close, client_gone, server_shutdown
	Responses  []TruthResponse `json:"responses"`
	Events     []TruthEvent    `json:"events"`
	// EventsDropped counts events not listed because the session passed
	// MaxTruthEvents (responses are always complete).
	EventsDropped int `json:"events_dropped"`
	// VideoFramesReceived counts the video frames of accepted appends;
	// VideoFrames says which append carried each (video.go).
	VideoFramesReceived int               `json:"video_frames_received"`
	VideoFrames         []TruthVideoFrame `json:"video_frames"`
}

// MaxTruthEvents bounds the events listed per session, so long soak
// sessions keep flat memory.
const MaxTruthEvents = 20000

// addEvent appends ev unless the session is over the cap. Callers hold r.mu.
func (t *Truth) addEvent(ev TruthEvent) {
	if len(t.Events) >= MaxTruthEvents {
		t.EventsDropped++
		return
	}
	t.Events = append(t.Events, ev)
}

// TruthResponse is one response's true timings. ttft_ms/ttfp_ms are
// measured from start_ms (the accept time of the append that triggered the
// model turn) and equal exactly the values the server reported in
// response_request_metrics; tpot_ms is the last reported stage-0
// vllm_tpot_ms; rtf = (last_audio_ms − created_ms) / audio_ms, the client
// definition applied to server emit times.
type TruthResponse struct {
	ResponseID   string   `json:"response_id"`
	Kind         string   `json:"kind"` // "speak" | "listen"
	Status       string   `json:"status"`
	StartMs      float64  `json:"start_ms"`
	CreatedMs    *float64 `json:"created_ms"`
	FirstTextMs  *float64 `json:"first_text_ms"`
	FirstAudioMs *float64 `json:"first_audio_ms"`
	LastAudioMs  *float64 `json:"last_audio_ms"`
	DoneMs       *float64 `json:"done_ms"`
	AudioMs      float64  `json:"audio_ms"` // audio actually sent, at the output rate
	TTFTMs       *float64 `json:"ttft_ms"`
	TTFPMs       *float64 `json:"ttfp_ms"`
	TPOTMs       *float64 `json:"tpot_ms"`
	RTF          *float64 `json:"rtf"`
	NumTokensOut int      `json:"num_tokens_out"`
	AudioPackets int      `json:"audio_packets"`
}

// TruthEvent is one emitted frame.
type TruthEvent struct {
	Type       string  `json:"type"`
	ResponseID string  `json:"response_id,omitempty"`
	TMs        float64 `json:"t_ms"`
	Replay     bool    `json:"replay,omitempty"` // replayed_events: a resend with its original server_event_seq
}

// truthRec is the live, locked truth of a session.
type truthRec struct {
	mu sync.Mutex
	t  Truth
}

func (r *truthRec) snapshot() ([]byte, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.t.VideoFrames == nil {
		r.t.VideoFrames = []TruthVideoFrame{}
	}
	return json.Marshal(&r.t)
}

// truthStore keeps the last n sessions' truth.
type truthStore struct {
	mu    sync.Mutex
	n     int
	byID  map[string]*truthRec
	order []string
}

func newTruthStore(n int) *truthStore {
	if n <= 0 {
		n = 1000
	}
	return &truthStore{n: n, byID: map[string]*truthRec{}}
}

func (s *truthStore) add(id string, rec *truthRec) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.byID[id] = rec
	s.order = append(s.order, id)
	for len(s.order) > s.n {
		delete(s.byID, s.order[0])
		s.order = s.order[1:]
	}
}

func (s *truthStore) get(id string) *truthRec {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.byID[id]
}

func (s *truthStore) ids() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string{}, s.order...)
}
