package metrics_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/duplexscope/duplexscope/metrics"
	"github.com/duplexscope/duplexscope/metrics/conformance"
	"github.com/duplexscope/duplexscope/trace"
)

const absent = "<absent>"

// lookup walks a dotted path with [i] indexes through a UseNumber-decoded
// value.
func lookup(v any, path string) (any, bool) {
	for _, part := range strings.Split(path, ".") {
		name, idx := part, -1
		if i := strings.IndexByte(part, '['); i >= 0 {
			name = part[:i]
			idx, _ = strconv.Atoi(strings.TrimSuffix(part[i+1:], "]"))
		}
		if name != "" {
			m, ok := v.(map[string]any)
			if !ok {
				return nil, false
			}
			if v, ok = m[name]; !ok {
				return nil, false
			}
		}
		if idx >= 0 {
			a, ok := v.([]any)
			if !ok || idx >= len(a) {
				return nil, false
			}
			v = a[idx]
		}
	}
	return v, true
}

func decodeNum(t *testing.T, b []byte) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("%v in %s", err, b)
	}
	return v
}

// checkPaths compares each path's value with a JSON literal (or absent).
func checkPaths(t *testing.T, got []byte, want map[string]string) {
	t.Helper()
	v := decodeNum(t, got)
	for p, lit := range want {
		g, ok := lookup(v, p)
		if lit == absent {
			if ok {
				t.Errorf("%s: want absent, got %v", p, g)
			}
			continue
		}
		if !ok {
			t.Errorf("%s: absent, want %s", p, lit)
			continue
		}
		if err := conformance.Values(p, decodeNum(t, []byte(lit)), g); err != nil {
			t.Error(err)
		}
	}
	if t.Failed() {
		t.Logf("output: %s", got)
	}
}

// e builds a recv event at t ms from a JSON literal.
func e(tMs float64, event string) trace.Event {
	return trace.Event{TMs: tMs, Dir: trace.DirRecv, Event: json.RawMessage(event)}
}

func created(t float64, id string) trace.Event {
	return e(t, fmt.Sprintf(`{"type":"response.created","response":{"id":%q}}`, id))
}

func text(t float64, id, delta string) trace.Event {
	return e(t, fmt.Sprintf(`{"type":"response.output_audio_transcript.delta","response_id":%q,"delta":%q}`, id, delta))
}

// audio4800 is 4 800 bytes of PCM16 (100 ms at 24 kHz) in base64.
var audio4800 = strings.Repeat("AAAA", 1600)

func audio(t float64, id, extra string) trace.Event {
	if extra != "" {
		extra = "," + extra
	}
	return e(t, fmt.Sprintf(`{"type":"response.output_audio.delta","response_id":%q,"delta":%q%s}`, id, audio4800, extra))
}

func sid(s string) *string { return &s }

func f64(f float64) *float64 { return &f }

