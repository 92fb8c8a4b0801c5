package app

import "testing"

// TestOnFrameSendsClipFromItsFirstFrame: which worklet frames the page
// sends. In clip mode every frame from clip-start on goes out — including
// a first frame whose audio-clock estimate (ctxTime is the start of the
// render quantum completing the frame) falls one quantum before the
// instant the session became ready, which the page used to drop, moving
// the stream clock a frame off the clip's labels; frames before the clip
// never go out. In mic mode frames captured before readiness are not sent.
func TestOnFrameSendsClipFromItsFirstFrame(t *testing.T) {
	t.Parallel()
	const (
		readyAt = 10.0                      // s, input audio clock when the session became ready
		quantum = 128.0 / 48000             // one render quantum at 48 kHz
		frame   = 0.2                       // s, one 200 ms frame
		pcmLen  = 3200 * 2                  // bytes of a 200 ms 16 kHz PCM16 frame
		clipAt  = 7                         // seq of the clip's first frame
		early   = readyAt + frame - quantum // ctxTime of a first frame that started in readyAt's quantum
	)
	tests := []struct {
		name      string
		clip      bool
		clipStart bool
		seq       int
		ctxTime   float64
		sent      bool
	}{
		{"clip: first frame, estimate one quantum early", true, true, clipAt, early, true},
		{"clip: later frame", true, true, clipAt + 3, readyAt + 4*frame, true},
		{"clip: silence before the clip", true, true, clipAt - 1, readyAt + frame, false},
		{"clip: before clip-start", true, false, clipAt, readyAt + frame, false},
		{"mic: captured while dialing", false, false, 3, readyAt + frame - 0.05, false},
		{"mic: fresh frame", false, false, 4, readyAt + frame + quantum, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := &liveRun{frames: make(chan inputFrame, 1), input: inputGate{ready: true, readyCtxTime: readyAt, clipMode: tc.clip}}
			if tc.clipStart {
				r.onClipStart(clipAt)
			}
			r.onFrame(inputFrame{Seq: tc.seq, PCM: make([]byte, pcmLen), CtxTime: tc.ctxTime})
			if got := len(r.frames) == 1; got != tc.sent {
				t.Errorf("frame seq %d at ctxTime %.5f: sent %v, want %v", tc.seq, tc.ctxTime, got, tc.sent)
			}
			if r.input.dropped != 0 {
				t.Errorf("%d frames counted as dropped (queue full), want 0", r.input.dropped)
			}
		})
	}
}

// TestInputGateEnds: input ends when duration_s of it was sent, or, with
// no duration, clipTailMs after the clip ended (a clip end before the
// session took input is not one).
func TestInputGateEnds(t *testing.T) {
	t.Parallel()
	frame := inputFrame{PCM: make([]byte, 3200*2)} // 200 ms
	g := inputGate{ready: true}
	for k := 1; k <= 5; k++ {
		if ms := g.count(frame); ms != 200 {
			t.Fatalf("count: %v ms, want 200", ms)
		}
		if got, want := g.done(1), k == 5; got != want {
			t.Errorf("duration 1 s, %d frames sent: done %v, want %v", k, got, want)
		}
	}
	if g.sent != 5 || g.sentMs != 1000 {
		t.Errorf("counted %d frames, %v ms; want 5, 1000", g.sent, g.sentMs)
	}

	clip := inputGate{clipMode: true}
	clip.clipEnd() // before the session took input: ignored
	clip.ready = true
	for range 3 {
		clip.count(frame)
	}
	if clip.done(0) {
		t.Error("done before the clip ended")
	}
	clip.clipEnd() // at 600 ms
	clip.clipEnd() // a second end changes nothing
	for sent := 800.0; sent <= 600+clipTailMs; sent += 200 {
		clip.count(frame)
		if got, want := clip.done(0), sent >= 600+clipTailMs; got != want {
			t.Errorf("clip ended at 600 ms, %v ms sent: done %v, want %v", sent, got, want)
		}
	}
}
