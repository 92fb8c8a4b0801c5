package dataset

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

func TestBundledVideoFrames(t *testing.T) {
	if _, err := exec.LookPath("ffmpeg"); err != nil {
		t.Fatal("ffmpeg is required for the video path (Debian: apt-get install ffmpeg)")
	}
	for _, kind := range []string{"", KindOmniInteract, KindDuplexEval} {
		t.Run("kind="+kind, func(t *testing.T) {
			ss, err := Load(VideoName, &Options{Kind: kind})
			if err != nil {
				t.Fatal(err)
			}
			if len(ss) != 1 || ss[0].Video == "" || !ss[0].FromVideo || ss[0].Kind != kind {
				t.Fatalf("samples %+v", ss)
			}
			frames, dropped, err := ss[0].VideoFrames(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			// greeting.mp4 lasts 4.6 s: ceil → 5 frames at 1 fps.
			if len(frames) != 5 || dropped != 0 {
				t.Fatalf("%d frames, %d dropped; want 5, 0", len(frames), dropped)
			}
			for k, f := range frames {
				b, err := base64.StdEncoding.DecodeString(f)
				if err != nil || len(b) < 3 || b[0] != 0xFF || b[1] != 0xD8 || len(b) > MaxFrameBytes {
					t.Fatalf("frame %d: %d bytes, err %v", k, len(b), err)
				}
			}
			pcm, err := ss[0].PCM(context.Background(), nil)
			if err != nil || len(pcm) != 5*32000 { // the soundtrack padded to ceil(4.6 s)
				t.Fatalf("pcm %d bytes, err %v", len(pcm), err)
			}
		})
	}
}

// TestLoadOmniInteract builds the reference layout: a mapped subset with a
// missing annotation (skipped) and a 1qna subset.
func TestLoadOmniInteract(t *testing.T) {
	root := t.TempDir()
	mk := func(p, s string) {
		p = filepath.Join(root, "data", p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mk("1q1a/video_json_map.json", `{"entries":[{"video":"v/a.mp4","annotation":"ann/a.json","scene_type":"Single_Turn"},{"video":"v/b.mp4","annotation":"ann/missing.json"}]}`)
	mk("1q1a/v/a.mp4", "x")
	mk("1q1a/v/b.mp4", "x")
	mk("1q1a/ann/a.json", "{}")
	mk("1qna/videos_bench/z/2.mp4", "x")
	mk("1qna/videos_bench/z/1.mp4", "x")
	mk("1qna/annotations/z/1.json", "{}")
	mk("1qna/annotations/z/2.json", "{}")
	tests := []struct {
		subsets []string
		want    []string
		err     bool
	}{
		{nil, []string{"1q1a/v/a.mp4"}, false},
		{[]string{"1q1a", "1qna"}, []string{"1q1a/v/a.mp4", "1qna/videos_bench/z/1.mp4", "1qna/videos_bench/z/2.mp4"}, false},
		{[]string{"1q1a_math"}, nil, true}, // no sessions
		{[]string{"bogus"}, nil, true},
	}
	for _, tc := range tests {
		ss, err := LoadOmniInteract(root, tc.subsets, nil)
		if (err != nil) != tc.err {
			t.Fatalf("%v: err %v", tc.subsets, err)
		}
		var got []string
		for _, s := range ss {
			got = append(got, s.Split+"/"+s.SampleID)
			if s.Kind != KindOmniInteract || s.Video == "" || !s.FromVideo {
				t.Errorf("sample %+v", s)
			}
		}
		if len(got) != len(tc.want) {
			t.Fatalf("%v: got %v, want %v", tc.subsets, got, tc.want)
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Fatalf("%v: got %v, want %v", tc.subsets, got, tc.want)
			}
		}
	}
	if _, err := LoadOmniInteract(t.TempDir(), nil, nil); err == nil {
		t.Error("a directory without 1q1a loaded")
	}
}

// TestPreparedVideoFS: the page's view of the video set is a WAV and the
// extracted frames, listed in the served manifest.
func TestPreparedVideoFS(t *testing.T) {
	f := Bundled()[VideoName]
	b, err := fs.ReadFile(f, "manifest.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var rec struct {
		SampleID    string   `json:"sample_id"`
		Audio       string   `json:"audio"`
		VideoFrames []string `json:"video_frames"`
	}
	if err := json.Unmarshal(bytes.TrimSpace(b), &rec); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	if rec.SampleID != "greeting_video" || len(rec.VideoFrames) != 5 {
		t.Fatalf("record %+v", rec)
	}
	wav, err := fs.ReadFile(f, rec.Audio)
	if err != nil || string(wav[:4]) != "RIFF" || len(wav) != 44+5*32000 {
		t.Fatalf("audio %s: %d bytes, %v", rec.Audio, len(wav), err)
	}
	for _, n := range rec.VideoFrames {
		j, err := fs.ReadFile(f, n)
		if err != nil || len(j) < 3 || j[0] != 0xFF || j[1] != 0xD8 {
			t.Fatalf("frame %s: %v", n, err)
		}
	}
	if _, err := fs.ReadFile(f, "../etc/passwd"); err == nil {
		t.Error("read outside the prepared set")
	}
}

// TestVideoSoundtrackLength: the input lasts ceil(container duration), as
// OmniInteract pads or truncates the soundtrack, not the soundtrack's own
// length.
func TestVideoSoundtrackLength(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name          string
		videoS, audio float64
		want          int
	}{
		{"short soundtrack padded", 3.2, 1.5, 4 * 32000},
		{"equal", 2.0, 2.0, 2 * 32000},
	}
	for _, tc := range tests {
		p := filepath.Join(dir, tc.name+".mp4")
		out, err := exec.Command("ffmpeg", "-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=64x48:rate=2:duration="+ftoa(tc.videoS),
			"-f", "lavfi", "-i", "sine=frequency=300:sample_rate=16000:duration="+ftoa(tc.audio), "-c:v", "libx264", "-pix_fmt", "yuv420p", "-c:a", "aac", p).CombinedOutput()
		if err != nil {
			t.Fatalf("ffmpeg: %v: %s", err, out)
		}
		s := Sample{SampleID: tc.name, Media: p, Video: p, FromVideo: true}
		pcm, err := s.PCM(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(pcm) != tc.want {
			t.Errorf("%s: %d bytes, want %d", tc.name, len(pcm), tc.want)
		}
	}
}

func ftoa(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
