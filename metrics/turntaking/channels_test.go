package turntaking_test

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"testing"

	"github.com/duplexscope/duplexscope/metrics/turntaking"
	"github.com/duplexscope/duplexscope/trace"
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

// TestChannelsCleared: output_audio_buffer.cleared stops the simulated
// player at its receive time; queued audio after it is dropped.
func TestChannelsCleared(t *testing.T) {
	t.Parallel()
	var s trace.Session
	// Three 500 ms packets received at 1000 → queued 1000–2500; cleared at 1600.
	for range 3 {
		audio := base64.StdEncoding.EncodeToString(pcm16(500, 24000, true))
		s.Events = append(s.Events, ev(1000, trace.DirRecv,
			fmt.Sprintf(`{"type":"response.output_audio.delta","response_id":"r","delta":%q}`, audio)))
	}
	s.Events = append(s.Events, ev(1600, trace.DirRecv, `{"type":"output_audio_buffer.cleared","response_id":"r"}`))
	// A new answer at 2000 plays at once (the player is free again).
	audio := base64.StdEncoding.EncodeToString(pcm16(500, 24000, true))
	s.Events = append(s.Events, ev(2000, trace.DirRecv,
		fmt.Sprintf(`{"type":"response.output_audio.delta","response_id":"r2","delta":%q}`, audio)))
	_, model := turntaking.Channels(s, nil)
	want := []turntaking.Interval{{StartMs: 1000, EndMs: 1600}, {StartMs: 2000, EndMs: 2500}}
	if diff := cmp.Diff(want, model); diff != "" {
		t.Errorf("model (-want +got):\n%s", diff)
	}
}

// TestScoreTrace: labels on the clip clock are moved to the trace clock by
// the first append's send time and snapped to the detected user speech
// edge; the model segment's words come from its response's transcript.
func TestScoreTrace(t *testing.T) {
	t.Parallel()
	build := func(transcript string, modelMs int) trace.Session {
		var s trace.Session
		// User: 200 ms frames from t=500: speech 0–1000 ms of media (frames 0–4), then silence.
		for k := range 10 {
			audio := base64.StdEncoding.EncodeToString(pcm16(200, 16000, k < 5))
			s.Events = append(s.Events, ev(500+float64(k)*200, trace.DirSend, fmt.Sprintf(`{"type":"input_audio_buffer.append","audio":%q}`, audio)))
		}
		if transcript != "" {
			s.Events = append(s.Events, ev(1700, trace.DirRecv, fmt.Sprintf(`{"type":"response.output_audio_transcript.delta","response_id":"r","delta":%q}`, transcript)))
		}
		audio := base64.StdEncoding.EncodeToString(pcm16(modelMs, 24000, true))
		s.Events = append(s.Events, ev(1800, trace.DirRecv, fmt.Sprintf(`{"type":"response.output_audio.delta","response_id":"r","delta":%q}`, audio)))
		return s
	}
	f := func(v float64) *float64 { return &v }
	// Label 40 ms off the real speech end (media 1000 ms): snapped to trace 1500.
	labels := []turntaking.Label{{ID: "t", Category: turntaking.TurnEnd, OnsetMs: 0, OffsetMs: 960, AnchorMs: 960}}
	tests := []struct {
		name       string
		transcript string
		modelMs    int
		took       bool
	}{
		{"long answer", "", 1500, true},
		{"short, no transcript: backchannel", "", 500, false},
		{"short, 2 words: backchannel", "mm hm", 500, false},
		{"short, 5 words: takeover", "sure, I can do that", 500, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sc, ok := turntaking.ScoreTrace(build(tc.transcript, tc.modelMs), labels, nil)
			if !ok || sc.OriginMs != 500 || len(sc.Cases) != 1 {
				t.Fatalf("ScoreTrace = %+v, %v", sc, ok)
			}
			c := sc.Cases[0]
			if c.AnchorMs != 1500 || c.AnchorSource != "vad" || c.WindowMs != turntaking.DefaultWindowMs {
				t.Errorf("anchor %v (%s) window %v, want 1500 (vad) %v", c.AnchorMs, c.AnchorSource, c.WindowMs, turntaking.DefaultWindowMs)
			}
			want := turntaking.CaseResult{ID: "t", Category: turntaking.TurnEnd}
			if tc.took {
				want.TookTurn, want.OnsetMs, want.LatencyMs = true, f(1800), f(300)
			}
			if diff := cmp.Diff(want, c.CaseResult); diff != "" {
				t.Errorf("case (-want +got):\n%s", diff)
			}
			if len(sc.Scores) != 1 || sc.Scores[0].Cases != 1 || (sc.Scores[0].Takeovers == 1) != tc.took {
				t.Errorf("scores %+v", sc.Scores)
			}
		})
	}
	if _, ok := turntaking.ScoreTrace(trace.Session{}, labels, nil); ok {
		t.Error("a session without input audio scored")
	}
}

