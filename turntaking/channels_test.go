package turntaking_test

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"testing"

	"github.com/duplexscope/duplexscope/trace"
	"github.com/duplexscope/duplexscope/turntaking"
	"github.com/google/go-cmp/cmp"
)

// pcm16 returns ms of PCM16 at rate: a tone when loud, else silence.
func pcm16(ms, rate int, loud bool) []byte {
	n := ms * rate / 1000
	b := make([]byte, 2*n)
	for i := range n {
		v := 0.0
		if loud {
			v = 0.2 * math.Sin(2*math.Pi*300*float64(i)/float64(rate))
		}
		binary.LittleEndian.PutUint16(b[2*i:], uint16(int16(v*32767)))
	}
	return b
}

func ev(t float64, dir, body string) trace.Event {
	return trace.Event{TMs: t, Dir: dir, Event: json.RawMessage(body)}
}

func TestChannels(t *testing.T) {
	t.Parallel()
	var s trace.Session
	// User: 10 × 200 ms frames from t=1000: speech in frames 0–4 (1000–2000 ms).
	for k := range 10 {
		audio := base64.StdEncoding.EncodeToString(pcm16(200, 16000, k < 5))
		s.Events = append(s.Events, ev(1000+float64(k)*200+float64(min(k, 1)*3), trace.DirSend, // send jitter must not move the media timeline
			fmt.Sprintf(`{"type":"input_audio_buffer.append","audio":%q}`, audio)))
	}
	// Model: two 500 ms packets received together at 2600 → played 2600–3600.
	for range 2 {
		audio := base64.StdEncoding.EncodeToString(pcm16(500, 24000, true))
		s.Events = append(s.Events, ev(2600, trace.DirRecv,
			fmt.Sprintf(`{"type":"response.output_audio.delta","response_id":"r","delta":%q,"sample_rate_hz":24000}`, audio)))
	}
	user, model := turntaking.Channels(s, nil)
	if diff := cmp.Diff([]turntaking.Interval{{StartMs: 1000, EndMs: 2000}}, user); diff != "" {
		t.Errorf("user (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]turntaking.Interval{{StartMs: 2600, EndMs: 3600}}, model); diff != "" {
		t.Errorf("model (-want +got):\n%s", diff)
	}
	end, _ := turntaking.LastEndBefore(user, 2600)
	r := turntaking.ScoreCase(turntaking.Case{Category: turntaking.TurnEnd, AnchorMs: end}, turntaking.SpeechFromIntervals(model))
	if !r.TookTurn || *r.LatencyMs != 600 {
		t.Errorf("turn end result %+v", r)
	}
}