func TestEdgeCases(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		meta   trace.SessionMeta
		events []trace.Event
		want   map[string]string
	}{
		{
			name:   "no audio: no row, no stream keys",
			events: []trace.Event{created(100, "r1"), text(200, "r1", "hi"), e(300, `{"type":"response.done","response_id":"r1"}`)},
			want: map[string]string{"request_metrics": `[]`, "session_metrics.audio_turn_count": `0`,
				"session_metrics.ttft_ms": `null`, "session_metrics.stream_ttfp_ms": absent,
				"session_metrics.session_id": `null`, "session_metrics.sample_id": absent},
		},
		{
			name:   "no text: ttft null, stream_ttft null but stream present",
			events: []trace.Event{created(100, "r1"), audio(400, "r1", "")},
			want: map[string]string{"request_metrics[0].ttft_ms": `null`, "request_metrics[0].client_ttft_ms": `null`,
				"request_metrics[0].ttfp_ms": `300.0`, "request_metrics[0].audio_duration_ms": `100.0`,
				"request_metrics[0].rtf": `3.0`, "session_metrics.stream_ttft_ms": `null`,
				"session_metrics.stream_ttfp_ms": `400.0`, "session_metrics.ttft_ms": `null`,
				"session_metrics.client_ttft_ms": absent, "session_metrics.client_ttfp_ms.mean": `300.0`},
		},
		{
			name: "worked example 11.1: client fallback, (10.2-10.1)*1000 rounds to 100.0",
			meta: trace.SessionMeta{StreamStartMs: f64(10000)},
			events: []trace.Event{created(10100, "r1"),
				e(10200, `{"type":"response.output_text.delta","response_id":"r1","delta":"Done."}`),
				audio(10300, "r1", `"sample_rate_hz":24000,"metadata":{"audio_duration_ms":100}`),
				e(10400, `{"type":"response.done","response":{"id":"r1"}}`)},
			want: map[string]string{"request_metrics[0].ttft_ms": `100.0`, "request_metrics[0].ttfp_ms": `200.0`,
				"request_metrics[0].source": `"client_monotonic_receive"`, "request_metrics[0].rtf": `2.0`,
				"request_metrics[0].response_created_to_first_text_ms": absent, "request_metrics[0].tpot_ms": absent,
				"session_metrics.stream_ttft_ms": `200.0`, "session_metrics.stream_ttfp_ms": `300.0`,
				"session_metrics.stream_audio_generation_ms": `300.0`, "session_metrics.stream_rtf": `3.0`},
		},
		{
			name: "worked example 11.2: server values win, 3 bytes -> 0.062 ms",
			meta: trace.SessionMeta{StreamStartMs: f64(9000)},
			events: []trace.Event{created(10000, "r1"),
				e(10300, `{"type":"response.output_audio_transcript.delta","response_id":"r1","delta":"Hi","metadata":{"vllm_omni":{"response_request_metrics":{"ttft_ms":50.0,"ttfp_ms":150.0,"measurement_origin":{"ttft":"accepted native-append start","ttfp":"accepted native-append start"}}}}}`),
				e(10400, `{"type":"response.output_audio.delta","response_id":"r1","delta":"AAAA","metadata":{"vllm_omni":{"response_request_metrics":{"ttft_ms":50.0,"ttfp_ms":150.0,"measurement_origin":{"ttft":"accepted native-append start","ttfp":"accepted native-append start"}}}}}`),
				e(11000, `{"type":"response.done","response_id":"r1"}`)},
			want: map[string]string{"request_metrics[0].ttft_ms": `50.0`, "request_metrics[0].ttfp_ms": `150.0`,
				"request_metrics[0].client_ttft_ms": `300.0`, "request_metrics[0].client_ttfp_ms": `400.0`,
				"request_metrics[0].measurement_origin.ttft":            `"accepted native-append start"`,
				"request_metrics[0].source":                             `"server_request_start_and_client_receive"`,
				"request_metrics[0].response_created_to_first_text_ms":  `300.0`,
				"request_metrics[0].response_created_to_first_audio_ms": `400.0`,
				"request_metrics[0].audio_duration_ms":                  `0.062`, "request_metrics[0].rtf": `6451.612903`,
				"session_metrics.stream_ttft_ms": `1300.0`, "session_metrics.stream_ttfp_ms": `1400.0`},
		},
		{
			name: "server merge is shallow: later null ttft falls back to client, ttfp stays",
			events: []trace.Event{
				e(1000, `{"type":"response.created","response":{"id":"r1","metadata":{"duplex_event":{"response_request_metrics":{"ttft_ms":50,"ttfp_ms":60}}}}}`),
				e(1100, `{"type":"response.output_text.delta","response_id":"r1","delta":"x","response_request_metrics":{"ttft_ms":null}}`),
				audio(1200, "r1", "")},
			want: map[string]string{"request_metrics[0].ttft_ms": `100.0`, "request_metrics[0].ttfp_ms": `60.0`,
				"request_metrics[0].source":                  `"server_request_start_and_client_receive"`,
				"request_metrics[0].measurement_origin.ttft": `"response.created client receive to first non-empty text delta"`},
		},
		{
			name: "server -1 and true are absent, 0 is valid",
			events: []trace.Event{created(1000, "r1"),
				audio(1250, "r1", `"metadata":{"vllm_omni":{"response_request_metrics":{"ttft_ms":-1,"ttfp_ms":0}}}`),
				created(2000, "r2"),
				audio(2300, "r2", `"response_request_metrics":{"ttft_ms":true,"ttfp_ms":"5"}`)},
			want: map[string]string{"request_metrics[0].ttft_ms": `null`, "request_metrics[0].ttfp_ms": `0.0`,
				"request_metrics[0].source":  `"server_request_start_and_client_receive"`,
				"request_metrics[1].ttfp_ms": `300.0`, "request_metrics[1].source": `"client_monotonic_receive"`},
		},
		{
			name: "zero and negative metadata duration: rtf null; stream uses bytes for the negative one",
			events: []trace.Event{created(1000, "r1"), audio(1100, "r1", `"metadata":{"audio_duration_ms":0}`),
				created(2000, "r2"), audio(2100, "r2", `"metadata":{"audio_duration_ms":-5}`)},
			want: map[string]string{"request_metrics[0].audio_duration_ms": `0.0`, "request_metrics[0].rtf": `null`,
				"request_metrics[1].audio_duration_ms": `0.0`, "request_metrics[1].rtf": `null`,
				"session_metrics.rtf": `null`, "session_metrics.stream_audio_duration_ms": `100.0`},
		},
		{
			name:   "metadata duration true counts as 1 ms per response, ignored in the stream window",
			events: []trace.Event{created(1000, "r1"), audio(1100, "r1", `"metadata":{"audio_duration_ms":true}`)},
			want: map[string]string{"request_metrics[0].audio_duration_ms": `1.0`, "request_metrics[0].rtf": `100.0`,
				"session_metrics.stream_audio_duration_ms": `100.0`},
		},
		{
			name: "null and falsy fields: delta null falls through to audio; truthy non-string delta hides audio",
			events: []trace.Event{created(1000, "r1"),
				e(1100, `{"type":"response.output_audio.delta","response_id":"r1","delta":null,"audio":"AAAA"}`),
				created(2000, "r2"),
				e(2100, `{"type":"response.output_audio.delta","response_id":"r2","delta":5,"audio":"AAAA"}`),
				e(2150, `{"type":"response.output_text.delta","response_id":"r2","text":"not a delta"}`)},
			want: map[string]string{"request_metrics[0].response_id": `"r1"`, "request_metrics[0].audio_duration_ms": `0.062`,
				"request_metrics[1]": absent, "session_metrics.audio_turn_count": `1`},
		},
		{
			name: "client_ttfp quirk: empty audio string counts for client_ttfp only",
			events: []trace.Event{created(1000, "r1"),
				e(1100, `{"type":"response.output_audio.delta","response_id":"r1","audio":""}`),
				audio(1300, "r1", "")},
			want: map[string]string{"request_metrics[0].client_ttfp_ms": `100.0`, "request_metrics[0].ttfp_ms": `300.0`},
		},
		{
			name: "duplicated events: seq replay dropped, identical events without seq count twice",
			events: []trace.Event{
				e(1000, `{"type":"response.created","response":{"id":"r1"},"server_event_seq":1}`),
				e(1100, `{"type":"response.output_audio.delta","response_id":"r1","delta":"AAAA","server_event_seq":2}`),
				e(1200, `{"type":"response.output_audio.delta","response_id":"r1","delta":"AAAA","server_event_seq":3}`),
				e(1300, `{"type":"response.output_audio.delta","response_id":"r1","delta":"AAAA","server_event_seq":2}`),
				e(1400, `{"type":"response.output_audio.delta","response_id":"r1","delta":"AAAA","server_event_seq":3}`),
				e(1500, `{"type":"response.output_audio.delta","response_id":"r1","delta":"AAAA","server_event_seq":5.0}`),
				e(1600, `{"type":"response.output_audio.delta","response_id":"r1","delta":"AAAA"}`),
				e(1700, `{"type":"response.output_audio.delta","response_id":"r1","delta":"AAAA"}`),
				e(1800, `{"type":"response.output_audio.delta","response_id":"r1","delta":"AAAA","server_event_seq":4}`)},
			// packets accepted: 1100, 1200, 1500, 1600, 1700, 1800 → 6 × 3 bytes
			want: map[string]string{"request_metrics[0].audio_generation_ms": `800.0`,
				"request_metrics[0].audio_duration_ms": `0.375`},
		},
		{
			name: "session-wide sample rate: a later 48 kHz delta halves an earlier response's duration; floats ignored",
			events: []trace.Event{created(1000, "r1"), audio(1100, "r1", `"sample_rate_hz":24000`),
				e(1200, `{"type":"response.output_audio.delta","response_id":"rX","delta":"","sample_rate_hz":48000}`),
				e(1300, `{"type":"response.output_audio.delta","delta":"","sample_rate_hz":12000.0}`)},
			want: map[string]string{"request_metrics[0].audio_duration_ms": `50.0`},
		},
		{
			name:   "sample_rate_hz true is 1 Hz (Python bool is an int)",
			events: []trace.Event{created(1000, "r1"), e(1100, `{"type":"response.output_audio.delta","response_id":"r1","delta":"AAAA","sample_rate_hz":true}`)},
			want:   map[string]string{"request_metrics[0].audio_duration_ms": `1500.0`},
		},
		{
			name:   "audio and text before response.created: negative client fallback, clamped client values",
			events: []trace.Event{text(900, "r1", "early"), audio(950, "r1", ""), created(1000, "r1"), audio(1200, "r1", "")},
			want: map[string]string{"request_metrics[0].ttft_ms": `-100.0`, "request_metrics[0].ttfp_ms": `-50.0`,
				"request_metrics[0].client_ttft_ms": `0.0`, "request_metrics[0].client_ttfp_ms": `0.0`,
				"request_metrics[0].audio_generation_ms": `200.0`,
				"session_metrics.ttft_ms.mean":           `-100.0`, "session_metrics.client_ttft_ms.mean": `0.0`},
		},
		{
			name: "warm-up response before stream start: listed (index 0), no row, adds its bytes to the stream",
			meta: trace.SessionMeta{StreamStartMs: f64(1000), SampleID: sid("7")},
			events: []trace.Event{created(900, "w"), audio(950, "w", ""),
				created(1500, "r1"), audio(1600, "r1", `"metadata":{"audio_duration_ms":200}`)},
			want: map[string]string{"request_metrics[0].request_index": `1`, "request_metrics[1]": absent,
				"request_metrics[0].sample_id": `"7"`, "request_metrics[0].split": `null`,
				"request_metrics[0].session_id":            `"7"`,
				"session_metrics.stream_audio_duration_ms": `300.0`, "session_metrics.stream_ttfp_ms": `600.0`},
		},
		{
			name:   "response without response.created is invisible, also to the stream window",
			events: []trace.Event{audio(500, "ghost", ""), text(600, "ghost", "boo")},
			want:   map[string]string{"request_metrics": `[]`, "session_metrics.stream_ttfp_ms": absent},
		},
		{
			name: "stage-only row: text response with stage 0 metrics; tpot true → row has no tpot key",
			events: []trace.Event{created(1000, "r1"),
				e(1100, `{"type":"response.output_text.delta","response_id":"r1","delta":"x","metadata":{"vllm_omni":{"stage_metrics":{"0":{"num_tokens_out":7.9,"vllm_ttft_ms":"12.5","vllm_tpot_ms":true,"vllm_itls_ms":[1,true,null,"2",-3,2.0004]}}}}}`)},
			want: map[string]string{"request_metrics[0].stage0_tokens.output_token_count": `7`,
				"request_metrics[0].stage0_tokens.ttft_ms": `12.5`, "request_metrics[0].stage0_tokens.tpot_ms": `1.0`,
				"request_metrics[0].stage0_tokens.itls_ms":                 `[1.0, 1.0, -3.0, 2.0004]`,
				"request_metrics[0].stage0_tokens.inter_token_interval_ms": `{"count":3,"mean":1.333,"p50":1.0,"p95":2.0,"max":2.0}`,
				"request_metrics[0].tpot_ms":                               absent, "request_metrics[0].source": absent,
				"output_tokens": `7`, "session_metrics.audio_turn_count": `1`, "session_metrics.ttft_ms": `null`,
				"session_metrics.tpot_ms": absent},
		},
		{
			name: "row tpot null when vllm_tpot_ms is true; zero tpot kept in row, dropped from summary",
			events: []trace.Event{created(1000, "r1"),
				audio(1100, "r1", `"metadata":{"vllm_omni":{"stage_metrics":{"0":{"num_tokens_out":true,"vllm_tpot_ms":true}}}}`),
				created(2000, "r2"),
				audio(2100, "r2", `"metadata":{"vllm_omni":{"stage_metrics":{"0":{"vllm_tpot_ms":0}}}}`)},
			want: map[string]string{"request_metrics[0].tpot_ms": `null`, "request_metrics[0].stage0_tokens.output_token_count": `1`,
				"request_metrics[1].tpot_ms": `0.0`, "session_metrics.tpot_ms": absent},
		},
		{
			name: "legacy names and stage 1 only are not counted",
			events: []trace.Event{created(1000, "r1"),
				e(1100, `{"type":"response.audio.delta","response_id":"r1","delta":"AAAA"}`),
				e(1150, `{"type":"response.audio_transcript.delta","response_id":"r1","delta":"hi","metadata":{"stage_metrics":{"1":{"num_tokens_out":3}}}}`)},
			want: map[string]string{"request_metrics": `[]`, "output_tokens": `0`},
		},
		{
			name:   "session_id present with null stays null even with a sample_id",
			meta:   trace.SessionMeta{SampleID: sid("9"), Split: sid("RTD_OCR"), SessionIDNull: true},
			events: nil,
			want: map[string]string{"session_metrics.session_id": `null`, "session_metrics.sample_id": `"9"`,
				"session_metrics.split": `"RTD_OCR"`, "session_metrics.rtf": `null`},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res := metrics.ScoreSession(trace.Session{Session: tc.meta, Events: tc.events})
			checkPaths(t, mustJSON(t, res), tc.want)
		})
	}
}

