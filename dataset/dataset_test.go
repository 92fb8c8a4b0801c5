package dataset

import (
	"context"
	"encoding/base64"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/duplexscope/duplexscope/audio"
	"github.com/google/go-cmp/cmp"
)

func TestBuiltin(t *testing.T) {
	t.Parallel()
	ss, err := Load(BuiltinName, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(ss) < 6 {
		t.Fatalf("builtin has %d clips, want ≥ 6", len(ss))
	}
	for _, s := range ss {
		pcm, err := s.PCM(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(pcm)%2 != 0 || len(pcm) < 32000*2 {
			t.Errorf("%s: %d bytes of PCM, want an even count ≥ 2 s", s.SampleID, len(pcm))
		}
		x := audio.PCM16ToFloat(pcm)
		tail := x[len(x)-16000*14/10:] // last 1.4 s
		if r := audio.RMS(tail); r != 0 {
			t.Errorf("%s: trailing 1.4 s has RMS %g, want digital silence", s.SampleID, r)
		}
		if r := audio.RMS(x[:len(x)-len(tail)]); r < 0.01 {
			t.Errorf("%s: speech part RMS %g, want audible speech", s.SampleID, r)
		}
		if s.Split != "builtin" || s.Text == "" {
			t.Errorf("%s: split %q text %q", s.SampleID, s.Split, s.Text)
		}
	}
	lim, err := Load(BuiltinName, &Options{Limit: 2})
	if err != nil || len(lim) != 2 {
		t.Fatalf("Limit 2: %d samples, %v", len(lim), err)
	}
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// stereoTone44k is a 1 s, 1 kHz, amplitude 0.5 stereo tone at 44.1 kHz as a
// 24-bit WAV (built by hand: audio.EncodeWAV only writes mono PCM16).
func stereoTone44k() []byte {
	const rate, n = 44100, 44100
	data := make([]byte, 0, n*6)
	for i := 0; i < n; i++ {
		v := uint32(int32(0.5 * math.Sin(2*math.Pi*1000*float64(i)/rate) * (1 << 23)))
		data = append(data, byte(v), byte(v>>8), byte(v>>16), byte(v), byte(v>>8), byte(v>>16))
	}
	h := []byte("RIFF\x00\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x02\x00")
	le32 := func(v int) []byte { return []byte{byte(v), byte(v >> 8), byte(v >> 16), byte(v >> 24)} }
	h = append(h, le32(rate)...)
	h = append(h, le32(rate*6)...)
	h = append(h, 6, 0, 24, 0)
	h = append(h, "data"...)
	h = append(h, le32(len(data))...)
	out := append(h, data...)
	copy(out[4:], le32(len(out)-8))
	return out
}

func TestManifestDir(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "clips", "tone.wav"), stereoTone44k())
	writeFile(t, filepath.Join(dir, "manifest.jsonl"), []byte(
		`{"sample_id":"tone","split":"a","audio":"clips/tone.wav","text":"a tone"}`+"\n\n"+
			`{"sample_id":"tone2","split":"b","audio":"clips/tone.wav"}`+"\n"))
	ss, err := Load(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := []string{}
	for _, s := range ss {
		got = append(got, s.Key()+"|"+s.Text)
	}
	if d := cmp.Diff([]string{"a/tone|a tone", "b/tone2|"}, got); d != "" {
		t.Errorf("samples (-want +got):\n%s", d)
	}
	pcm, err := ss[0].PCM(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(pcm) != 32000 {
		t.Fatalf("1 s at 44.1 kHz → %d bytes at 16 kHz, want 32000", len(pcm))
	}
	x := audio.PCM16ToFloat(pcm)[1000:15000]
	// Zero crossings over 14 000 samples (0.875 s) of a 1 kHz tone: 1750.
	zc := 0
	for i := 1; i < len(x); i++ {
		if (x[i-1] < 0) != (x[i] < 0) {
			zc++
		}
	}
	if zc < 1748 || zc > 1752 {
		t.Errorf("%d zero crossings, want 1750 ± 2 (1 kHz)", zc)
	}
	if r := audio.RMS(x); math.Abs(r-0.5/math.Sqrt2) > 0.005 {
		t.Errorf("RMS %g, want %g", r, 0.5/math.Sqrt2)
	}
	only, err := Load(dir, &Options{Split: "b"})
	if err != nil || len(only) != 1 || only[0].SampleID != "tone2" {
		t.Errorf("Split b: %v %v", only, err)
	}
}

// TestRecordLayouts: Omni-DuplexEval records (aliases, "data" wrapper, HF
// audio objects, numeric ids) and errors (docs/metrics.md#dataset-inputs).
func TestRecordLayouts(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	wav := audio.EncodeWAV(make([]float32, 1600), 16000)
	writeFile(t, filepath.Join(dir, "media", "q1.wav"), wav)
	b64 := base64.StdEncoding.EncodeToString(wav)
	writeFile(t, filepath.Join(dir, "eval.json"), []byte(`{"data":[
	  {"id":560,"subset":"RTD_OCR","question_audio":"q1.wav","question_text":"What does the sign say?"},
	  {"uid":"x","config":"PR_correction","split":null,"split":"PR_correction","question_wav":{"path":"inline.wav","bytes":"`+b64+`"},"instruction":"fix it"},
	  {"name":"n3","split":"RTD_OCR","audio":{"path":"q1.wav"}}]}`))
	ss, err := Load(filepath.Join(dir, "eval.json"), &Options{MediaRoot: filepath.Join(dir, "media")})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range ss {
		pcm, err := s.PCM(context.Background(), nil)
		if err != nil {
			t.Fatalf("%s: %v", s.Key(), err)
		}
		got = append(got, s.Key()+"|"+s.Text+"|"+string(rune('0'+len(pcm)/3200)))
	}
	want := []string{"RTD_OCR/560|What does the sign say?|1", "PR_correction/x|fix it|1", "RTD_OCR/n3||1"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}

	bad := []struct{ name, body string }{
		{"no media", `[{"id":"a","split":"s"}]`},
		{"duplicate key", `[{"id":"a","split":"s","audio":"q1.wav"},{"id":"a","split":"s","audio":"q1.wav"}]`},
		{"object without data", `{"rows":[]}`},
	}
	for _, tc := range bad {
		p := filepath.Join(dir, "bad-"+filepath.Base(tc.name)+".json")
		writeFile(t, p, []byte(tc.body))
		if _, err := Load(p, nil); err == nil {
			t.Errorf("%s: Load succeeded, want an error", tc.name)
		}
	}
}

// TestVideoSoundtrack: an OmniInteract-style record whose input is a video
// soundtrack is decoded with ffmpeg and padded to whole seconds; without
// ffmpeg the error names the tool.
func TestVideoSoundtrack(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "cases.jsonl"), []byte(
		`{"subset":"1q1a","video_rel":"1q1a/v1.mkv","video_path":"v1.mkv","annotation_path":"a.json","scene_type":"x"}`+"\n"))
	ss, err := Load(filepath.Join(dir, "cases.jsonl"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(ss) != 1 || ss[0].SampleID != "1q1a/v1.mkv" || ss[0].Split != "1q1a" || !ss[0].FromVideo {
		t.Fatalf("samples %+v", ss)
	}
	ff, lookErr := exec.LookPath("ffmpeg")
	if lookErr != nil {
		t.Fatalf("ffmpeg is needed for the soundtrack half of this test (apt-get install ffmpeg): %v", lookErr)
	}
	// 1.3 s of 440 Hz at 48 kHz stereo in a Matroska container.
	mk := exec.Command(ff, "-nostdin", "-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=1.3",
		"-ac", "2", "-c:a", "pcm_s16le", filepath.Join(dir, "v1.mkv"))
	if out, err := mk.CombinedOutput(); err != nil {
		t.Fatalf("make test video: %v: %s", err, out)
	}
	_, err = ss[0].PCM(context.Background(), &Options{FFmpeg: filepath.Join(dir, "no-such-ffmpeg")})
	if !errors.Is(err, ErrNoFFmpeg) {
		t.Errorf("missing ffmpeg: err = %v, want ErrNoFFmpeg", err)
	}
	pcm, err := ss[0].PCM(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(pcm) != 2*32000 {
		t.Errorf("soundtrack of 1.3 s → %d bytes, want %d (padded to 2 s)", len(pcm), 2*32000)
	}
	x := audio.PCM16ToFloat(pcm)
	if r := audio.RMS(x[1600:16000]); r < 0.03 {
		t.Errorf("decoded soundtrack RMS %g, want a tone", r)
	}
	if r := audio.RMS(x[len(x)-8000:]); r != 0 {
		t.Errorf("padding RMS %g, want 0", r)
	}
}
