package protocol

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
)

// SessionCreated confirms the session (docs/protocol.md#sessioncreated-and-sessionupdated); just
// {"type":"session.created"} — is valid.
type SessionCreated struct {
	ServerHeader
	Session              *SessionInfo `json:"session,omitempty"`
	ResumeToken          string       `json:"resume_token,omitempty"`
	Incarnation          *int64       `json:"incarnation,omitempty"`
	AttachmentGeneration *int64       `json:"attachment_generation,omitempty"`
}

// SessionUpdated answers the opening session.update once (new servers).
type SessionUpdated struct {
	ServerHeader
	Session *SessionInfo `json:"session,omitempty"`
}

// SessionInfo is the "session" object of session.created / session.updated.
type SessionInfo struct {
	ID                string        `json:"id,omitempty"`
	SessionID         string        `json:"session_id,omitempty"`
	Object            string        `json:"object,omitempty"`
	Model             string        `json:"model,omitempty"`
	Voice             string        `json:"voice,omitempty"`
	Modalities        []string      `json:"modalities,omitzero"`
	InputAudioFormat  string        `json:"input_audio_format,omitempty"`
	OutputAudioFormat string        `json:"output_audio_format,omitempty"`
	Capabilities      *Capabilities `json:"capabilities,omitempty"`

	Extra map[string]json.RawMessage `json:"-"`
}

// SessionIdentity returns id, else session_id.
func (s *SessionInfo) SessionIdentity() string {
	if s == nil {
		return ""
	}
	if s.ID != "" {
		return s.ID
	}
	return s.SessionID
}

// Capabilities is session.capabilities.
type Capabilities struct {
	ImplementationLevel     string   `json:"implementation_level,omitempty"`
	SupportsBargeIn         *bool    `json:"supports_barge_in,omitempty"`
	SupportsPlaybackAck     *bool    `json:"supports_playback_ack,omitempty"`
	SupportsInputAppend     *bool    `json:"supports_input_append,omitempty"`
	SupportsSessionResume   *bool    `json:"supports_session_resume,omitempty"`
	SupportsTurnCommitOnly  *bool    `json:"supports_turn_commit_only,omitempty"`
	ChunkPeriodMs           *int     `json:"chunk_period_ms,omitempty"`
	InputModes              []string `json:"input_modes,omitzero"`
	RequiredInputModalities []string `json:"required_input_modalities,omitzero"`

	Extra map[string]json.RawMessage `json:"-"`
}

// DefaultChunkPeriodMs is the model unit a client assumes when
// capabilities.chunk_period_ms is absent.
const DefaultChunkPeriodMs = 1000

// ChunkPeriod returns capabilities.chunk_period_ms, or DefaultChunkPeriodMs.
func (e *SessionCreated) ChunkPeriod() int {
	if e.Session != nil && e.Session.Capabilities != nil && e.Session.Capabilities.ChunkPeriodMs != nil && *e.Session.Capabilities.ChunkPeriodMs > 0 {
		return *e.Session.Capabilities.ChunkPeriodMs
	}
	return DefaultChunkPeriodMs
}

// ResponseCreated opens a response (docs/protocol.md#response-lifecycle).
type ResponseCreated struct {
	ServerHeader
	ResponseID string          `json:"response_id,omitempty"`
	Response   *ResponseObject `json:"response,omitempty"`
}

// ResponseDone closes a response (docs/protocol.md#response-lifecycle).
type ResponseDone struct {
	ServerHeader
	ResponseID string          `json:"response_id,omitempty"`
	Response   *ResponseObject `json:"response,omitempty"`
}

// Status returns response.status ("" when absent).
func (e *ResponseDone) Status() string {
	if e.Response == nil {
		return ""
	}
	return e.Response.Status
}

// ResponseSpeak is the model's decision to speak (docs/protocol.md#response-lifecycle).
type ResponseSpeak struct {
	ServerHeader
	ContentRef
	Metadata *EventMetadata `json:"metadata,omitempty"`
}

