package session

import (
	"bytes"
	"encoding/base64"
	"strings"
	"testing"
)

func pcmB64(n int) string { return base64.StdEncoding.EncodeToString(make([]byte, n)) }

func TestDecodeReceived(t *testing.T) {
	cases := []struct {
		name, in     string
		typ, id      string
		pcmBytes     int
		text, status string
	}{
		{"GA audio", `{"type":"response.output_audio.delta","response_id":"r1","delta":"` + pcmB64(480) + `"}`, "response.output_audio.delta", "r1", 480, "", ""},
		{"legacy audio field", `{"type":"response.audio.delta","response_id":"r2","audio":"` + pcmB64(6) + `"}`, "response.audio.delta", "r2", 6, "", ""},
		// The identity bug of issue 18: a numeric response_id with
		// response.id "r1" is r1 (metrics' rule), not dropped.
		{"numeric response_id, response.id", `{"type":"response.output_audio.delta","response_id":7,"response":{"id":"r1"},"delta":"` + pcmB64(48) + `"}`, "response.output_audio.delta", "r1", 48, "", ""},
		{"string response does not drop the event", `{"type":"response.output_audio.delta","response_id":"r3","response":"x","delta":"` + pcmB64(4) + `"}`, "response.output_audio.delta", "r3", 4, "", ""},
		{"float rate does not drop the event", `{"type":"response.output_audio.delta","response_id":"r4","sample_rate_hz":24000.0,"delta":"` + pcmB64(4) + `"}`, "response.output_audio.delta", "r4", 4, "", ""},
		{"16 kHz resampled to 24 kHz", `{"type":"response.output_audio.delta","response_id":"r5","sample_rate_hz":16000,"delta":"` + pcmB64(320) + `"}`, "response.output_audio.delta", "r5", 480, "", ""},
		{"odd byte dropped", `{"type":"response.output_audio.delta","response_id":"r6","delta":"` + pcmB64(5) + `"}`, "response.output_audio.delta", "r6", 4, "", ""},
		{"escaped base64 (\\/)", `{"type":"response.output_audio.delta","response_id":"r8","delta":"` + strings.ReplaceAll(base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{0xff}, 480)), "/", `\/`) + `"}`, "response.output_audio.delta", "r8", 480, "", ""},
		{"empty delta falls back to audio", `{"type":"response.output_audio.delta","response_id":"r9","delta":"","audio":"` + pcmB64(8) + `"}`, "response.output_audio.delta", "r9", 8, "", ""},
		{"null delta falls back to audio", `{"type":"response.output_audio.delta","response_id":"r9","delta":null,"audio":"` + pcmB64(8) + `"}`, "response.output_audio.delta", "r9", 8, "", ""},
		{"bad base64 is no audio", `{"type":"response.output_audio.delta","response_id":"r7","delta":"%%%"}`, "response.output_audio.delta", "r7", 0, "", ""},
		{"transcript", `{"type":"response.output_audio_transcript.delta","response_id":"r1","delta":"hi"}`, "response.output_audio_transcript.delta", "r1", 0, "hi", ""},
		{"whole transcript", `{"type":"response.output_audio_transcript.done","response_id":"r1","transcript":"hi there"}`, "response.output_audio_transcript.done", "r1", 0, "hi there", ""},
		{"cancelled", `{"type":"response.done","response":{"id":"r1","status":"cancelled"}}`, "response.done", "r1", 0, "", "cancelled"},
		{"empty id is none", `{"type":"response.created","response_id":""}`, "response.created", "", 0, "", ""},
		{"a rate of 1 Hz is ignored (bound)", `{"type":"response.output_audio.delta","response_id":"r10","sample_rate_hz":1,"delta":"` + pcmB64(8) + `"}`, "response.output_audio.delta", "r10", 8, "", ""},
		{"numeric status does not drop the event", `{"type":"response.done","status":5,"response":{"id":"r11","status":"cancelled","status_details":7}}`, "response.done", "r11", 0, "", "cancelled"},
		{"escaped text", `{"type":"response.output_text.delta","response_id":"r12","delta":"say \"hi\"\u00e9"}`, "response.output_text.delta", "r12", 0, "say \"hi\"é", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, ok := DecodeReceived([]byte(c.in))
			if !ok {
				t.Fatal("not decoded")
			}
			if r.Type != c.typ || r.ID != c.id || len(r.PCM()) != c.pcmBytes || r.Text != c.text || r.Status != c.status {
				t.Errorf("got %q %q %d bytes %q %q, want %q %q %d %q %q", r.Type, r.ID, len(r.PCM()), r.Text, r.Status, c.typ, c.id, c.pcmBytes, c.text, c.status)
			}
		})
	}
	for _, bad := range []string{`[1]`, `"x"`, `{"type":`, ``} {
		if _, ok := DecodeReceived([]byte(bad)); ok {
			t.Errorf("%q decoded", bad)
		}
	}
}

