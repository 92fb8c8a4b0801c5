package protocol_test

import (
	"fmt"
	"net/url"

	"github.com/duplexscope/duplexscope/protocol"
)

func ExampleDecode() {
	ev, err := protocol.Decode([]byte(`{"type":"response.output_audio.delta","response_id":"r1","delta":"AQD+/w==","sample_rate_hz":24000,"metadata":{"audio_duration_ms":0}}`))
	if err != nil {
		panic(err)
	}
	d := ev.(*protocol.AudioDelta)
	pcm, _ := d.DecodePayload()
	fmt.Println(d.EventType(), d.ResponseIdentity(), len(pcm), protocol.AudioMs(int64(len(pcm)), d.RateHz()))
	// Output: response.output_audio.delta r1 4 0.08333333333333333
}

func ExampleBuildRealtimeURL() {
	u, _ := protocol.BuildRealtimeURL("http://127.0.0.1:8080", url.Values{"model": {"m"}})
	fmt.Println(u)
	// Output: ws://127.0.0.1:8080/v1/realtime?autostart=0&duplex=1&model=m
}

func ExampleDurationMs() {
	// The last chunk of a 10 s stream after the final-commit tail rule: 6 398 bytes.
	fmt.Println(protocol.DurationMs(6398, 16000, protocol.RoundFloor), protocol.DurationMs(6398, 16000, protocol.RoundHalfEven))
	// Output: 199 200
}