// ResponseListen is a listen beat (no response_id) or the terminal listen
// decision of a response (docs/protocol.md#response-lifecycle).
type ResponseListen struct {
	ServerHeader
	SessionID  string          `json:"session_id,omitempty"`
	Epoch      *int            `json:"epoch,omitempty"`
	ResponseID string          `json:"response_id,omitempty"`
	Response   *ResponseObject `json:"response,omitempty"`
}

// ModelDecision reports response.metadata.model_listen == true and buffering
// not true (a genuine model decision, docs/protocol.md#completion-rule).
func (e *ResponseListen) ModelDecision() bool {
	if e.Response == nil || e.Response.Metadata == nil || e.Response.Metadata.ModelListen == nil {
		return false
	}
	md := e.Response.Metadata
	return *md.ModelListen && (md.Buffering == nil || !*md.Buffering)
}

// AudioDelta is one output audio packet: response.output_audio.delta, or
// the legacy response.audio.delta (same fields; Type tells them apart).
type AudioDelta struct {
	ServerHeader
	ContentRef
	Delta        string         `json:"delta,omitempty"`
	Audio        string         `json:"audio,omitempty"`
	Format       string         `json:"format,omitempty"`
	SampleRateHz *int           `json:"sample_rate_hz,omitempty"`
	Metadata     *EventMetadata `json:"metadata,omitempty"`
}

// Payload returns delta, else audio (an empty delta falls through).
func (e *AudioDelta) Payload() string {
	if e.Delta != "" {
		return e.Delta
	}
	return e.Audio
}

// DecodePayload base64-decodes the payload.
func (e *AudioDelta) DecodePayload() ([]byte, error) {
	b, err := base64.StdEncoding.DecodeString(e.Payload())
	if err != nil {
		return nil, fmt.Errorf("protocol: %s %s: %w", e.Type, e.ResponseID, err)
	}
	return b, nil
}

// RateHz returns sample_rate_hz, or DefaultOutputRateHz when absent.
func (e *AudioDelta) RateHz() int {
	if e.SampleRateHz != nil && *e.SampleRateHz > 0 {
		return *e.SampleRateHz
	}
	return DefaultOutputRateHz
}

// Validate requires response_id and a payload.
func (e *AudioDelta) Validate() error {
	if e.ResponseID == "" {
		return required(e.Type, "response_id")
	}
	if e.Payload() == "" {
		return required(e.Type, "delta")
	}
	return nil
}

// TextDelta is assistant text: response.output_audio_transcript.delta,
// response.output_text.delta, response.text.delta, or the legacy
// response.audio_transcript.delta.
type TextDelta struct {
	ServerHeader
	ContentRef
	Delta    string         `json:"delta"`
	Metadata *EventMetadata `json:"metadata,omitempty"`
}

// OutputDone ends one output stream of a response: output_audio.done,
// output_audio_transcript.done (Transcript), output_text.done (Text), and
// the legacy audio.done / audio_transcript.done.
type OutputDone struct {
	ServerHeader
	ContentRef
	Transcript string `json:"transcript,omitempty"`
	Text       string `json:"text,omitempty"`
}

// ContentPartEvent is response.content_part.added / .done.
type ContentPartEvent struct {
	ServerHeader
	ContentRef
	Part *ContentPart `json:"part,omitempty"`
}

// OutputItemEvent is response.output_item.added / .done.
type OutputItemEvent struct {
	ServerHeader
	ResponseID  string      `json:"response_id,omitempty"`
	OutputIndex *int        `json:"output_index,omitempty"`
	Item        *OutputItem `json:"item,omitempty"`
}

// ConversationItemEvent is conversation.item.added / .created / .done.
type ConversationItemEvent struct {
	ServerHeader
	PreviousItemID *string     `json:"previous_item_id,omitempty"`
	Item           *OutputItem `json:"item,omitempty"`
}

// RateLimitsUpdated follows response.done (rate_limits: [] in practice).
type RateLimitsUpdated struct {
	ServerHeader
	RateLimits []json.RawMessage `json:"rate_limits,omitzero"`
}