// receivedAudio is a received audio delta of pcm, as a session decodes one.
func receivedAudio(typ, id string, pcm []byte) *Received {
	return &Received{Type: typ, ID: id, audio: []byte(base64.StdEncoding.EncodeToString(pcm))}
}

func TestPlaybackFeed(t *testing.T) {
	pcm := make([]byte, 4)
	steps := []struct {
		r     *Received
		act   PlayAction
		first bool
	}{
		{&Received{Type: "response.output_audio.done", ID: "x"}, PlayNone, false}, // unknown: nothing
		{&Received{Type: "response.created", ID: "a"}, PlayNone, false},
		{receivedAudio("response.output_audio.delta", "a", pcm), PlayPush, true},
		{receivedAudio("response.output_audio.delta", "a", pcm), PlayPush, false},
		{&Received{Type: "response.output_audio.delta", ID: "a"}, PlayNone, false}, // no audio
		{&Received{Type: "response.output_audio.done", ID: "a"}, PlayDone, false},
		{receivedAudio("response.output_audio.delta", "", pcm), PlayNone, false},
		{receivedAudio("response.output_audio.delta", "b", pcm), PlayPush, true}, // audio before created
		{&Received{Type: "output_audio_buffer.cleared", ID: "b"}, PlayClear, false},
		{receivedAudio("response.output_audio.delta", "b", pcm), PlayNone, false}, // after clear
		{&Received{Type: "response.output_text.delta", ID: "c", Text: "t"}, PlayNone, false},
		{&Received{Type: "response.done", ID: "c", Status: "cancelled"}, PlayDone, false},
		{receivedAudio("response.output_audio.delta", "c", pcm), PlayNone, false}, // cancelled
		{&Received{Type: "output_audio_buffer.cleared", ID: "zz"}, PlayNone, false},
	}
	var f PlaybackFeed
	for i, s := range steps {
		act, first := f.Action(s.r)
		if act != s.act || first != s.first {
			t.Errorf("step %d (%s %s): got %v first=%v, want %v first=%v", i, s.r.Type, s.r.ID, act, first, s.act, s.first)
		}
	}
}

func TestPlaybackAcks(t *testing.T) {
	type rep struct {
		kind   string
		played int // samples at 24 kHz
		ms     int
		ok     bool
	}
	steps := []rep{
		{"progress", 0, 0, false}, // progress before any ack: under one step
		{"start", 0, 0, true},     // the first played sample acks 0
		{"progress", 2400, 0, false},
		{"progress", 4800, 200, true},
		{"progress", 4800, 0, false},
		{"progress", 9000, 0, false}, // 375 ms: < 200 past 200
		{"progress", 9600, 400, true},
		{"drained", 9700, 404, true}, // drain acks whatever played
		{"drained", 9700, 404, true}, // a repeated drain re-acks (only progress is deduplicated), as the page always did
		{"cleared", 2400, 0, false},  // never backwards
	}
	var a PlaybackAcks
	for i, s := range steps {
		ms, ok := a.Report(s.kind, "r", s.played, 24000)
		if ok != s.ok || (ok && ms != s.ms) {
			t.Errorf("step %d %s %d: got %d,%v want %d,%v", i, s.kind, s.played, ms, ok, s.ms, s.ok)
		}
	}
	var b PlaybackAcks
	if ms, ok := b.Report("start", "q", 0, 24000); !ok || ms != 0 {
		t.Errorf("start: %d %v", ms, ok)
	}
	if _, ok := b.Report("start", "q", 0, 24000); ok {
		t.Error("a second start acked again")
	}
}