// TestResponseTiming checks the UI extras: receive instants and clocks.
func TestResponseTiming(t *testing.T) {
	t.Parallel()
	res := metrics.ScoreSession(trace.Session{Events: []trace.Event{
		created(1000, "r1"), text(1100, "r1", "a"),
		audio(1200, "r1", `"response_request_metrics":{"ttfp_ms":42}`), audio(1300, "r1", ""),
		created(2000, "r2"),
	}})
	if len(res.Responses) != 2 {
		t.Fatalf("got %d responses, want 2", len(res.Responses))
	}
	r1 := res.Responses[0]
	if !r1.HasRow || *r1.CreatedMs != 1000 || *r1.FirstTextMs != 1100 || *r1.FirstAudioMs != 1200 || *r1.LastAudioMs != 1300 ||
		r1.AudioPackets != 2 || r1.AudioBytes != 9600 || r1.TTFTClock != metrics.ClockClientReceive || r1.TTFPClock != metrics.ClockServer {
		t.Errorf("r1 timing = %+v", r1)
	}
	if r2 := res.Responses[1]; r2.HasRow || r2.RequestIndex != 1 || r2.FirstAudioMs != nil || r2.TTFTClock != metrics.ClockNone {
		t.Errorf("r2 timing = %+v", r2)
	}
	if res.Counts.Accepted != 5 || res.Counts.Legacy != 0 || res.Counts.SampleRates != nil {
		t.Errorf("counts = %+v", res.Counts)
	}
	warn := metrics.ScoreSession(trace.Session{Events: []trace.Event{
		audio(1, "a", `"sample_rate_hz":24000`), audio(2, "b", `"sample_rate_hz":48000`), audio(3, "a", `"sample_rate_hz":24000`),
		e(4, `{"type":"response.audio.delta","response_id":"a","delta":"AAAA"}`),
	}})
	if c := warn.Counts; c.Legacy != 1 || !slices.Equal(c.SampleRates, []float64{24000, 48000}) {
		t.Errorf("warning counts = %+v", c)
	}
}

