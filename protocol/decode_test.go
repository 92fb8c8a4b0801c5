package protocol

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// jsonEqual reports semantic JSON equality (key order and 900 vs 900.0 ignored).
func jsonEqual(t *testing.T, a, b []byte) string {
	t.Helper()
	var va, vb any
	if err := json.Unmarshal(a, &va); err != nil {
		t.Fatalf("unmarshal %s: %v", a, err)
	}
	if err := json.Unmarshal(b, &vb); err != nil {
		t.Fatalf("unmarshal %s: %v", b, err)
	}
	return cmp.Diff(va, vb)
}

func readCases(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "decode", dir, "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no cases in testdata/decode/%s: %v", dir, err)
	}
	out := map[string][]byte{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(f)] = bytes.TrimSpace(b)
	}
	return out
}

// TestDecodeOK decodes every example message of the reference protocol
// (testdata/decode/ok; the events of docs/protocol.md) into its typed
// event and checks that re-encoding loses nothing.
func TestDecodeOK(t *testing.T) {
	t.Parallel()
	for name, in := range readCases(t, "ok") {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ev := mustDecode(t, in)
			if _, ok := ev.(*Unknown); ok {
				t.Fatalf("Decode gave *Unknown for a known type %q", ev.EventType())
			}
			if want := name[:strings.LastIndex(strings.TrimSuffix(name, ".json"), ".")]; ev.EventType() != want {
				t.Errorf("EventType = %q, want %q", ev.EventType(), want)
			}
			if !bytes.Equal(ev.(interface{ header() *Header }).header().Raw, in) {
				t.Errorf("Raw not kept")
			}
			out, err := Marshal(ev)
			if err != nil {
				t.Fatal(err)
			}
			if d := jsonEqual(t, in, out); d != "" {
				t.Errorf("round trip (-in +out):\n%s", d)
			}
		})
	}
}

// TestMarshalIsJSONMarshal: Marshal skips json.Marshal's re-scan of an
// event's MarshalJSON output, so that output must already be what
// json.Marshal makes of it, byte for byte: compact, with <, >, &, U+2028
// and U+2029 escaped, also in kept unknown keys (decoded with their
// spaces). Every example message of the protocol is checked too.
func TestMarshalIsJSONMarshal(t *testing.T) {
	t.Parallel()
	cases := map[string][]byte{
		"spaced extras": []byte(`{"type":"input_audio_buffer.append","audio":"AAAA","x_obj": { "a" : [1, 2 ,3], "b":"<tag> & \u2028" } ,"x_str":"a b<c>","x_null":null}`),
		"nested extras": []byte(`{"type":"response.output_audio.delta","response_id":"r1","delta":"AAAA","metadata":{"x_meta": { "k" : "<&>" }}}`),
		"no extras":     []byte(`{"type":"playback.ack","response_id":"r1","played_ms":120}`),
	}
	for name, in := range readCases(t, "ok") {
		cases["ok/"+name] = in
	}
	for name, in := range cases {
		ev := mustDecode(t, in)
		got, err := Marshal(ev)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want, err := json.Marshal(ev)
		if err != nil {
			t.Fatalf("%s: json.Marshal: %v", name, err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s:\nMarshal      %s\njson.Marshal %s", name, got, want)
		}
	}
	var nilEvent *PlaybackAck
	if b, err := Marshal(nilEvent); err != nil || string(b) != "null" {
		t.Errorf("Marshal(nil *PlaybackAck) = %s, %v; want null", b, err)
	}
}

// TestDecodeUnknown keeps unknown event types raw and without error.
func TestDecodeUnknown(t *testing.T) {
	t.Parallel()
	for name, in := range readCases(t, "unknown-type") {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ev := mustDecode(t, in)
			u, ok := ev.(*Unknown)
			if !ok {
				t.Fatalf("got %T, want *Unknown", ev)
			}
			if !bytes.Equal(u.Raw, in) || u.Type == "" {
				t.Errorf("Unknown = %+v", u)
			}
			if err := u.Validate(); err != nil {
				t.Errorf("Validate: %v", err)
			}
			out, _ := Marshal(u)
			if !bytes.Equal(out, in) {
				t.Errorf("Marshal(Unknown) = %s", out)
			}
		})
	}
}

// TestDecodeUnknownFields keeps unknown keys, also nested ones.
func TestDecodeUnknownFields(t *testing.T) {
	t.Parallel()
	in := []byte(`{"type":"response.output_audio.delta","response_id":"r1","delta":"AAAA","x_top":[1,2],` +
		`"metadata":{"audio_duration_ms":100,"x_meta":true,"vllm_omni":{"x_v":"s","stage_metrics":{"0":{"num_tokens_out":3,"x_s":1}}}}}`)
	ev := mustDecode(t, in)
	d := ev.(*AudioDelta)
	if string(d.Extra["x_top"]) != "[1,2]" || string(d.Metadata.Extra["x_meta"]) != "true" ||
		string(d.Metadata.VLLMOmni.Extra["x_v"]) != `"s"` || string(d.Metadata.VLLMOmni.StageMetrics["0"].Extra["x_s"]) != "1" {
		t.Errorf("extras lost: %+v / %+v", d.Extra, d.Metadata.Extra)
	}
	out, _ := Marshal(d)
	if diff := jsonEqual(t, in, out); diff != "" {
		t.Errorf("(-in +out):\n%s", diff)
	}
}

func TestDecodeErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		in        string
		wantType  string
		wantField string // for *DecodeError
		notEvent  bool
	}{
		{name: "not json", in: `{"type":`, notEvent: false},
		{name: "array", in: `[1,2]`, notEvent: true},
		{name: "no type", in: `{"response_id":"r1"}`, notEvent: true},
		{name: "numeric type", in: `{"type":5}`, notEvent: true},
		{name: "empty", in: ``, notEvent: true},
		{name: "wrong field type", in: `{"type":"response.output_audio.delta","response_id":"r1","sample_rate_hz":"24000"}`,
			wantType: TypeResponseOutputAudioDelta, wantField: "sample_rate_hz"},
		{name: "wrong nested type", in: `{"type":"response.output_audio.delta","response_id":"r1","metadata":{"audio_duration_ms":"x"}}`,
			wantType: TypeResponseOutputAudioDelta, wantField: "metadata.audio_duration_ms"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ev, err := Decode([]byte(tc.in))
			if err == nil {
				t.Fatal("no error")
			}
			u, ok := ev.(*Unknown)
			if !ok || string(u.Raw) != tc.in {
				t.Fatalf("want *Unknown with raw input, got %#v", ev)
			}
			if tc.notEvent && !errors.Is(err, ErrNotEvent) {
				t.Errorf("err = %v, want ErrNotEvent", err)
			}
			if tc.wantField != "" {
				var de *DecodeError
				if !errors.As(err, &de) || de.Event != tc.wantType || de.Field != tc.wantField {
					t.Errorf("err = %#v, want DecodeError{%s, %s}", err, tc.wantType, tc.wantField)
				}
				if u.Type != tc.wantType {
					t.Errorf("Unknown.Type = %q", u.Type)
				}
			}
		})
	}
}

// TestTruncatedAudio decodes deltas whose payload is not valid base64 or
// PCM16: the event decodes, the payload does not.
func TestTruncatedAudio(t *testing.T) {
	t.Parallel()
	for name, in := range readCases(t, "truncated-audio") {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ev := mustDecode(t, in)
			d, ok := ev.(*AudioDelta)
			if !ok {
				t.Fatalf("got %T", ev)
			}
			b, err := d.DecodePayload()
			if err == nil {
				_, err = PCM16Samples(b)
			}
			if err == nil {
				t.Errorf("payload %q decoded as valid PCM16", d.Payload())
			}
		})
	}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in        string
		wantField string // "" = valid
	}{
		{`{"type":"session.update"}`, "session"},
		{`{"type":"session.update","session":{}}`, ""},
		{`{"type":"input_audio_buffer.append","format":"pcm16"}`, "audio"},
		{`{"type":"input_audio_buffer.append","delta":"AAAA"}`, ""},
		{`{"type":"push_chunk","audio":"AAAA"}`, ""},
		{`{"type":"playback.ack","played_ms":0}`, "response_id"},
		{`{"type":"playback.ack","response_id":"r"}`, "played_ms"},
		{`{"type":"playback.ack","response_id":"r","played_ms":-1}`, "played_ms"},
		{`{"type":"playback.ack","response_id":"r","played_ms":0,"committed_ms":0}`, ""},
		{`{"type":"session.event_ack"}`, "server_event_seq"},
		{`{"type":"session.resume","session_id":"s"}`, "resume_token"},
		{`{"type":"response.created","response":{"object":"realtime.response"}}`, "response_id"},
		{`{"type":"response.created","response":{"id":"r1"}}`, ""},
		{`{"type":"response.done"}`, "response_id"},
		{`{"type":"response.output_audio.delta","delta":"AAAA"}`, "response_id"},
		{`{"type":"response.output_audio.delta","response_id":"r1"}`, "delta"},
		{`{"type":"response.output_audio.delta","response_id":"r1","audio":"AAAA"}`, ""},
		{`{"type":"response.audio.delta","response_id":"r1","delta":"AAAA"}`, ""},
		{`{"type":"response.output_audio_transcript.delta","delta":"hi"}`, "response_id"},
		{`{"type":"response.speak"}`, "response_id"},
		{`{"type":"output_audio_buffer.cleared"}`, "response_id"},
		{`{"type":"response.output_audio.done"}`, "response_id"},
		{`{"type":"error"}`, "error"},
		{`{"type":"error","error":"x","code":"config_timeout"}`, ""},
		{`{"type":"session.created"}`, ""},
		{`{"type":"response.listen","response":{"status":"listening"}}`, ""},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			t.Parallel()
			ev := mustDecode(t, tc.in)
			err := ev.Validate()
			if tc.wantField == "" {
				if err != nil {
					t.Errorf("Validate: %v", err)
				}
				return
			}
			var fe *FieldError
			if !errors.As(err, &fe) || fe.Field != tc.wantField || fe.Event != ev.EventType() {
				t.Fatalf("Validate = %v, want field %q", err, tc.wantField)
			}
			if !strings.Contains(err.Error(), ev.EventType()) || !strings.Contains(err.Error(), tc.wantField) {
				t.Errorf("message %q does not name event and field", err)
			}
		})
	}
}

