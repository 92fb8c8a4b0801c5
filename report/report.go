package report

import (
	"encoding/json"

	"github.com/duplexscope/duplexscope/metrics"
)

// Schema is the value of Report.Schema for this version of the format.
const Schema = "duplexscope.report/v1"

// Clients that produce reports (Run.Client).
const (
	ClientBrowser = "browser"
	ClientCLI     = "cli"
	ClientImport  = "import"
)

// Input sources (Source.Kind).
const (
	SourceMic     = "mic"
	SourceDataset = "dataset"
	SourceImport  = "import"
)

// Import formats (Imported.Format).
const (
	FormatDuplexMetrics = "vllm_duplex_metrics" // duplex_metrics.json
	FormatSaveResult    = "vllm_save_result"    // vllm bench serve --save-result JSON
)

// Report is one archived run: a browser session, a headless run (or one shard
// of it) or an imported vLLM result.
type Report struct {
	Schema string `json:"schema"`
	// ID and CreatedAt are assigned by the archive; uploads may leave them empty.
	ID        string `json:"id,omitempty"`
	CreatedAt string `json:"created_at,omitempty"` // RFC 3339, server wall clock
	// Complete is false when any session ended early (fault, disconnect,
	// stop before response.done); the metrics then cover what arrived.
	Complete bool `json:"complete"`
	Run      Run  `json:"run"`
	// Metrics is the vLLM-Omni payload with its keys unchanged.
	Metrics     Metrics         `json:"metrics"`
	Responses   []ResponseExtra `json:"responses,omitempty"`
	Sessions    []SessionExtra  `json:"sessions,omitempty"`
	Warnings    []Warning       `json:"warnings,omitempty"`
	Attachments []Attachment    `json:"attachments,omitempty"`
	Imported    *Imported       `json:"imported,omitempty"`
	// Optional issue-11 results: turn-taking scores over labelled cases,
	// barge-in probes, and a load curve (sessions vs TTFP).
	TurnTaking *TurnTaking `json:"turn_taking,omitempty"`
	Probes     []Probe     `json:"probes,omitempty"`
	LoadCurve  *LoadCurve  `json:"load_curve,omitempty"`
	// SpeechEndToHeard summarises responses[].speech_end_to_heard_ms
	// (Finish computes it; nil when no response has one).
	SpeechEndToHeard *PlaybackSummary `json:"speech_end_to_heard_ms,omitempty"`
}

// Playback kinds (PlaybackSummary.Playback).
const (
	PlaybackReal      = "real"      // the page: audio actually played on the machine
	PlaybackSimulated = "simulated" // the CLI: a serial player simulated on the receive clock
)

// PlaybackSummary is a {count, mean, p50, p99} summary of a playback-clock
// latency and whether the playback was real or simulated.
type PlaybackSummary struct {
	Summary
	Playback string `json:"playback"` // real | simulated
}

// Run says what was run, where and by what.
type Run struct {
	TargetURL string `json:"target_url"`
	Model     string `json:"model"`
	Profile   string `json:"profile,omitempty"`
	// FrameMs is the input frame size (200 default, 80, 1000); 0 when unknown (imports).
	FrameMs     int     `json:"frame_ms"`
	Version     string  `json:"duplexscope_version"`
	Client      string  `json:"client"` // browser | cli | import
	Machine     Machine `json:"machine"`
	Source      Source  `json:"source"`
	Concurrency int     `json:"concurrency,omitempty"`
	// RunID and Shard tie the shards of one split run together.
	RunID string `json:"run_id,omitempty"`
	Shard *Shard `json:"shard,omitempty"`
	// StartedAt and EndedAt are wall-clock RFC 3339 times, for display only.
	StartedAt string `json:"started_at,omitempty"`
	EndedAt   string `json:"ended_at,omitempty"`
	// Name, Notes and Tags let a team tell runs apart (set by run --name/
	// --notes/--tag, the page's share box, PATCH /api/reports/{id}); bounds
	// in CheckLabels.
	Name  string   `json:"name,omitempty"`
	Notes string   `json:"notes,omitempty"`
	Tags  []string `json:"tags,omitempty"`
}

