package app

import (
	"encoding/base64"
	"testing"

	"github.com/duplexscope/duplexscope/session"
	"github.com/duplexscope/duplexscope/session/tracker"
	"github.com/duplexscope/duplexscope/trace"
)

// TestLiveRunOnEvent: a session on the page's thread hands onEvent each
// wire-log entry with its decode. The run follows responses by the one
// identity rule (an audio delta naming r1 only in response.id, beside a
// numeric response_id, is r1's: the page used to drop its audio), keeps
// the audio it plays per response (replay, the report), gives a probe
// sent before a response's first audio that response as its resume, and
// draws at once at each boundary (first audio, done).
func TestLiveRunOnEvent(t *testing.T) {
	t.Parallel()
	var published []*liveSnapshot
	r := &liveRun{tracker: tracker.New(), wire: tracker.NewView(), playback: newPlayback(), life: newLifecycle(),
		probes:  liveProbes{sent: []*sentProbe{{ID: "probe_1", Kind: "interruption", OnsetMs: 1200}}},
		publish: func(s *liveSnapshot) { published = append(published, s) }}
	pcm := make([]byte, 4800) // 100 ms at 24 kHz
	for i := range pcm {
		pcm[i] = byte(i*7 + 1)
	}
	b64 := base64.StdEncoding.EncodeToString(pcm)
	events := []trace.Event{
		{TMs: 1000, Dir: trace.DirLocal, Event: []byte(`{"type":"duplexscope.stream_start"}`)},
		{TMs: 1500, Dir: trace.DirRecv, Event: []byte(`{"type":"response.created","response":{"id":"r1"}}`)},
		{TMs: 1600, Dir: trace.DirRecv, Event: []byte(`{"type":"response.output_audio.delta","response_id":7,"response":{"id":"r1"},"delta":"` + b64 + `"}`)},
		{TMs: 1650, Dir: trace.DirRecv, Event: []byte(`not json`)},
		{TMs: 1700, Dir: trace.DirRecv, Event: []byte(`{"type":"response.done","response":{"id":"r1","status":"completed"}}`)},
	}
	for _, ev := range events {
		var rx *session.Received
		if ev.Dir == trace.DirRecv {
			if d, ok := session.DecodeReceived(ev.Event); ok {
				rx = d
			}
		}
		r.onEvent(ev, rx)
	}
	if order := r.wire.Order(); len(order) != 1 || order[0] != "r1" {
		t.Fatalf("responses %v, want [r1]", order)
	}
	if got := r.wire.Response("r1").ReceivedMs(); got != 100 {
		t.Errorf("r1 received %v ms of audio, want 100", got)
	}
	if got := r.playback.output(r.wire.Order()); len(got) != len(pcm) || got[0] != pcm[0] {
		t.Errorf("kept %d bytes of r1's audio, want its %d", len(got), len(pcm))
	}
	if got := r.probes.sent[0].ResumeMs; got != 1500 {
		t.Errorf("probe_1 resume %v, want r1's created at 1500", got)
	}
	if len(published) < 2 {
		t.Fatalf("%d snapshots drawn, want one at each boundary (first audio, done)", len(published))
	}
	if last := published[len(published)-1]; last.Responses != 1 {
		t.Errorf("last snapshot shows %d responses, want 1", last.Responses)
	}
}