func TestResponseIdentity(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in     string
		want   string
		wantOK bool
	}{
		{`{"response_id":"a","response":{"id":"b"}}`, "a", true},
		{`{"response_id":5,"response":{"id":"b"}}`, "b", true},
		{`{"response_id":null,"response":{"id":"b"}}`, "b", true},
		{`{"response":{"id":"b"}}`, "b", true},
		{`{"response":{"id":7}}`, "", false},
		{`{"response":"x"}`, "", false},
		{`{}`, "", false},
		{`{"response_id":""}`, "", false},                       // "" is no identity
		{`{"response_id":"","response":{"id":"b"}}`, "", false}, // and does not fall back
		{`{"response":{"id":""}}`, "", false},
		{`{"response_id":"\ud800"}`, "\xed\xa0\x80", true},     // a lone surrogate stays itself
		{`{"response_id":"\udbff"}`, "\xed\xaf\xbf", true},     // and differs from another
		{`{"response_id":"\ud83d\ude00"}`, "\U0001F600", true}, // a valid pair is one rune
		{`{"Response_ID":"a"}`, "", false},                     // keys are case-sensitive
		{`not json`, "", false},
	}
	for _, tc := range tests {
		got, ok := ResponseIdentity([]byte(tc.in))
		if got != tc.want || ok != tc.wantOK {
			t.Errorf("ResponseIdentity(%s) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.wantOK)
		}
	}
}

// TestIdentityBytesAllocates: the per-event form of the rule allocates
// only for a literal with an escape (metrics and the session look an
// identity up on every event). Not parallel: AllocsPerRun counts the
// process's allocations.
func TestIdentityBytesAllocates(t *testing.T) {
	tests := []struct {
		outer, inner string
		want         string
		allocs       float64
	}{
		{`"resp_1"`, ``, "resp_1", 0},
		{`5`, ` "resp_2" `, "resp_2", 0},
		{`"r\u00e9"`, ``, "r\u00e9", 1},
	}
	for _, tc := range tests {
		var got []byte
		outer, inner := json.RawMessage(tc.outer), json.RawMessage(tc.inner)
		n := testing.AllocsPerRun(10, func() { got, _ = IdentityBytes(outer, inner) })
		if string(got) != tc.want || n != tc.allocs {
			t.Errorf("IdentityBytes(%s, %s) = %q with %.0f allocations; want %q with %.0f", tc.outer, tc.inner, got, n, tc.want, tc.allocs)
		}
	}
}

func TestSeq(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in     string
		want   int64
		wantOK bool
	}{
		{`{"type":"response.done","server_event_seq":5}`, 5, true},
		{`{"type":"response.done","server_event_seq":5.0}`, 0, false},
		{`{"type":"response.done","server_event_seq":"5"}`, 0, false},
		{`{"type":"response.done","server_event_seq":null}`, 0, false},
		{`{"type":"response.done","server_event_seq":true}`, 1, true},
		{`{"type":"response.done","server_event_seq":false}`, 0, true},
		{`{"type":"response.done"}`, 0, false},
	}
	for _, tc := range tests {
		ev := mustDecode(t, tc.in)
		got, ok := ev.(*ResponseDone).Seq()
		if got != tc.want || ok != tc.wantOK {
			t.Errorf("%s: Seq = %d, %v; want %d, %v", tc.in, got, ok, tc.want, tc.wantOK)
		}
	}
}

func TestErrorShapes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in                 string
		code, msg, eventID string
	}{
		{`{"type":"error","error":{"type":"invalid_request_error","code":"input_audio_buffer_empty","message":"empty","event_id":"evt_1"}}`,
			"input_audio_buffer_empty", "empty", "evt_1"},
		{`{"type":"error","error":"Timeout waiting for session.create","code":"config_timeout"}`,
			"config_timeout", "Timeout waiting for session.create", ""},
		{`{"type":"error","error":{"code":"x"}}`, "x", `{"type":"error","error":{"code":"x"}}`, ""},
		{`{"type":"error","code":"y"}`, "y", `{"type":"error","code":"y"}`, ""},
	}
	for _, tc := range tests {
		ev := mustDecode(t, tc.in)
		e := ev.(*ErrorEvent)
		if e.ErrorCode() != tc.code || e.ErrorMessage() != tc.msg || e.ClientEventID() != tc.eventID {
			t.Errorf("%s: got (%q, %q, %q)", tc.in, e.ErrorCode(), e.ErrorMessage(), e.ClientEventID())
		}
	}
	if ErrorTypeForCode("resource_exhausted") != ErrorTypeRateLimit || ErrorTypeForCode("runtime_oom") != ErrorTypeServer ||
		ErrorTypeForCode("nope") != ErrorTypeInvalidRequest {
		t.Error("ErrorTypeForCode mapping")
	}
}