// Machine describes where the client ran.
type Machine struct {
	OS        string `json:"os,omitempty"`
	Arch      string `json:"arch,omitempty"`
	CPUs      int    `json:"cpus,omitempty"`
	Hostname  string `json:"hostname,omitempty"`
	UserAgent string `json:"user_agent,omitempty"` // browser runs
	GoVersion string `json:"go_version,omitempty"`
}

// Source is the input: the microphone or a dataset (split optional).
type Source struct {
	Kind    string `json:"kind"` // mic | dataset | import
	Dataset string `json:"dataset,omitempty"`
	Split   string `json:"split,omitempty"`
}

// Shard is shard Index of Count (1 ≤ Index ≤ Count).
type Shard struct {
	Index int `json:"index"`
	Count int `json:"count"`
}

// Metrics is the duplex_metrics.json payload (docs/metrics.md#report-file) with vLLM keys.
type Metrics struct {
	Requests []Row          `json:"duplex_request_metrics"`
	Sessions []SessionEntry `json:"duplex_session_metrics"`
	RunKeys
}

// Summary is a {count, mean, p50, p99} distribution (docs/metrics.md#summaries): the
// metrics package's type.
type Summary = metrics.Summary

// RunKeys are the run-level keys of docs/metrics.md#run-level, each present only with values.
type RunKeys struct {
	StreamTTFT *Summary `json:"duplex_stream_ttft_ms,omitempty"`
	StreamTTFP *Summary `json:"duplex_stream_ttfp_ms,omitempty"`
	StreamRTF  *Summary `json:"duplex_stream_rtf,omitempty"`

	NumResponseTTFT    *int     `json:"num_duplex_response_ttft_ms_samples,omitempty"`
	MeanResponseTTFT   *float64 `json:"mean_duplex_response_ttft_ms,omitempty"`
	MedianResponseTTFT *float64 `json:"median_duplex_response_ttft_ms,omitempty"`
	P99ResponseTTFT    *float64 `json:"p99_duplex_response_ttft_ms,omitempty"`
	NumResponseTTFP    *int     `json:"num_duplex_response_ttfp_ms_samples,omitempty"`
	MeanResponseTTFP   *float64 `json:"mean_duplex_response_ttfp_ms,omitempty"`
	MedianResponseTTFP *float64 `json:"median_duplex_response_ttfp_ms,omitempty"`
	P99ResponseTTFP    *float64 `json:"p99_duplex_response_ttfp_ms,omitempty"`
	NumClientTTFT      *int     `json:"num_duplex_client_ttft_ms_samples,omitempty"`
	MeanClientTTFT     *float64 `json:"mean_duplex_client_ttft_ms,omitempty"`
	MedianClientTTFT   *float64 `json:"median_duplex_client_ttft_ms,omitempty"`
	P99ClientTTFT      *float64 `json:"p99_duplex_client_ttft_ms,omitempty"`
	NumClientTTFP      *int     `json:"num_duplex_client_ttfp_ms_samples,omitempty"`
	MeanClientTTFP     *float64 `json:"mean_duplex_client_ttfp_ms,omitempty"`
	MedianClientTTFP   *float64 `json:"median_duplex_client_ttfp_ms,omitempty"`
	P99ClientTTFP      *float64 `json:"p99_duplex_client_ttfp_ms,omitempty"`
}

// Origin is a row's measurement_origin (docs/metrics.md#measurement-origin).
type Origin struct {
	TTFT       string `json:"ttft"`
	TTFP       string `json:"ttfp"`
	TPOT       string `json:"tpot"`
	RTF        string `json:"rtf"`
	ClientTTFT string `json:"client_ttft"`
	ClientTTFP string `json:"client_ttfp"`
}

// Row sources (Row.Source, docs/metrics.md#row-timing).
const (
	SourceServer = "server_request_start_and_client_receive"
	SourceClient = "client_monotonic_receive"
)

