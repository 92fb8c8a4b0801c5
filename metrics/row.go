package metrics

import (
	"encoding/json"
	"math"
	"strconv"
)

// Clock names the clock a value was measured on.
type Clock string

// Clock origins of a reported value.
const (
	ClockNone          Clock = ""               // no value
	ClockServer        Clock = "server"         // server monotonic clock (response_request_metrics, engine stage metrics)
	ClockClientReceive Clock = "client_receive" // client monotonic receive instants
)

// Sources of a row's ttft_ms/ttfp_ms.
const (
	SourceServer = "server_request_start_and_client_receive"
	SourceClient = "client_monotonic_receive"
)

// Default measurement_origin strings (docs/metrics.md#measurement-origin).
const (
	OriginTTFT       = "response.created client receive to first non-empty text delta"
	OriginTTFP       = "response.created client receive to first audio packet"
	OriginTPOT       = "Stage-0 engine mean time per output token"
	OriginRTF        = "response.created client receive to last audio packet divided by emitted audio duration"
	OriginClientTTFT = "response.created client receive to first non-empty text delta; includes server prompt preparation and engine submission when they follow response creation, as in Qwen3-Omni"
	OriginClientTTFP = "response.created client receive to first audio packet; includes server prompt preparation and engine submission when they follow response creation, as in Qwen3-Omni"
)

// MeasurementOrigin is a row's measurement_origin object.
type MeasurementOrigin struct {
	TTFT, TTFP, TPOT, RTF, ClientTTFT, ClientTTFP string
}

// Row is one duplex_request_metrics row (docs/metrics.md#per-response-rows). Nullable values
// are pointers (nil = JSON null); keys that may be absent are governed by
// HasSample, Raw, ServerUsed, HasTPOT and Stage0. All *Ms values are
// float64 milliseconds because parity needs the reference's exact float
// arithmetic (time.Duration(ms*1e6) converts for display).
type Row struct {
	HasSample    bool    // sample_id and split keys present (Omni-DuplexEval)
	SampleID     *string // sample_id
	Split        *string // split
	SessionID    *string // session_id
	RequestIndex int     // request_index: position in response_ids
	ResponseID   string  // response_id
	Raw          *RawMetric
	Stage0       *Stage0Tokens
}

// RawMetric holds a row's timing fields (present when the response had an
// audio packet and a response.created in the window).
type RawMetric struct {
	Source            string // SourceServer or SourceClient
	Origin            MeasurementOrigin
	TTFTMs            *float64 // ttft_ms
	TTFTClock         Clock    // clock of TTFTMs
	TTFPMs            float64  // ttfp_ms
	TTFPClock         Clock    // clock of TTFPMs
	AudioGenerationMs float64  // audio_generation_ms, client receive clock
	AudioDurationMs   float64  // audio_duration_ms, emitted audio (metadata or bytes)
	// ServerUsed: a server value was used, so the two keys below are present.
	ServerUsed            bool
	CreatedToFirstTextMs  *float64 // response_created_to_first_text_ms, client receive clock
	CreatedToFirstAudioMs float64  // response_created_to_first_audio_ms, client receive clock
	HasTPOT               bool     // tpot_ms key present (a stage-0 snapshot exists)
	TPOTMs                *float64 // tpot_ms, server (engine) clock
	RTF                   *float64 // rtf, client receive clock / emitted audio
	ClientTTFTMs          *float64 // client_ttft_ms, client receive clock, clamped ≥ 0
	ClientTTFPMs          *float64 // client_ttfp_ms, client receive clock, clamped ≥ 0
}

// Slots of a row's nullable values in the snapshot's backing slab.
const (
	vTTFT = iota
	vCreatedText
	vTPOT
	vRTF
	vClientTTFT
	vClientTTFP
	nVals
)

// Stage0Tokens is a row's stage0_tokens object (engine stage "0").
// OutputTokenCount is a Python int (exact at any size).
type Stage0Tokens struct {
	Source             string          `json:"source"`
	OutputTokenCount   Int             `json:"output_token_count"`
	TTFTMs             float64         `json:"ttft_ms"`
	TPOTMs             float64         `json:"tpot_ms"`
	ITLsMs             []float64       `json:"itls_ms"`
	InterTokenInterval IntervalSummary `json:"inter_token_interval_ms"`
	// Faults lists the conversions the reference raises on (int("abc"),
	// float(10**400), int(float("inf")), …): the reference would stop, so
	// `score` refuses; other writers print the field as null and warn.
	Faults []FieldFault `json:"-"`
}

// FieldFault is one value the reference cannot convert: the key (relative
// to its object) and why.
type FieldFault struct {
	Field  string
	Reason string
}

func ptr[T any](v T) *T { return &v }

func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

