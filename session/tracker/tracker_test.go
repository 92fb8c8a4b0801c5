package tracker

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duplexscope/duplexscope/session"
	"github.com/duplexscope/duplexscope/trace"
)

func ev(ms float64, dir, js string) trace.Event {
	return trace.Event{TMs: ms, Dir: dir, Event: []byte(js)}
}

// pcm is n bytes of silence-free PCM16, base64 (a delta's payload).
func pcm(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i * 7)
	}
	return base64.StdEncoding.EncodeToString(b)
}

func TestTrackerFollowsResponses(t *testing.T) {
	t.Parallel()
	events := []trace.Event{
		ev(1000, trace.DirLocal, `{"type":"duplexscope.stream_start"}`), // as the session records it
		ev(1000, trace.DirSend, `{"type":"input_audio_buffer.append","audio":"AAAA"}`),
		ev(1010, trace.DirSend, `{"type":"input_audio_buffer.append","audio":"AAAA"}`),
		ev(1100, trace.DirRecv, `{"type":"response.created","response":{"id":"r1"}}`),
		ev(1150, trace.DirRecv, `{"type":"response.output_audio_transcript.delta","response_id":"r1","delta":"hel"}`),
		ev(1160, trace.DirRecv, `{"type":"response.output_audio_transcript.delta","response_id":"r1","delta":"lo"}`),
		ev(1200, trace.DirRecv, `{"type":"response.output_audio.delta","response_id":"r1","delta":"`+pcm(960)+`"}`),
		ev(1300, trace.DirRecv, `{"type":"response.output_audio.delta","response_id":"r1","delta":"`+pcm(480)+`"}`),
		ev(1400, trace.DirRecv, `{"type":"response.output_audio.done","response_id":"r1"}`),
		ev(1500, trace.DirRecv, `{"type":"response.done","response":{"id":"r1","status":"completed"}}`),
		// r2: audio before created (created is seen late), then cleared.
		ev(2000, trace.DirRecv, `{"type":"response.audio.delta","response_id":"r2","delta":"`+pcm(96)+`"}`),
		ev(2050, trace.DirRecv, `{"type":"output_audio_buffer.cleared","response_id":"r2"}`),
		// r3: cancelled before any audio.
		ev(2100, trace.DirRecv, `{"type":"response.created","response":{"id":"r3"}}`),
		ev(2200, trace.DirRecv, `{"type":"response.done","response":{"id":"r3","status":"cancelled"}}`),
		ev(2300, trace.DirLocal, `{"type":"duplexscope.pacing","lag_ms":1.5}`),
		ev(2400, trace.DirLocal, `{"type":"duplexscope.note"}`),
		ev(2500, trace.DirRecv, `not json`),
	}
	tr := New()
	var boundaries, firsts []float64
	var created []float64
	for _, e := range events {
		u := tr.Add(e, nil)
		if u.Boundary {
			boundaries = append(boundaries, e.TMs)
		}
		if u.FirstAudio {
			firsts = append(firsts, e.TMs)
			created = append(created, u.CreatedMs)
		}
	}
	if got := tr.StreamStartMs(); got != 1000 {
		t.Errorf("stream start = %v, want the stream_start entry's stamp 1000", got)
	}
	type resp struct {
		ID                                  string
		CreatedMs, FirstAudioMs, ReceivedMs float64
		Done, AudioDone, Truncated          bool
		Transcript                          string
	}
	var got []resp
	for _, id := range tr.Order() {
		r := tr.Response(id)
		got = append(got, resp{r.ID, r.CreatedMs, r.FirstAudioMs, r.ReceivedMs(), r.Done, r.AudioDone, r.Truncated, r.Transcript})
	}
	want := []resp{
		{"r1", 1100, 1200, 30, true, true, false, "hello"},
		{"r2", 0, 2000, 2, false, false, true, ""},
		{"r3", 2100, 0, 0, true, false, true, ""},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("responses (-want +got)\n%s", diff)
	}
	wantMarks := []Mark{
		{0.1, MarkCreated, "r1"}, {0.15, MarkFirstText, "r1"}, {0.2, MarkFirstAudio, "r1"}, {0.5, MarkDone, "r1"},
		{1.0, MarkFirstAudio, "r2"}, {1.05, MarkCleared, "r2"}, {1.1, MarkCreated, "r3"}, {1.2, MarkDone, "r3"},
	}
	if diff := cmp.Diff(wantMarks, tr.Marks()); diff != "" {
		t.Errorf("marks (-want +got)\n%s", diff)
	}
	if diff := cmp.Diff([]Caption{{0.15, "hello"}}, tr.Captions()); diff != "" {
		t.Errorf("captions (-want +got)\n%s", diff)
	}
	if n := len(tr.Levels()); n != 3 {
		t.Errorf("levels = %d, want one per played audio chunk (3)", n)
	}
	if diff := cmp.Diff([]float64{1200, 1500, 2000, 2200}, boundaries); diff != "" {
		t.Errorf("boundaries (first audio, response.done) (-want +got)\n%s", diff)
	}
	if diff := cmp.Diff([]float64{1200, 2000}, firsts); diff != "" {
		t.Errorf("first audio (-want +got)\n%s", diff)
	}
	if diff := cmp.Diff([]float64{1100, 2000}, created); diff != "" {
		t.Errorf("first audio's created instant (r2: its own, no created seen) (-want +got)\n%s", diff)
	}
	if !tr.Legacy() {
		t.Error("response.audio.delta seen, Legacy = false")
	}
	if diff := cmp.Diff([]float64{1.5}, tr.PacingLagsMs()); diff != "" {
		t.Errorf("pacing lags (-want +got)\n%s", diff)
	}
	if !tr.Known("r1") || tr.Known("nope") {
		t.Error("Known: want r1 known, nope not")
	}
	res := tr.Result()
	if len(res.Rows) == 0 || res.Rows[0].ResponseID != "r1" {
		t.Errorf("metrics rows = %+v, want r1's row", res.Rows)
	}
	if n := len(tr.Log().Last(100)); n != 14 {
		t.Errorf("log rows = %d, want 14 (17 events; the two appends fold, as do r1's two transcript deltas and its two audio deltas)", n)
	}
}