// TestLocalStreamStart: a live session's local stream-start annotation sets
// the window when nothing else did; ScoreSession ignores it.
func TestLocalStreamStart(t *testing.T) {
	t.Parallel()
	evs := []trace.Event{created(500, "warm"), audio(600, "warm", ""),
		{TMs: 1000, Dir: trace.DirLocal, Event: json.RawMessage(`{"type":"duplexscope.stream_start"}`)},
		created(1500, "r1"), audio(1700, "r1", "")}
	var a metrics.Accumulator
	for _, ev := range evs {
		a.Add(ev)
	}
	live := a.Snapshot()
	if got := live.Summary.Stream.TTFPMs; got != 700 {
		t.Errorf("live stream_ttfp_ms = %v, want 700 (from the local stream start)", got)
	}
	batch := metrics.ScoreSession(trace.Session{Events: evs})
	if got := batch.Summary.Stream.TTFPMs; got != 600 {
		t.Errorf("batch stream_ttfp_ms = %v, want 600 (stream_start_ms absent → 0.0)", got)
	}
}

// Python's json reads NaN/Infinity: non-finite server values are missing;
// non-finite engine values pass through stage0_tokens, where the reference's
// writer raises: Score computes them, the strict writer refuses naming the
// first one's path, and Finite writes each as null and names them all.
func TestNonFiniteTokens(t *testing.T) {
	t.Parallel()
	doc, err := trace.Decode([]byte(`{"session":{},"events":[
		{"t_ms":1000,"dir":"recv","event":{"type":"response.created","response":{"id":"r1"}}},
		{"t_ms":1100,"dir":"recv","event":{"type":"response.output_audio.delta","response_id":"r1","delta":"AAAA",
			"metadata":{"audio_duration_ms":NaN,"vllm_omni":{"response_request_metrics":{"ttft_ms":NaN,"ttfp_ms":Infinity},
			"stage_metrics":{"0":{"num_tokens_out":2,"vllm_ttft_ms":Infinity,"vllm_tpot_ms":NaN,"vllm_itls_ms":[NaN,1]}}}}}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	out, err := metrics.Score(doc)
	if err != nil {
		t.Fatal(err)
	}
	_, err = out.MarshalJSON()
	var ne *metrics.NonFiniteError
	if !errors.As(err, &ne) || ne.Path != "request_metrics[0].stage0_tokens.ttft_ms" || !math.IsInf(ne.Value, 1) {
		t.Fatalf("strict writer: got %v, want a NonFiniteError at request_metrics[0].stage0_tokens.ttft_ms", err)
	}
	clean, paths := metrics.Finite(out)
	wantPaths := []string{"request_metrics[0].stage0_tokens.ttft_ms", "request_metrics[0].stage0_tokens.tpot_ms", "request_metrics[0].stage0_tokens.itls_ms[0]"}
	if !slices.Equal(paths, wantPaths) {
		t.Errorf("Finite paths = %q, want %q", paths, wantPaths)
	}
	b := mustJSON(t, clean.(metrics.Object))
	want := `{"kind":"session","request_metrics":[{"session_id":null,"request_index":0,"response_id":"r1","source":"client_monotonic_receive","measurement_origin":{"ttft":"response.created client receive to first non-empty text delta","ttfp":"response.created client receive to first audio packet","tpot":"Stage-0 engine mean time per output token","rtf":"response.created client receive to last audio packet divided by emitted audio duration","client_ttft":"response.created client receive to first non-empty text delta; includes server prompt preparation and engine submission when they follow response creation, as in Qwen3-Omni","client_ttfp":"response.created client receive to first audio packet; includes server prompt preparation and engine submission when they follow response creation, as in Qwen3-Omni"},"ttft_ms":null,"ttfp_ms":100.0,"audio_generation_ms":100.0,"audio_duration_ms":0.062,"tpot_ms":null,"rtf":1612.903226,"client_ttft_ms":null,"client_ttfp_ms":100.0,"stage0_tokens":{"source":"engine_stage_metrics","output_token_count":2,"ttft_ms":null,"tpot_ms":null,"itls_ms":[null,1.0],"inter_token_interval_ms":{"count":1,"mean":1.0,"p50":1.0,"p95":1.0,"max":1.0}}}],"session_metrics":{"session_id":null,"audio_turn_count":1,"ttft_ms":null,"ttfp_ms":{"count":1,"mean":100.0,"p50":100.0,"p99":100.0},"rtf":{"count":1,"mean":1612.903226,"p50":1612.903226,"p99":1612.903226},"client_ttfp_ms":{"count":1,"mean":100.0,"p50":100.0,"p99":100.0},"stream_ttft_ms":null,"stream_ttfp_ms":1100.0,"stream_rtf":17741.935484,"stream_audio_generation_ms":1100.0,"stream_audio_duration_ms":0.062,"stream_measurement_origin":{"ttft":"input stream start to first non-empty text delta","ttfp":"input stream start to first audio packet","rtf":"input stream start-to-last-audio receive time divided by total emitted audio duration; includes concurrent realtime input"}},"output_tokens":2}`
	if err := conformance.Compare([]byte(want), b); err != nil {
		t.Errorf("%v\n%s", err, b)
	}
}