// Row is one duplex_request_metrics row. Decoding keeps the exact JSON it
// came from (key order, null vs absent, number spelling, unknown keys), and
// encoding writes that JSON back, so rows round-trip unchanged; the typed
// fields are a read-only view. Build rows with FromMetrics (which keeps the
// metrics object and writes its JSON when asked) or by decoding JSON.
type Row struct {
	SampleID          *string  `json:"sample_id,omitempty"`
	Split             *string  `json:"split,omitempty"`
	SessionID         *string  `json:"session_id"`
	RequestIndex      int      `json:"request_index"`
	ResponseID        *string  `json:"response_id"`
	Source            string   `json:"source,omitempty"`
	MeasurementOrigin *Origin  `json:"measurement_origin,omitempty"`
	TTFTMs            *float64 `json:"ttft_ms,omitempty"`
	TTFPMs            *float64 `json:"ttfp_ms,omitempty"`
	AudioGenerationMs *float64 `json:"audio_generation_ms,omitempty"`
	AudioDurationMs   *float64 `json:"audio_duration_ms,omitempty"`
	CreatedToTextMs   *float64 `json:"response_created_to_first_text_ms,omitempty"`
	CreatedToAudioMs  *float64 `json:"response_created_to_first_audio_ms,omitempty"`
	TPOTMs            *float64 `json:"tpot_ms,omitempty"`
	RTF               *float64 `json:"rtf,omitempty"`
	ClientTTFTMs      *float64 `json:"client_ttft_ms,omitempty"`
	ClientTTFPMs      *float64 `json:"client_ttfp_ms,omitempty"`
	Stage0            *Stage0  `json:"stage0_tokens,omitempty"`

	keptJSON
}

// Stage0 is a row's stage0_tokens object.
type Stage0 struct {
	Source           string      `json:"source"`
	OutputTokenCount json.Number `json:"output_token_count"` // a Python int, exact at any size
	TTFTMs           float64     `json:"ttft_ms"`
	TPOTMs           float64     `json:"tpot_ms"`
	ITLsMs           []float64   `json:"itls_ms"`
}

// keptJSON is the exact JSON a Row or SessionEntry round-trips: as decoded
// (raw), else as FromMetrics built it (obj, the object raw would be written
// from). encoding/json skips it, having no exported fields.
type keptJSON struct {
	raw json.RawMessage
	obj metrics.Object
}

// kept is the entry's own JSON: as decoded, else written from its metrics
// object (nil, false for neither).
func (k keptJSON) kept() (json.RawMessage, bool) {
	if k.raw != nil {
		return k.raw, true
	}
	if k.obj != nil {
		b, err := k.obj.MarshalJSON() // never fails: FromMetrics keeps only finite values
		return b, err == nil
	}
	return nil, false
}

// decode fills plain, the zeroed entry holding k seen as its method-less
// alias (so UnmarshalJSON does not recurse), from b and keeps b.
func (k *keptJSON) decode(b []byte, plain any) error {
	if err := json.Unmarshal(b, plain); err != nil {
		return err
	}
	k.raw = append(json.RawMessage(nil), b...)
	return nil
}

// encode returns the kept JSON, else plain (the entry's method-less alias)
// encoded.
func (k keptJSON) encode(plain any) ([]byte, error) {
	if b, ok := k.kept(); ok {
		return b, nil
	}
	return json.Marshal(plain)
}

type rowAlias Row

// UnmarshalJSON decodes a row and keeps its exact JSON.
func (r *Row) UnmarshalJSON(b []byte) error {
	*r = Row{}
	return r.decode(b, (*rowAlias)(r))
}

// MarshalJSON writes the JSON the row was decoded (or built) from.
func (r Row) MarshalJSON() ([]byte, error) { return r.encode(rowAlias(r)) }

// Raw returns the row's JSON as decoded or built (nil for a zero Row).
func (r Row) Raw() json.RawMessage {
	b, _ := r.kept()
	return b
}

// Key returns the (split, sample_id) merge key of docs/metrics.md#merge-on-resume and
// whether the row has one.
func (r Row) Key() (split, sampleID string, ok bool) {
	return key(r.Split, r.SampleID)
}

