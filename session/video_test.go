package session

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/duplexscope/duplexscope/protocol"
	"github.com/duplexscope/duplexscope/trace"
)

// TestScheduledVideo: which append carries frame k, for the reference
// boundaries and the append sizes in use.
func TestScheduledVideo(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		boundary Boundary
		frameMs  int
		totalMs  int
		frames   int
		want     string // append index → frame indices
	}{
		{"omniinteract 200 ms", OmniInteractBoundary, 200, 3000, 3, "2:[0] 7:[1] 12:[2]"},
		{"omniinteract 1000 ms", OmniInteractBoundary, 1000, 3000, 3, "0:[0] 1:[1] 2:[2]"},
		{"omniinteract 80 ms", OmniInteractBoundary, 80, 2000, 2, "6:[0] 18:[1]"},
		{"duplexeval 1000 ms", DuplexEvalBoundary, 1000, 4000, 4, "1:[0] 2:[1] 3:[2]"}, // frame 3 (4030 ms) never due
		{"duplexeval 200 ms", DuplexEvalBoundary, 200, 3000, 2, "5:[0] 10:[1]"},
		{"several due at once", OmniInteractBoundary, 3000, 3000, 3, "0:[0 1 2]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			list := make([]string, tc.frames)
			for i := range list {
				list[i] = fmt.Sprint(i)
			}
			v := &ScheduledVideo{List: list, Boundary: tc.boundary}
			var got []string
			for k, end := 0, tc.frameMs; end <= tc.totalMs; k, end = k+1, end+tc.frameMs {
				if fs := v.Frames(k, int64(end)); fs != nil {
					got = append(got, fmt.Sprintf("%d:%v", k, fs))
				}
			}
			if g := strings.Join(got, " "); g != tc.want {
				t.Errorf("got %s, want %s", g, tc.want)
			}
		})
	}
}

func TestLatestFrame(t *testing.T) {
	t.Parallel()
	var l LatestFrame
	if l.Frames(0, 200) != nil {
		t.Fatal("frame before any capture")
	}
	l.Set("a")
	if fs := l.Frames(1, 400); len(fs) != 1 || fs[0] != "a" {
		t.Fatalf("got %v", fs)
	}
	if l.Frames(2, 600) != nil {
		t.Fatal("the same capture rode two appends")
	}
	l.Set("b")
	l.Set("c")
	if fs := l.Frames(3, 800); len(fs) != 1 || fs[0] != "c" {
		t.Fatalf("got %v, want the newest capture", fs)
	}
}

// TestLogVideo: the logged append keeps everything but the frame bytes,
// which become {"bytes", "sha256"}; VideoFramesSent counts either form.
func TestLogVideo(t *testing.T) {
	t.Parallel()
	jpeg := []byte("\xff\xd8\xff\xe0 a tiny jpeg")
	f := base64.StdEncoding.EncodeToString(jpeg)
	ev := appendEvent(make([]byte, 6400), 6400)
	ev.VideoFrames = []string{f, f}
	wire, err := protocol.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	logged := logVideo(wire, ev.VideoFrames)
	if strings.Contains(string(logged), f) {
		t.Fatalf("frame bytes kept: %s", logged)
	}
	var m struct {
		Audio       string        `json:"audio"`
		AudioEndMs  int           `json:"audio_end_ms"`
		VideoFrames []VideoDigest `json:"video_frames"`
	}
	if err := json.Unmarshal(logged, &m); err != nil {
		t.Fatal(err)
	}
	want := DigestFrame(f)
	if m.AudioEndMs != 200 || m.Audio != ev.Audio || len(m.VideoFrames) != 2 || m.VideoFrames[0] != want || want.Bytes != len(jpeg) || len(want.SHA256) != 64 {
		t.Fatalf("logged %s", logged)
	}
	tr := &trace.Session{Events: []trace.Event{
		{Dir: trace.DirSend, Event: logged}, {Dir: trace.DirSend, Event: wire},
		{Dir: trace.DirRecv, Event: wire}, // received events are not ours
	}}
	if n := VideoFramesSent(tr); n != 4 {
		t.Fatalf("VideoFramesSent = %d, want 4", n)
	}
}
