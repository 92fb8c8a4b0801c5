package protocol

import "encoding/json"

// SessionUpdate is the client's first message (docs/protocol.md#sessionupdate).
type SessionUpdate struct {
	Header
	Session *SessionConfig `json:"session,omitempty"`
}

// SessionConfig is the "session" object of session.update.
type SessionConfig struct {
	Model                string          `json:"model,omitempty"`
	Modalities           []string        `json:"modalities,omitzero"`
	InputAudioFormat     string          `json:"input_audio_format,omitempty"`
	OutputAudioFormat    string          `json:"output_audio_format,omitempty"`
	SampleRateHz         *int            `json:"sample_rate_hz,omitempty"` // input rate
	Audio                *AudioConfig    `json:"audio,omitempty"`
	TurnDetection        json.RawMessage `json:"turn_detection,omitempty"` // null (model-native) or {"type":"server_vad",…}
	Instructions         string          `json:"instructions,omitempty"`
	RefAudio             string          `json:"ref_audio,omitempty"` // data:audio/wav;base64,…
	Voice                string          `json:"voice,omitempty"`
	Temperature          *float64        `json:"temperature,omitempty"`
	OverlapPolicy        string          `json:"overlap_policy,omitempty"`
	PlaybackCommitPolicy string          `json:"playback_commit_policy,omitempty"`
	IdleTimeoutS         *float64        `json:"idle_timeout_s,omitempty"`
	SessionID            string          `json:"session_id,omitempty"`
	ExtraBody            *ExtraBody      `json:"extra_body,omitempty"`

	Extra map[string]json.RawMessage `json:"-"`
}

// AudioConfig is session.audio: {"input":{…},"output":{…}}.
type AudioConfig struct {
	Input  *AudioFormat `json:"input,omitempty"`
	Output *AudioFormat `json:"output,omitempty"`
}

// AudioFormat is one direction of session.audio.
type AudioFormat struct {
	SampleRateHz *int   `json:"sample_rate_hz,omitempty"`
	Format       string `json:"format,omitempty"`
}

// ExtraBody holds session.extra_body's model-specific knobs.
type ExtraBody struct {
	AutoResponse           *bool  `json:"auto_response,omitempty"`
	MiniCPMO45NativeDuplex *bool  `json:"minicpmo45_native_duplex,omitempty"`
	ForceListenCount       *int   `json:"force_listen_count,omitempty"`
	ReturnStageMetrics     *bool  `json:"return_stage_metrics,omitempty"`
	DuplexInitialUserText  string `json:"duplex_initial_user_text,omitempty"`

	Extra map[string]json.RawMessage `json:"-"`
}

// InputRateHz returns the declared input rate (sample_rate_hz, else
// audio.input.sample_rate_hz), or 0 when none is declared.
func (c *SessionConfig) InputRateHz() int {
	if c == nil {
		return 0
	}
	if c.SampleRateHz != nil {
		return *c.SampleRateHz
	}
	if c.Audio != nil && c.Audio.Input != nil && c.Audio.Input.SampleRateHz != nil {
		return *c.Audio.Input.SampleRateHz
	}
	return 0
}

// OutputRateHz returns audio.output.sample_rate_hz, or 0 when absent (the
// server reads the output rate from the nested block only).
func (c *SessionConfig) OutputRateHz() int {
	if c != nil && c.Audio != nil && c.Audio.Output != nil && c.Audio.Output.SampleRateHz != nil {
		return *c.Audio.Output.SampleRateHz
	}
	return 0
}

// ServerVAD reports whether turn_detection is an object of type server_vad.
func (c *SessionConfig) ServerVAD() bool {
	if c == nil || len(c.TurnDetection) == 0 {
		return false
	}
	var td struct {
		Type string `json:"type"`
	}
	return json.Unmarshal(c.TurnDetection, &td) == nil && td.Type == "server_vad"
}