func key(split, sample *string) (string, string, bool) {
	if split == nil || sample == nil || *split == "" || *sample == "" {
		return "", "", false
	}
	return *split, *sample, true
}

// SessionEntry is one duplex_session_metrics entry; like Row it round-trips
// its exact JSON.
type SessionEntry struct {
	SampleID       *string  `json:"sample_id,omitempty"`
	Split          *string  `json:"split,omitempty"`
	SessionID      *string  `json:"session_id"`
	AudioTurnCount int      `json:"audio_turn_count"`
	TTFTMs         *Summary `json:"ttft_ms"`
	TTFPMs         *Summary `json:"ttfp_ms"`
	RTF            *Summary `json:"rtf"`
	TPOTMs         *Summary `json:"tpot_ms,omitempty"`
	ClientTTFTMs   *Summary `json:"client_ttft_ms,omitempty"`
	ClientTTFPMs   *Summary `json:"client_ttfp_ms,omitempty"`

	StreamTTFTMs            *float64 `json:"stream_ttft_ms,omitempty"`
	StreamTTFPMs            *float64 `json:"stream_ttfp_ms,omitempty"`
	StreamRTF               *float64 `json:"stream_rtf,omitempty"`
	StreamAudioGenerationMs *float64 `json:"stream_audio_generation_ms,omitempty"`
	StreamAudioDurationMs   *float64 `json:"stream_audio_duration_ms,omitempty"`
	StreamOrigin            *struct {
		TTFT string `json:"ttft"`
		TTFP string `json:"ttfp"`
		RTF  string `json:"rtf"`
	} `json:"stream_measurement_origin,omitempty"`

	keptJSON
}

type sessionAlias SessionEntry

// UnmarshalJSON decodes a session entry and keeps its exact JSON.
func (s *SessionEntry) UnmarshalJSON(b []byte) error {
	*s = SessionEntry{}
	return s.decode(b, (*sessionAlias)(s))
}

// MarshalJSON writes the JSON the entry was decoded (or built) from.
func (s SessionEntry) MarshalJSON() ([]byte, error) { return s.encode(sessionAlias(s)) }

// Key returns the entry's (split, sample_id) merge key.
func (s SessionEntry) Key() (split, sampleID string, ok bool) {
	return key(s.Split, s.SampleID)
}

// ResponseExtra holds duplexscope's per-response extras, joined to a Row by
// (session_id, response_id).
type ResponseExtra struct {
	SessionID  string `json:"session_id"`
	ResponseID string `json:"response_id"`
	// HeardTTFPMs: response.created receive → first sample played, from the
	// playback clock (HeardOrigin says which). Never mixed into ttfp_ms.
	HeardTTFPMs *float64 `json:"heard_ttfp_ms,omitempty"`
	HeardOrigin string   `json:"heard_origin,omitempty"`
	Underruns   int      `json:"underruns,omitempty"`
	Truncated   bool     `json:"truncated,omitempty"`
	Transcript  string   `json:"transcript,omitempty"`

	// SpeechEndToHeardMs: end of the user's speech (VAD on the sent audio,
	// client send clock) → this reply's first sample played (the playback
	// clock of HeardOrigin): the wait a person feels. Only the first reply
	// after a speech end has one (turntaking.SpeechEndToFirstSound).
	SpeechEndToHeardMs *float64 `json:"speech_end_to_heard_ms,omitempty"`
}

// SessionExtra holds duplexscope's per-session extras.
type SessionExtra struct {
	SessionID     string   `json:"session_id"`
	SampleID      string   `json:"sample_id,omitempty"`
	Split         string   `json:"split,omitempty"`
	Complete      bool     `json:"complete"`
	Error         string   `json:"error,omitempty"`
	PacingLagP99  *float64 `json:"pacing_lag_p99_ms,omitempty"` // client send clock
	PacingLagMax  *float64 `json:"pacing_lag_max_ms,omitempty"` // client send clock
	WireLog       string   `json:"wire_log,omitempty"`          // attachment name of its duplex-trace/v1
	TruthURL      string   `json:"truth_url,omitempty"`
	StreamStartMs *float64 `json:"stream_start_ms,omitempty"` // client monotonic clock
	// ServerSessionID is the server's session.id when session_id is the
	// reference's client id (docs/metrics.md#session-ids); VideoFramesSent counts the
	// video frames the session's appends carried.
	ServerSessionID string `json:"server_session_id,omitempty"`
	VideoFramesSent int    `json:"video_frames_sent"`
}

