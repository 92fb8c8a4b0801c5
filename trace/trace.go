package trace

import "encoding/json"

// Format is the only accepted value of a document's "format" key.
const Format = "duplex-trace/v1"

// Kinds of trace document.
const (
	KindSession    = "session"
	KindRun        = "run"
	KindEngineTPOT = "engine_tpot"
)

// Directions of an Event.
const (
	DirSend  = "send"
	DirRecv  = "recv"
	DirLocal = "local" // client annotation, never a wire event
)

// Event is one entry of a session trace.
type Event struct {
	TMs   float64         `json:"t_ms"`
	Dir   string          `json:"dir"`
	Event json.RawMessage `json:"event"`
}

// Session is a kind "session" document (also an element of a run's sessions).
// Meta is kept raw-capable: see SessionMeta for the null/missing rules.
type Session struct {
	Format      string      `json:"format,omitempty"`
	Kind        string      `json:"kind,omitempty"`
	Description string      `json:"description,omitempty"`
	Skipped     bool        `json:"skipped,omitempty"`
	Session     SessionMeta `json:"session"`
	Events      []Event     `json:"events"`
}

// SessionMeta is the "session" object of a session trace. Pointer fields are
// omitted when nil. Extra carries duplexscope's own annotations (target URL,
// frame size, pacing) that metrics ignore.
type SessionMeta struct {
	SampleID             *string         `json:"sample_id,omitempty"`
	Split                *string         `json:"split,omitempty"`
	SessionID            *string         `json:"session_id,omitempty"`
	InputAudioDurationMs *float64        `json:"input_audio_duration_ms,omitempty"`
	StreamStartMs        *float64        `json:"stream_start_ms,omitempty"`
	Extra                json.RawMessage `json:"duplexscope,omitempty"`
}