func TestParseLabels(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, rec string
		n         int
		wantErr   bool
	}{
		{"none", `{"sample_id":"a"}`, 0, false},
		{"one", `{"turntaking":{"cases":[{"id":"p","category":"pause","onset_ms":0,"offset_ms":900,"anchor_ms":900,"window_ms":1000}]}}`, 1, false},
		{"bad category", `{"turntaking":{"cases":[{"id":"p","category":"chat","anchor_ms":900}]}}`, 0, true},
		{"offset before onset", `{"turntaking":{"cases":[{"id":"p","category":"pause","onset_ms":900,"offset_ms":100,"anchor_ms":100}]}}`, 0, true},
		{"not json", `{`, 0, true},
	}
	for _, tc := range tests {
		got, err := turntaking.ParseLabels(json.RawMessage(tc.rec))
		if (err != nil) != tc.wantErr || len(got) != tc.n {
			t.Errorf("%s: %d labels, err %v", tc.name, len(got), err)
		}
	}
}

// TestRecorderMatchesScoreTrace: a Recorder fed event by event scores
// every prefix of a session exactly as ScoreTrace scores that prefix
// (transcripts, a cleared answer and a second answer included), so the
// page's live cards use the rule of its saved report.
func TestRecorderMatchesScoreTrace(t *testing.T) {
	t.Parallel()
	var s trace.Session
	for k := range 20 { // user speaks 0–1000 and 2400–3000 ms of media, from t=500
		audio := base64.StdEncoding.EncodeToString(pcm16(200, 16000, k < 5 || (k >= 12 && k < 15)))
		s.Events = append(s.Events, ev(500+float64(k)*200, trace.DirSend, fmt.Sprintf(`{"type":"input_audio_buffer.append","audio":%q}`, audio)))
	}
	s.Events = append(s.Events, ev(1700, trace.DirRecv, `{"type":"response.output_audio_transcript.delta","response_id":"r","delta":"Sure, the museum opens at nine."}`))
	for i := range 4 { // 4 × 500 ms received from 1800, cleared at 3000 (user barge-in)
		audio := base64.StdEncoding.EncodeToString(pcm16(500, 24000, true))
		s.Events = append(s.Events, ev(1800+float64(i)*100, trace.DirRecv, fmt.Sprintf(`{"type":"response.output_audio.delta","response_id":"r","delta":%q}`, audio)))
	}
	s.Events = append(s.Events, ev(3000, trace.DirRecv, `{"type":"output_audio_buffer.cleared","response_id":"r"}`))
	// A 600 ms "Mm." after the barge-in: a backchannel, not a takeover.
	audio := base64.StdEncoding.EncodeToString(pcm16(600, 24000, true))
	s.Events = append(s.Events, ev(3900, trace.DirRecv, fmt.Sprintf(`{"type":"response.output_audio.delta","response_id":"r2","delta":%q}`, audio)))
	s.Events = append(s.Events, ev(4400, trace.DirRecv, `{"type":"response.output_audio_transcript.done","response_id":"r2","transcript":"Mm."}`))
	sort.SliceStable(s.Events, func(i, j int) bool { return s.Events[i].TMs < s.Events[j].TMs }) // a wire log is in time order
	labels := []turntaking.Label{
		{ID: "end", Category: turntaking.TurnEnd, OffsetMs: 1000, AnchorMs: 1000},
		{ID: "cut", Category: turntaking.Interruption, OnsetMs: 2400, OffsetMs: 3000, AnchorMs: 2400},
	}
	var rec turntaking.Recorder
	for n, e := range s.Events {
		rec.Add(e)
		prefix := trace.Session{Events: s.Events[:n+1]}
		want, wantOK := turntaking.ScoreTrace(prefix, labels, nil)
		got, gotOK := rec.Score(labels, nil)
		if diff := cmp.Diff(want, got); diff != "" || gotOK != wantOK {
			t.Fatalf("after %d events (ok %v, want %v) (-ScoreTrace +Recorder):\n%s", n+1, gotOK, wantOK, diff)
		}
		if rec.LastMs() != e.TMs {
			t.Errorf("LastMs %v after an event at %v", rec.LastMs(), e.TMs)
		}
	}
	final, _ := rec.Score(labels, nil)
	if len(final.Model) != 2 || !final.Cases[0].TookTurn || final.Cases[1].TookTurn {
		t.Errorf("final: model %+v cases %+v, want two model segments, the turn end taken, the interruption not", final.Model, final.Cases)
	}
}