// OutputAudioBufferCleared tells the player to stop a response now
// (barge-in, docs/protocol.md#response-lifecycle).
type OutputAudioBufferCleared struct {
	ServerHeader
	ResponseID string `json:"response_id,omitempty"`
}

// InputAudioBufferCommitted answers a commit (docs/protocol.md#input-side-events). PreviousItemID is
// written as null when nil, as the reference server does.
type InputAudioBufferCommitted struct {
	ServerHeader
	PreviousItemID *string     `json:"previous_item_id"`
	ItemID         string      `json:"item_id,omitempty"`
	Event          *CommitInfo `json:"event,omitempty"`
}

// CommitInfo is input_audio_buffer.committed's internal event.
type CommitInfo struct {
	Type            string `json:"type,omitempty"`
	InputCommitSeq  *int   `json:"input_commit_seq,omitempty"`
	OverlapDeferred *bool  `json:"overlap_deferred,omitempty"`

	Extra map[string]json.RawMessage `json:"-"`
}

// SpeechEvent is input_audio_buffer.speech_started / .speech_stopped.
type SpeechEvent struct {
	ServerHeader
	AudioStartMs *int64 `json:"audio_start_ms,omitempty"`
	AudioEndMs   *int64 `json:"audio_end_ms,omitempty"`
	ItemID       string `json:"item_id,omitempty"`
}

// PlaybackAcknowledged echoes a playback.ack (docs/protocol.md#playback-ack).
type PlaybackAcknowledged struct {
	ServerHeader
	Event *PlaybackAckInfo `json:"event,omitempty"`
}

// PlaybackAckInfo is playback.acknowledged's event object.
type PlaybackAckInfo struct {
	Type             string   `json:"type,omitempty"`
	ResponseID       string   `json:"response_id,omitempty"`
	PlayedMs         *float64 `json:"played_ms,omitempty"`
	CommittedMs      *float64 `json:"committed_ms,omitempty"`
	HistoryCommitted *bool    `json:"history_committed,omitempty"`

	Extra map[string]json.RawMessage `json:"-"`
}

// SessionClosed ends the session (docs/protocol.md#session-end-events).
type SessionClosed struct {
	ServerHeader
	SessionID string         `json:"session_id,omitempty"`
	Reason    string         `json:"reason,omitempty"`
	Event     *InternalEvent `json:"event,omitempty"`
}

// InternalEvent is the "event" object of session.closed (older servers put
// the reason there).
type InternalEvent struct {
	Type   string `json:"type,omitempty"`
	Reason string `json:"reason,omitempty"`

	Extra map[string]json.RawMessage `json:"-"`
}

// CloseReason returns reason ?? event.reason.
func (e *SessionClosed) CloseReason() string {
	if e.Reason != "" {
		return e.Reason
	}
	if e.Event != nil {
		return e.Event.Reason
	}
	return ""
}

// Reason a server gives after the client's session.close.
const ReasonClientClose = "client_close"

// SessionStatus is session.expired, session.heartbeat_ack, session.replaced,
// session.resync_required and session.resumed: {session_id, reason?}.
type SessionStatus struct {
	ServerHeader
	SessionID string `json:"session_id,omitempty"`
	Reason    string `json:"reason,omitempty"`
}

// TurnEvent is the new server's turn.event (informational).
type TurnEvent struct {
	ServerHeader
	SessionID string `json:"session_id,omitempty"`
	Event     string `json:"event,omitempty"`
	TurnState string `json:"turn_state,omitempty"`
	Epoch     *int   `json:"epoch,omitempty"`
}

// OverlapDecision is the new server's overlap.decision (informational).
type OverlapDecision struct {
	ServerHeader
	SessionID string          `json:"session_id,omitempty"`
	Epoch     *int            `json:"epoch,omitempty"`
	Policy    string          `json:"policy,omitempty"`
	Action    string          `json:"action,omitempty"`
	Reason    string          `json:"reason,omitempty"`
	Metadata  json.RawMessage `json:"metadata,omitempty"`
}