// newStage0 converts a stage "0" snapshot as the reference does:
// int(num_tokens_out or 0), float(vllm_ttft_ms or 0.0), …, with Python's
// int/float semantics (exact integers, Unicode digits in strings).
func newStage0(raw json.RawMessage) *Stage0Tokens {
	s := object(raw)
	st := &Stage0Tokens{Source: "engine_stage_metrics", ITLsMs: []float64{}}
	var err error
	fault := func(field string, err error) {
		if err != nil {
			st.Faults = append(st.Faults, FieldFault{field, err.Error()})
		}
	}
	st.OutputTokenCount, err = pyIntConv(s.get("num_tokens_out"))
	fault("output_token_count", err)
	st.TTFTMs, err = pyFloatConv(s.get("vllm_ttft_ms"))
	fault("ttft_ms", err)
	st.TPOTMs, err = pyFloatConv(s.get("vllm_tpot_ms"))
	fault("tpot_ms", err)
	if kindOf(s.get("vllm_itls_ms")) == jArray {
		for i, it := range array(s.get("vllm_itls_ms")) {
			if k := kindOf(it); k != jNumber && k != jBool {
				continue
			}
			f, err := pyFloatNumber(it)
			if err != nil {
				fault("itls_ms["+strconv.Itoa(i)+"]", err)
				continue
			}
			st.ITLsMs = append(st.ITLsMs, f)
		}
	}
	st.InterTokenInterval = SummarizeIntervals(st.ITLsMs)
	return st
}

func (s *Stage0Tokens) faulted(field string) bool {
	for _, f := range s.Faults {
		if f.Field == field {
			return true
		}
	}
	return false
}

// Object returns the row as an ordered JSON object in docs/metrics.md#row-layout order.
func (r Row) Object() Object {
	o := identity(make(Object, 0, 20), r.HasSample, r.SampleID, r.Split, r.SessionID)
	o = append(o,
		Member{"request_index", r.RequestIndex},
		Member{"response_id", r.ResponseID})
	if m := r.Raw; m != nil {
		o = append(o,
			Member{"source", m.Source},
			Member{"measurement_origin", Object{
				{"ttft", m.Origin.TTFT}, {"ttfp", m.Origin.TTFP}, {"tpot", m.Origin.TPOT},
				{"rtf", m.Origin.RTF}, {"client_ttft", m.Origin.ClientTTFT}, {"client_ttfp", m.Origin.ClientTTFP},
			}},
			Member{"ttft_ms", floatOrNil(m.TTFTMs)},
			Member{"ttfp_ms", m.TTFPMs},
			Member{"audio_generation_ms", m.AudioGenerationMs},
			Member{"audio_duration_ms", m.AudioDurationMs})
		if m.ServerUsed {
			o = append(o,
				Member{"response_created_to_first_text_ms", floatOrNil(m.CreatedToFirstTextMs)},
				Member{"response_created_to_first_audio_ms", m.CreatedToFirstAudioMs})
		}
		if m.HasTPOT {
			o = append(o, Member{"tpot_ms", floatOrNil(m.TPOTMs)})
		}
		o = append(o,
			Member{"rtf", floatOrNil(m.RTF)},
			Member{"client_ttft_ms", floatOrNil(m.ClientTTFTMs)},
			Member{"client_ttfp_ms", floatOrNil(m.ClientTTFPMs)})
	}
	if s := r.Stage0; s != nil {
		itls := make([]any, len(s.ITLsMs))
		for i, v := range s.ITLsMs {
			itls[i] = v
		}
		iv := s.InterTokenInterval
		orNull := func(field string, v any) any {
			if s.faulted(field) {
				return nil
			}
			return v
		}
		o = append(o, Member{"stage0_tokens", Object{
			{"source", s.Source},
			{"output_token_count", orNull("output_token_count", s.OutputTokenCount.value())},
			{"ttft_ms", orNull("ttft_ms", s.TTFTMs)},
			{"tpot_ms", orNull("tpot_ms", s.TPOTMs)},
			{"itls_ms", itls},
			{"inter_token_interval_ms", Object{
				{"count", iv.Count}, {"mean", iv.Mean}, {"p50", iv.P50}, {"p95", iv.P95}, {"max", iv.Max},
			}},
		}})
	}
	return o
}

// MarshalJSON writes the row in docs/metrics.md#row-layout key order.
func (r Row) MarshalJSON() ([]byte, error) { return r.Object().MarshalJSON() }

// identity appends the keys every row and session entry start with:
// sample_id and split (Omni-DuplexEval, _with_sample_identity), session_id.
func identity(o Object, hasSample bool, sampleID, split, sessionID *string) Object {
	if hasSample {
		o = append(o, Member{"sample_id", strOrNil(sampleID)}, Member{"split", strOrNil(split)})
	}
	return append(o, Member{"session_id", strOrNil(sessionID)})
}

func strOrNil(s *string) any {
	if s == nil {
		return nil
	}
	return *s
}

func floatOrNil(f *float64) any {
	if f == nil {
		return nil
	}
	return *f
}
