//go:build !js

package sim

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/duplexscope/duplexscope/protocol"
)

func decodeSession(t *testing.T, js string) *protocol.SessionConfig {
	t.Helper()
	var c protocol.SessionConfig
	if err := json.Unmarshal([]byte(js), &c); err != nil {
		t.Fatal(err)
	}
	return &c
}

func TestClientEventID(t *testing.T) {
	t.Parallel()
	tests := []struct{ frame, want string }{
		{`{"type":"x","event_id":"evt_1"}`, "evt_1"},
		{`{"type":"x","event_id":7}`, ""},
		{`{"type":"x"}`, ""},
		{`{"event_id":"evt_2","audio":`, ""}, // truncated JSON: nothing to echo
		{`[]`, ""},
	}
	for _, tc := range tests {
		if got := clientEventID([]byte(tc.frame)); got != tc.want {
			t.Errorf("clientEventID(%s) = %q, want %q", tc.frame, got, tc.want)
		}
	}
}

// TestAudioFormatRefusal: PCM16 only, 16 kHz input, 8–48 kHz output.
func TestAudioFormatRefusal(t *testing.T) {
	t.Parallel()
	tests := []struct{ session, want string }{
		{`{}`, ""},
		{`{"input_audio_format":"pcm16","output_audio_format":"pcm16","sample_rate_hz":16000,"audio":{"output":{"sample_rate_hz":24000}}}`, ""},
		{`{"input_audio_format":"g711_ulaw"}`, "Unsupported input_audio_format: g711_ulaw"},
		{`{"output_audio_format":"opus"}`, "Unsupported output_audio_format: opus"},
		{`{"sample_rate_hz":24000}`, "Unsupported input sample_rate_hz 24000 (16000 only)"},
		{`{"audio":{"output":{"sample_rate_hz":7999}}}`, "Unsupported output sample_rate_hz 7999"},
		{`{"audio":{"output":{"sample_rate_hz":48001}}}`, "Unsupported output sample_rate_hz 48001"},
		{`{"audio":{"output":{"sample_rate_hz":8000}}}`, ""},
		{`{"audio":{"output":{"sample_rate_hz":48000}}}`, ""},
	}
	for _, tc := range tests {
		if got := audioFormatRefusal(decodeSession(t, tc.session)); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.session, got, tc.want)
		}
	}
}

// TestUpdateRefusal: a later session.update may not change the model, the
// reference audio, or the voice once audio was appended.
func TestUpdateRefusal(t *testing.T) {
	t.Parallel()
	tests := []struct {
		session string
		inBytes int64
		want    string
	}{
		{`{"model":"test-model","voice":"x"}`, 0, ""},
		{`{"model":"other"}`, 0, "model_update_unsupported"},
		{`{"ref_audio":"data:audio/wav;base64,AAAA"}`, 0, "ref_audio_update_unsupported"},
		{`{"voice":"x"}`, 2, "voice_update_after_audio_unsupported"},
		{`{"instructions":"be brief","idle_timeout_s":5}`, 2, ""},
	}
	for _, tc := range tests {
		h := newHarness(t, mustProfile(t, ProfileTest), "")
		h.update(0)
		h.e.inBytes = tc.inBytes
		code, msg := h.e.updateRefusal(decodeSession(t, tc.session))
		if code != tc.want || (code == "") != (msg == "") {
			t.Errorf("%s after %d bytes: %q %q, want %q", tc.session, tc.inBytes, code, msg, tc.want)
		}
	}
}

// TestDecodeAppend: a refused append sends one error and is not taken.
func TestDecodeAppend(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, append string
		samples      int
		code         string
	}{
		{"ok", `{"type":"input_audio_buffer.append","audio":"AAABAA==","format":"pcm16","sample_rate_hz":16000}`, 2, ""},
		{"format", `{"type":"input_audio_buffer.append","audio":"AAAA","format":"opus"}`, 0, protocol.CodeUnsupportedAudioFormat},
		{"rate", `{"type":"input_audio_buffer.append","audio":"AAAA","sample_rate_hz":24000}`, 0, protocol.CodeUnsupportedAudioFormat},
		{"base64", `{"type":"input_audio_buffer.append","audio":"!!!!"}`, 0, protocol.CodeBadAudio},
		{"odd bytes", `{"type":"input_audio_buffer.append","audio":"AAAA"}`, 0, protocol.CodeBadAudio},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, mustProfile(t, ProfileTest), "")
			h.update(0)
			h.runUntil(0)
			var ev protocol.InputAudioBufferAppend
			if err := json.Unmarshal([]byte(tc.append), &ev); err != nil {
				t.Fatal(err)
			}
			samples, ok := h.e.decodeAppend(ms, &ev)
			h.runUntil(ms)
			errs := h.ofType(protocol.TypeError)
			switch {
			case ok != (tc.code == "") || len(samples) != tc.samples:
				t.Errorf("ok %v, %d samples; want %d samples, error %q", ok, len(samples), tc.samples, tc.code)
			case tc.code == "" && len(errs) != 0, tc.code != "" && (len(errs) != 1 || str(errs[0].ev, "error", "code") != tc.code):
				t.Errorf("errors %v, want code %q", errs, tc.code)
			case tc.code != "" && !strings.Contains(string(errs[0].frame), "input"):
				t.Errorf("message does not say what was refused: %s", errs[0].frame)
			}
		})
	}
}