// InputAudioBufferAppend carries one chunk of PCM16 input (docs/protocol.md#audio-append).
type InputAudioBufferAppend struct {
	Header
	Audio            string   `json:"audio,omitempty"`
	Delta            string   `json:"delta,omitempty"` // alternate payload key the server accepts
	InputAudioFormat string   `json:"input_audio_format,omitempty"`
	Format           string   `json:"format,omitempty"`
	SampleRateHz     *int     `json:"sample_rate_hz,omitempty"`
	SampleRate       *int     `json:"sample_rate,omitempty"` // alternate rate key
	DurationMs       *int64   `json:"duration_ms,omitempty"`
	AudioEndMs       *int64   `json:"audio_end_ms,omitempty"`
	IsSpeech         *bool    `json:"is_speech,omitempty"`
	VideoFrames      []string `json:"video_frames,omitzero"`
}

// Payload returns audio, else delta.
func (e *InputAudioBufferAppend) Payload() string {
	if e.Audio != "" {
		return e.Audio
	}
	return e.Delta
}

// RateHz returns sample_rate_hz, else sample_rate, else 0.
func (e *InputAudioBufferAppend) RateHz() int {
	switch {
	case e.SampleRateHz != nil:
		return *e.SampleRateHz
	case e.SampleRate != nil:
		return *e.SampleRate
	}
	return 0
}

// AudioFormatName returns input_audio_format, else format, else "".
func (e *InputAudioBufferAppend) AudioFormatName() string {
	if e.InputAudioFormat != "" {
		return e.InputAudioFormat
	}
	return e.Format
}

// Validate requires a payload (audio or delta).
func (e *InputAudioBufferAppend) Validate() error {
	if e.Payload() == "" {
		return required(e.Type, "audio")
	}
	return nil
}

// InputAudioBufferCommit ends the input turn (docs/protocol.md#final-commit).
type InputAudioBufferCommit struct {
	Header
	Final          *bool `json:"final,omitempty"`
	ResponseCreate *bool `json:"response_create,omitempty"`
}

// PlaybackAck reports cumulative playback progress of one response (docs/protocol.md#playback-ack).
// Times are float64 so fractional values from lenient clients still decode;
// reference clients send integers.
type PlaybackAck struct {
	Header
	ResponseID  string   `json:"response_id,omitempty"`
	ItemID      string   `json:"item_id,omitempty"`
	PlayedMs    *float64 `json:"played_ms,omitempty"`
	CommittedMs *float64 `json:"committed_ms,omitempty"`
}

// Validate requires response_id and played_ms.
func (e *PlaybackAck) Validate() error {
	if e.ResponseID == "" {
		return required(e.Type, "response_id")
	}
	if e.PlayedMs == nil {
		return required(e.Type, "played_ms")
	}
	if *e.PlayedMs < 0 {
		return &FieldError{Event: e.Type, Field: "played_ms", Reason: "negative"}
	}
	return nil
}

// SimpleClientEvent is a client event with no modelled fields:
// session.close, session.heartbeat, input_audio_buffer.clear, response.create,
// conversation.item.* (and the close_session alias).
type SimpleClientEvent struct {
	Header
}

// SessionEventAck acknowledges a journalled server event.
type SessionEventAck struct {
	Header
	ServerEventSeq *int64 `json:"server_event_seq,omitempty"`
}

// SessionResume is the first message of a resumed transport.
type SessionResume struct {
	Header
	SessionID                  string `json:"session_id,omitempty"`
	Incarnation                *int64 `json:"incarnation,omitempty"`
	ResumeToken                string `json:"resume_token,omitempty"`
	LastReceivedServerEventSeq *int64 `json:"last_received_server_event_seq,omitempty"`
}

// ResponseCancel cancels the active (or the named) response.
type ResponseCancel struct {
	Header
	ResponseID string `json:"response_id,omitempty"`
}

// OutputAudioBufferClear asks the server to stop playback output.
type OutputAudioBufferClear struct {
	Header
	ResponseID string `json:"response_id,omitempty"`
}
