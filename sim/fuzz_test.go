//go:build !js

package sim

import (
	"bytes"
	"testing"
	"time"
)

// FuzzEngine feeds arbitrary client frames (one per line) to a session
// after a valid session.update: the engine must never panic, and every
// response.done must follow its response.created (hostile-client input,
// issue 10).
func FuzzEngine(f *testing.F) {
	f.Add([]byte(`{"type":"input_audio_buffer.append","audio":"AAAA"}` + "\n" + `{"type":"input_audio_buffer.commit"}`))
	f.Add([]byte(`{"type":"playback.ack","response_id":"x","played_ms":1e308}` + "\n" + `{"type":"session.close"}` + "\n" + `{"type":"session.close"}`))
	f.Add([]byte(`{"type":"session.update","session":{"audio":{"output":{"sample_rate_hz":7}}}}` + "\n" + `{"type":"response.create"}` + "\n" + `{"type":"response.cancel"}`))
	f.Add([]byte(`{"type":"input_audio_buffer.append","audio":"` + string(bytes.Repeat([]byte("f/8A"), 2000)) + `"}` + "\n" + `{"type":"output_audio_buffer.clear"}`))
	f.Add([]byte("\x00\xff\n[]\n{}\n{\"type\":null}"))
	sc, err := Profile(ProfileTest)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		h := newHarness(t, sc, "sim_behavior=yields")
		h.update(0)
		at := time.Millisecond
		for _, line := range bytes.Split(data, []byte("\n")) {
			h.send(at, line)
			at += 50 * time.Millisecond
		}
		h.runUntil(at + 2*time.Second)
		checkInvariants(t, h)
	})
}
