package session

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"testing"
	"time"
)

func pcm16(samples ...int16) []byte {
	b := make([]byte, 2*len(samples))
	for i, s := range samples {
		binary.LittleEndian.PutUint16(b[2*i:], uint16(s))
	}
	return b
}

// TestClipFeed: the clip, then silence; the clip end marked on the frame
// holding its last sample, once; a probe mixed from the next frame's first
// sample, clipped to int16, its id on that frame only.
func TestClipFeed(t *testing.T) {
	t.Parallel()
	// 1 ms frames: 16 samples each.
	clip := make([]int16, 40) // 2.5 frames
	for i := range clip {
		clip[i] = int16(1000 * (i + 1))
	}
	clip[39] = 32000
	f := NewClipFeed(pcm16(clip...), 1)
	var frames []FeedFrame
	for range 3 {
		frames = append(frames, f.Next())
	}
	f.Inject("probe_1", pcm16(append(make([]int16, 15), 30000, 7)...)) // 17 samples: into frames 3 and 4
	for range 3 {
		frames = append(frames, f.Next())
	}
	want := func(k int) []byte {
		s := make([]int16, 16)
		for i := range s {
			if j := 16*k + i; j < len(clip) {
				s[i] = clip[j]
			}
		}
		return pcm16(s...)
	}
	for k, fr := range frames {
		if fr.Seq != k {
			t.Errorf("frame %d: seq %d", k, fr.Seq)
		}
		if len(fr.PCM) != 32 {
			t.Fatalf("frame %d: %d bytes, want 32", k, len(fr.PCM))
		}
		if end := k == 2; fr.ClipEnd != end {
			t.Errorf("frame %d: ClipEnd %v, want %v", k, fr.ClipEnd, end)
		}
		if id := map[bool]string{true: "probe_1"}[k == 3]; fr.ProbeID != id {
			t.Errorf("frame %d: ProbeID %q, want %q", k, fr.ProbeID, id)
		}
		w := want(k)
		switch k {
		case 3:
			w = pcm16(append(make([]int16, 15), 30000)...)
		case 4:
			w = pcm16(append([]int16{7}, make([]int16, 15)...)...)
		}
		if !bytes.Equal(fr.PCM, w) {
			t.Errorf("frame %d: pcm %v, want %v", k, fr.PCM, w)
		}
	}
	if frames[5].RMS != 0 || frames[0].RMS == 0 {
		t.Errorf("rms: silence %v, clip %v", frames[5].RMS, frames[0].RMS)
	}
	// Mixing clips at int16 range.
	d := pcm16(30000, -30000)
	mixPCM16(d, pcm16(10000, -10000))
	if !bytes.Equal(d, pcm16(32767, -32768)) {
		t.Errorf("mix: %v, want clipped", d)
	}
}

