package protocol

import (
	"encoding/json"
	"testing"
)

func mustDecode[S ~string | ~[]byte](t *testing.T, s S) Event {
	t.Helper()
	ev, err := Decode([]byte(s))
	if err != nil {
		t.Fatalf("Decode(%s): %v", s, err)
	}
	return ev
}

// TestHelpers checks the accessors clients branch on, each on the wire
// shapes docs/protocol.md describes.
func TestHelpers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		got  any
		want any
	}{
		{"chunk period", mustDecode(t, `{"type":"session.created","session":{"capabilities":{"chunk_period_ms":80}}}`).(*SessionCreated).ChunkPeriod(), 80},
		{"chunk period default", mustDecode(t, `{"type":"session.created"}`).(*SessionCreated).ChunkPeriod(), DefaultChunkPeriodMs},
		{"session id", mustDecode(t, `{"type":"session.created","session":{"session_id":"s9"}}`).(*SessionCreated).Session.SessionIdentity(), "s9"},
		{"session id prefers id", mustDecode(t, `{"type":"session.updated","session":{"id":"a","session_id":"b"}}`).(*SessionUpdated).Session.SessionIdentity(), "a"},
		{"input rate top", mustDecode(t, `{"type":"session.update","session":{"sample_rate_hz":16000,"audio":{"input":{"sample_rate_hz":8000}}}}`).(*SessionUpdate).Session.InputRateHz(), 16000},
		{"input rate nested", mustDecode(t, `{"type":"session.update","session":{"audio":{"input":{"sample_rate_hz":8000}}}}`).(*SessionUpdate).Session.InputRateHz(), 8000},
		{"input rate none", mustDecode(t, `{"type":"session.update","session":{}}`).(*SessionUpdate).Session.InputRateHz(), 0},
		{"output rate", mustDecode(t, `{"type":"session.update","session":{"sample_rate_hz":16000,"audio":{"output":{"sample_rate_hz":48000}}}}`).(*SessionUpdate).Session.OutputRateHz(), 48000},
		{"server vad", mustDecode(t, `{"type":"session.update","session":{"turn_detection":{"type":"server_vad"}}}`).(*SessionUpdate).Session.ServerVAD(), true},
		{"native duplex", mustDecode(t, `{"type":"session.update","session":{"turn_detection":null}}`).(*SessionUpdate).Session.ServerVAD(), false},
		{"append rate alt key", mustDecode(t, `{"type":"input_audio_buffer.append","audio":"AAAA","sample_rate":8000}`).(*InputAudioBufferAppend).RateHz(), 8000},
		{"append format", mustDecode(t, `{"type":"input_audio_buffer.append","audio":"AAAA","format":"pcm16","input_audio_format":"s16le"}`).(*InputAudioBufferAppend).AudioFormatName(), "s16le"},
		{"append delta payload", mustDecode(t, `{"type":"input_audio_buffer.append","delta":"AQA="}`).(*InputAudioBufferAppend).Payload(), "AQA="},
		{"delta falls through to audio", mustDecode(t, `{"type":"response.output_audio.delta","response_id":"r","delta":"","audio":"AAAA"}`).(*AudioDelta).Payload(), "AAAA"},
		{"delta rate default", mustDecode(t, `{"type":"response.output_audio.delta","response_id":"r","delta":"AAAA"}`).(*AudioDelta).RateHz(), 24000},
		{"created identity", mustDecode(t, `{"type":"response.created","response":{"id":"r1"}}`).(*ResponseCreated).ResponseIdentity(), "r1"},
		{"done identity", mustDecode(t, `{"type":"response.done","response_id":"r2","response":{"id":"x"}}`).(*ResponseDone).ResponseIdentity(), "r2"},
		{"done status", mustDecode(t, `{"type":"response.done","response":{"id":"r","status":"cancelled"}}`).(*ResponseDone).Status(), "cancelled"},
		{"listen beat", mustDecode(t, `{"type":"response.listen","response":{"status":"listening","metadata":{"model_listen":true}}}`).(*ResponseListen).ResponseIdentity(), ""},
		{"listen decision", mustDecode(t, `{"type":"response.listen","response_id":"r4","response":{"metadata":{"model_listen":true}}}`).(*ResponseListen).ModelDecision(), true},
		{"listen buffering", mustDecode(t, `{"type":"response.listen","response":{"metadata":{"model_listen":true,"buffering":true}}}`).(*ResponseListen).ModelDecision(), false},
		{"listen no metadata", mustDecode(t, `{"type":"response.listen"}`).(*ResponseListen).ModelDecision(), false},
		{"speak identity", mustDecode(t, `{"type":"response.speak","response_id":"r5"}`).(*ResponseSpeak).ResponseIdentity(), "r5"},
		{"text identity", mustDecode(t, `{"type":"response.text.delta","response_id":"r6","delta":"x"}`).(*TextDelta).ResponseIdentity(), "r6"},
		{"done-event identity", mustDecode(t, `{"type":"response.audio.done","response_id":"r7"}`).(*OutputDone).ResponseIdentity(), "r7"},
		{"cleared identity", mustDecode(t, `{"type":"output_audio_buffer.cleared","response_id":"r8"}`).(*OutputAudioBufferCleared).ResponseIdentity(), "r8"},
		{"close reason", mustDecode(t, `{"type":"session.closed","reason":"client_close"}`).(*SessionClosed).CloseReason(), "client_close"},
		{"close reason in event", mustDecode(t, `{"type":"session.closed","event":{"type":"session.closed","reason":"idle_timeout"}}`).(*SessionClosed).CloseReason(), "idle_timeout"},
		{"close reason none", mustDecode(t, `{"type":"session.closed"}`).(*SessionClosed).CloseReason(), ""},
		{"metrics in metadata", *mustDecode(t, `{"type":"response.speak","response_id":"r","metadata":{"response_request_metrics":{"ttft_ms":5}}}`).(*ResponseSpeak).Metadata.RequestMetrics().TTFTMs, 5.0},
		{"metrics in vllm_omni", *mustDecode(t, `{"type":"response.speak","response_id":"r","metadata":{"vllm_omni":{"response_request_metrics":{"ttfp_ms":7}}}}`).(*ResponseSpeak).Metadata.RequestMetrics().TTFPMs, 7.0},
		{"tolerated", []bool{Tolerated(CodePlaybackAckTooLate), Tolerated(CodePlaybackItemNotFound), Tolerated(CodeEngineError)}, []bool{true, true, false}},
		{"pcm16 spellings", []bool{IsPCM16Format(""), IsPCM16Format("pcm_s16le"), IsPCM16Format("audio/pcm16"), IsPCM16Format("g711_ulaw")}, []bool{true, true, true, false}},
		{"known", []bool{Known(TypeResponseDone), Known(TypeLegacyPushChunk), Known("duplex.step")}, []bool{true, true, false}},
		{"unknown passthrough", []string{LegacyName("x.y"), GAName("x.y"), ClientAlias("x.y")}, []string{"x.y", "x.y", "x.y"}},
	}
	for _, tc := range tests {
		gb, _ := json.Marshal(tc.got)
		wb, _ := json.Marshal(tc.want)
		if string(gb) != string(wb) {
			t.Errorf("%s: got %s, want %s", tc.name, gb, wb)
		}
	}
	var nilCfg *SessionConfig
	if nilCfg.InputRateHz() != 0 || nilCfg.OutputRateHz() != 0 || nilCfg.ServerVAD() {
		t.Error("nil SessionConfig accessors")
	}
	var nilMD *EventMetadata
	if nilMD.RequestMetrics() != nil {
		t.Error("nil metadata")
	}
	if (&Unknown{Type: "a"}).EventType() != "a" {
		t.Error("Unknown.EventType")
	}
	if b, _ := (&Unknown{Type: "a"}).MarshalJSON(); string(b) != `{"type":"a"}` {
		t.Errorf("built Unknown: %s", b)
	}
}

// TestJSONUnmarshalDirect: the typed events also decode through plain
// json.Unmarshal (keeping unknown keys), for callers that know the type.
func TestJSONUnmarshalDirect(t *testing.T) {
	t.Parallel()
	var d AudioDelta
	if err := json.Unmarshal([]byte(`{"type":"response.output_audio.delta","response_id":"r","delta":"AAAA","x":1}`), &d); err != nil {
		t.Fatal(err)
	}
	if d.ResponseID != "r" || string(d.Extra["x"]) != "1" {
		t.Errorf("%+v", d)
	}
	var c PlaybackAck
	if err := json.Unmarshal([]byte(`{"type":"playback.ack","response_id":"r","played_ms":12.5,"y":[1]}`), &c); err != nil || *c.PlayedMs != 12.5 || string(c.Extra["y"]) != "[1]" {
		t.Errorf("%+v %v", c, err)
	}
}
