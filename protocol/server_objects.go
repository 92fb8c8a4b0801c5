package protocol

import "encoding/json"

// The objects server events carry (response, metadata, request and stage
// metrics), apart from the events themselves (server.go).

// ResponseObject is the "response" object of response.* events.
type ResponseObject struct {
	ID            string            `json:"id,omitempty"`
	Object        string            `json:"object,omitempty"`
	Status        string            `json:"status,omitempty"`
	StatusDetails json.RawMessage   `json:"status_details,omitempty"` // null or {type, reason}
	Output        []OutputItem      `json:"output,omitzero"`
	Modalities    []string          `json:"modalities,omitzero"`
	Metadata      *ResponseMetadata `json:"metadata,omitempty"`

	Extra map[string]json.RawMessage `json:"-"`
}

// StatusDetails is the object form of response.status_details.
type StatusDetails struct {
	Type   string `json:"type,omitempty"`
	Reason string `json:"reason,omitempty"`
}

// ResponseMetadata is response.metadata.
type ResponseMetadata struct {
	DuplexEvent            *DuplexEvent    `json:"duplex_event,omitempty"`
	ModelListen            *bool           `json:"model_listen,omitempty"`
	Buffering              *bool           `json:"buffering,omitempty"`
	Reason                 string          `json:"reason,omitempty"`
	ResponseRequestMetrics *RequestMetrics `json:"response_request_metrics,omitempty"`
	VLLMOmni               *VLLMOmni       `json:"vllm_omni,omitempty"`

	Extra map[string]json.RawMessage `json:"-"`
}

// DuplexEvent is response.metadata.duplex_event, the server's internal event.
type DuplexEvent struct {
	Type                   string          `json:"type,omitempty"`
	ResponseID             string          `json:"response_id,omitempty"`
	Epoch                  *int            `json:"epoch,omitempty"`
	ResponseRequestMetrics *RequestMetrics `json:"response_request_metrics,omitempty"`

	Extra map[string]json.RawMessage `json:"-"`
}

// OutputItem is one element of response.output.
type OutputItem struct {
	ID      string        `json:"id,omitempty"`
	Type    string        `json:"type,omitempty"`
	Role    string        `json:"role,omitempty"`
	Status  string        `json:"status,omitempty"`
	Content []ContentPart `json:"content,omitzero"`
}

// ContentPart is one element of an output item's content, or the "part" of
// response.content_part.*.
type ContentPart struct {
	Type       string `json:"type,omitempty"`
	Transcript string `json:"transcript"`
}

// EventMetadata is the "metadata" of output events (docs/protocol.md#audio-deltas, #text-deltas).
type EventMetadata struct {
	AudioDurationMs        *float64                   `json:"audio_duration_ms,omitempty"` // cumulative for the response
	EndOfTurn              *bool                      `json:"end_of_turn,omitempty"`
	ModelSpeak             *bool                      `json:"model_speak,omitempty"`
	Playback               *PlaybackCursor            `json:"playback,omitempty"`
	VLLMOmni               *VLLMOmni                  `json:"vllm_omni,omitempty"`
	ResponseRequestMetrics *RequestMetrics            `json:"response_request_metrics,omitempty"`
	StageMetrics           map[string]*StageMetrics   `json:"stage_metrics,omitempty"`
	AudioTextMarks         []AudioTextMark            `json:"audio_text_marks,omitzero"`
	Extra                  map[string]json.RawMessage `json:"-"`
}

// PlaybackCursor is metadata.playback, the server's cursor.
type PlaybackCursor struct {
	GeneratedMs float64 `json:"generated_ms"`
	SentMs      float64 `json:"sent_ms"`
	PlayedMs    float64 `json:"played_ms"`
	CommittedMs float64 `json:"committed_ms"`
}

// AudioTextMark aligns transcript characters with audio time.
type AudioTextMark struct {
	TextChars  int     `json:"text_chars"`
	AudioEndMs float64 `json:"audio_end_ms"`
}

// VLLMOmni is metadata.vllm_omni.
type VLLMOmni struct {
	ResponseRequestMetrics *RequestMetrics          `json:"response_request_metrics,omitempty"`
	StageMetrics           map[string]*StageMetrics `json:"stage_metrics,omitempty"`

	Extra map[string]json.RawMessage `json:"-"`
}

// Source value of server-timed request metrics.
const SourceServerMonotonic = "server_monotonic_request_start"

// RequestMetrics is response_request_metrics (docs/protocol.md#server-request-metrics): server-monotonic
// milliseconds from the model-turn request start.
type RequestMetrics struct {
	Source            string             `json:"source,omitempty"`
	MeasurementOrigin *MeasurementOrigin `json:"measurement_origin,omitempty"`
	TTFTMs            *float64           `json:"ttft_ms,omitempty"`
	TTFPMs            *float64           `json:"ttfp_ms,omitempty"`

	Extra map[string]json.RawMessage `json:"-"`
}

// MeasurementOrigin describes the start and end points of TTFT and TTFP.
type MeasurementOrigin struct {
	TTFT string `json:"ttft,omitempty"`
	TTFP string `json:"ttfp,omitempty"`
}

// Reference server wording of MeasurementOrigin (docs/protocol.md#server-request-metrics).
const (
	OriginTTFT = "accepted native-append start to first non-empty text output; pending turns keep the latest append before first output, so overlapping user speech shortens TTFT"
	OriginTTFP = "accepted native-append start to first audio output; pending turns keep the latest append before first output, so overlapping user speech shortens TTFP"
)

// StageMetrics is one stage's cumulative engine snapshot (docs/protocol.md#stage-metrics).
type StageMetrics struct {
	NumTokensOut *int      `json:"num_tokens_out,omitempty"`
	VLLMTTFTMs   *float64  `json:"vllm_ttft_ms,omitempty"`
	VLLMTPOTMs   *float64  `json:"vllm_tpot_ms,omitempty"`
	VLLMITLMs    *float64  `json:"vllm_itl_ms,omitempty"`
	VLLMITLsMs   []float64 `json:"vllm_itls_ms,omitzero"`

	Extra map[string]json.RawMessage `json:"-"`
}

// RequestMetrics returns the first response_request_metrics of m in the
// metadata lookup order of docs/protocol.md#server-request-metrics
// (metadata.*, then metadata.vllm_omni.*).
func (m *EventMetadata) RequestMetrics() *RequestMetrics {
	if m == nil {
		return nil
	}
	if m.ResponseRequestMetrics != nil {
		return m.ResponseRequestMetrics
	}
	if m.VLLMOmni != nil {
		return m.VLLMOmni.ResponseRequestMetrics
	}
	return nil
}

// ContentRef locates one content part of a response's output; the output
// events of one part (speak, deltas, done, content_part) embed it.
type ContentRef struct {
	ResponseID   string `json:"response_id,omitempty"`
	ItemID       string `json:"item_id,omitempty"`
	OutputIndex  *int   `json:"output_index,omitempty"`
	ContentIndex *int   `json:"content_index,omitempty"`
}