// TestPaceFrames: frames go out on the absolute schedule stream start +
// bytes/32 000 s: wake-ups late by the fake clock's jitter are recorded as
// lag but never push later frames (no drift), and next's false ends it.
func TestPaceFrames(t *testing.T) {
	t.Parallel()
	c := NewFakeClock()
	c.AutoAdvance = true
	c.Jitter = func(k int) time.Duration { return time.Duration(k%3) * time.Millisecond } // 0, 1, 2 ms late
	srv := newFakeServer(happyScript(1000))
	var s *Session
	c.Settle = srv.quiesce(&s)
	c.Set(5 * time.Second)
	s, err := Dial(context.Background(), &Config{URL: "ws://127.0.0.1:1", Clock: c, Dialer: srv.dialer(), ExternalPlayback: true, FrameMs: 200})
	if err != nil {
		t.Fatal(err)
	}
	feed := NewClipFeed(make([]byte, 6400*3), 200)
	const frames = 50
	var at []time.Duration
	err = s.PaceFrames(context.Background(), func() (FeedFrame, bool) {
		if len(at) == frames {
			return FeedFrame{}, false
		}
		return feed.Next(), true
	}, func(_ FeedFrame, t time.Duration) { at = append(at, t) })
	if err != nil {
		t.Fatal(err)
	}
	if len(at) != frames {
		t.Fatalf("%d frames sent, want %d", len(at), frames)
	}
	start := at[0]
	for k, a := range at {
		// SendFrame holds back the last sample, so frame k is due 1/16 ms
		// before start + k·200 ms; the clock's lateness is on top.
		due := start + time.Duration(k)*200*time.Millisecond
		if k > 0 {
			due -= time.Second / 16000
		}
		if lag := a - due; lag < 0 || lag > 2*time.Millisecond+time.Second/16000 {
			t.Errorf("frame %d sent at %v, due %v (lag %v)", k, a, due, lag)
		}
	}
	if err := s.Commit(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	var lags []float64
	for _, e := range s.Trace().Events {
		var p pacingNote
		if json.Unmarshal(e.Event, &p) == nil && p.Type == "duplexscope.pacing" {
			lags = append(lags, p.LagMs)
		}
	}
	if len(lags) != frames {
		t.Fatalf("%d pacing notes, want %d", len(lags), frames)
	}
	for k, l := range lags {
		want := 0.0 // frame 0 sets stream start
		if k > 0 {
			want = float64((k - 1) % 3) // the (k−1)th sleep's lateness
		}
		if l != want {
			t.Errorf("frame %d: lag %v ms, want %v (the clock's lateness, no drift)", k, l, want)
		}
	}
	total := 0
	for _, a := range srv.received("input_audio_buffer.append") {
		b, _ := base64.StdEncoding.DecodeString(a["audio"].(string))
		total += len(b)
	}
	if want := frames * 6400; total != want && total != want-2 {
		t.Errorf("sent %d bytes, want %d (or one sample less, the tail rule)", total, want)
	}
}

// tickingClock is a FakeClock whose every reading moves it on by step, so
// a loop that spins on it ends.
type tickingClock struct {
	*FakeClock
	step time.Duration
}

func (c tickingClock) Now() time.Duration {
	c.Advance(c.step)
	return c.FakeClock.Now()
}

// TestPaceFramesSpin: a timer that wakes 1 ms late is a 1 ms send lag;
// with PaceSpin the loop wakes PaceSpin early and spins to the due
// instant, so the lag is the spin's last clock step, not the timer's.
func TestPaceFramesSpin(t *testing.T) {
	t.Parallel()
	const step = 20 * time.Microsecond
	for _, tc := range []struct {
		spin           time.Duration
		minLag, maxLag time.Duration
	}{
		{0, time.Millisecond, time.Millisecond + 20*step},
		{2 * time.Millisecond, 0, 20 * step},
	} {
		t.Run(fmt.Sprint("spin=", tc.spin), func(t *testing.T) {
			t.Parallel()
			fc := NewFakeClock()
			fc.AutoAdvance = true
			fc.Jitter = func(int) time.Duration { return time.Millisecond }
			srv := newFakeServer(happyScript(1000))
			var s *Session
			fc.Settle = srv.quiesce(&s)
			s, err := Dial(context.Background(), &Config{URL: "ws://127.0.0.1:1", Clock: tickingClock{fc, step}, Sleeper: fc, Dialer: srv.dialer(),
				ExternalPlayback: true, FrameMs: 200, PaceSpin: tc.spin})
			if err != nil {
				t.Fatal(err)
			}
			feed := NewClipFeed(make([]byte, 6400*3), 200)
			n := 0
			err = s.PaceFrames(context.Background(), func() (FeedFrame, bool) {
				n++
				return feed.Next(), n <= 20
			}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.Close(context.Background()); err != nil {
				t.Fatal(err)
			}
			for k, l := range s.lags[1:] {
				if l < tc.minLag || l > tc.maxLag {
					t.Errorf("frame %d: lag %v, want %v–%v", k+1, l, tc.minLag, tc.maxLag)
				}
			}
		})
	}
}