// Warning codes (Warning.Code).
const (
	WarnTabHidden            = "tab_hidden"
	WarnPacingLag            = "pacing_lag"
	WarnAudioRateMismatch    = "audio_context_rate_mismatch"
	WarnRTF                  = "rtf_ge_1"
	WarnServerMetricsMissing = "server_metrics_missing"
	WarnPlaybackUnderrun     = "playback_underrun"
	WarnIncompleteSession    = "incomplete_session"
	WarnLegacyEventNames     = "legacy_event_names"
	WarnNegativeLatency      = "negative_latency"
	WarnInvalidValue         = "invalid_server_value" // NaN/±Inf or unconvertible value written as null (issue 16)
	WarnFrameTick            = "frame_tick_mismatch"
	WarnMainThreadStall      = "main_thread_stall" // the page's debug stall_ms was on (issue 17)
	WarnWorkerUnavailable    = "session_worker_unavailable"
)

// WarningCodes lists every known code with its default human text.
var WarningCodes = map[string]string{
	WarnTabHidden:            "The browser tab was hidden during the run; timers may have been throttled.",
	WarnPacingLag:            "Input frames were sent more than one frame late.",
	WarnAudioRateMismatch:    "The audio context did not run at the requested sample rate.",
	WarnRTF:                  "Audio was generated slower than real time (RTF ≥ 1).",
	WarnServerMetricsMissing: "The server sent no response_request_metrics; TTFT/TTFP use the client receive clock.",
	WarnPlaybackUnderrun:     "Playback ran out of audio (underrun) at least once.",
	WarnIncompleteSession:    "A session ended before it finished; metrics cover what arrived.",
	WarnLegacyEventNames:     "The server used legacy event names, which vLLM metrics ignore.",
	WarnNegativeLatency:      "A latency was negative (text received before response.created).",
	WarnInvalidValue:         "A server value was not a finite number (or not convertible); it is written as null.",
	WarnFrameTick:            "The append size disagrees with the server's tick (capabilities.chunk_period_ms).",
	WarnMainThreadStall:      "The page's debug main-thread stall (stall_ms, stall_every_ms) was on: the run shows what main-thread load does.",
	WarnWorkerUnavailable:    "The page's session worker could not start, so the session ran on the page's main thread, where drawing can delay its timing.",
}

// Warning is one validity warning: a code from WarningCodes and human text.
type Warning struct {
	Code       string `json:"code"`
	Message    string `json:"message"`
	SessionID  string `json:"session_id,omitempty"`
	ResponseID string `json:"response_id,omitempty"`
}

// Attachment kinds (Attachment.Kind).
const (
	AttachWireLog     = "wire_log"     // duplex-trace/v1 JSON
	AttachInputAudio  = "input_audio"  // WAV
	AttachOutputAudio = "output_audio" // WAV
	AttachOther       = "other"
)

// Attachment references a blob stored next to the report
// (PUT/GET /api/reports/{id}/attachments/{name}).
type Attachment struct {
	Name        string `json:"name"`
	Kind        string `json:"kind"`
	ContentType string `json:"content_type,omitempty"`
	SizeBytes   int64  `json:"size_bytes,omitempty"`
	SHA256      string `json:"sha256,omitempty"`
	SessionID   string `json:"session_id,omitempty"`
}

// Imported records where an imported report came from; Extra keeps the
// source file's other top-level keys (e.g. vllm bench serve aggregates).
type Imported struct {
	Format string                     `json:"format"`
	Extra  map[string]json.RawMessage `json:"extra,omitempty"`
}