// The player's rule decides what is pushed: audio after the buffer was
// cleared is not played, so it is neither counted nor a first audio.
func TestTrackerFollowsThePlayersRule(t *testing.T) {
	t.Parallel()
	tr := New()
	tr.Add(ev(0, trace.DirRecv, `{"type":"response.created","response":{"id":"r1"}}`), nil)
	tr.Add(ev(10, trace.DirRecv, `{"type":"output_audio_buffer.cleared","response_id":"r1"}`), nil)
	u := tr.Add(ev(20, trace.DirRecv, `{"type":"response.output_audio.delta","response_id":"r1","delta":"`+pcm(480)+`"}`), nil)
	if u.Action == session.PlayPush || u.FirstAudio {
		t.Errorf("audio after cleared: action %v, first audio %v; want not pushed", u.Action, u.FirstAudio)
	}
	if r := tr.Response("r1"); r.ReceivedMs() != 0 || r.FirstAudioMs != 0 {
		t.Errorf("r1 received %v ms, first audio %v; want none", r.ReceivedMs(), r.FirstAudioMs)
	}
}

// An event naming its response both ways follows the one identity rule
// (protocol.ResponseIdentity), as the metrics do.
func TestTrackerIdentity(t *testing.T) {
	t.Parallel()
	tr := New()
	tr.Add(ev(0, trace.DirRecv, `{"type":"response.created","response":{"id":"r1"}}`), nil)
	tr.Add(ev(5, trace.DirRecv, `{"type":"response.output_audio.delta","response_id":7,"response":{"id":"r1"},"delta":"`+pcm(480)+`"}`), nil)
	res := tr.Result()
	var rowIDs []string
	for _, r := range res.Responses {
		rowIDs = append(rowIDs, r.ResponseID)
	}
	if r := tr.Response("r1"); r == nil || r.ReceivedMs() != 10 {
		t.Fatalf("r1 = %+v; want the delta's 10 ms counted for r1 (metrics: %v)", r, rowIDs)
	}
}

func TestClipText(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{{"hello", 5, "hello"}, {"hello!", 5, "hell…"}, {strings.Repeat("é", 6), 5, "éééé…"}} {
		if got := ClipText(c.in, c.n); got != c.want {
			t.Errorf("ClipText(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
}

// BenchmarkObserveAudioDelta: what the page does with one 1 s audio delta
// (64 kB) after the session decoded it — the tracker (metrics, player rule,
// levels, log) and the turn-taking input — with the session's decode
// handed over, as Observer.OnEvent does (go test -run '^$' -bench
// ObserveAudioDelta -benchmem ./session/tracker/).
func BenchmarkObserveAudioDelta(b *testing.B) {
	benchAudioDelta(b, func(tr *Tracker, msg trace.Event, rx *session.Received) {
		tr.Add(msg, rx)
		TurnInput(msg.TMs, rx)
	})
}

// BenchmarkTrackAudioDelta: the session worker's part of the above (the
// tracker alone; its turn-taking input reuses the same PCM).
func BenchmarkTrackAudioDelta(b *testing.B) {
	benchAudioDelta(b, func(tr *Tracker, msg trace.Event, rx *session.Received) { tr.Add(msg, rx) })
}

// benchAudioDelta times observe on a 1 s audio delta of an open response,
// the session's decode handed over (its cost is paid in the session's handle).
func benchAudioDelta(b *testing.B, observe func(tr *Tracker, msg trace.Event, rx *session.Received)) {
	tr := New()
	tr.Add(ev(0, trace.DirRecv, `{"type":"response.created","response":{"id":"r1"}}`), nil)
	msg := ev(1, trace.DirRecv, `{"type":"response.output_audio.delta","response_id":"r1","delta":"`+pcm(48000)+`","sample_rate_hz":24000}`)
	b.SetBytes(int64(len(msg.Event)))
	b.ReportAllocs()
	for range b.N {
		b.StopTimer()
		rx, _ := session.DecodeReceived(msg.Event)
		b.StartTimer()
		observe(tr, msg, rx)
	}
}
