package dataset

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// VideoName is the --dataset value (page: dataset:video) of the bundled
// video clip: ffmpeg's test pattern with a builtin voice as soundtrack,
// so the video path runs offline. builtin itself stays audio-only.
const VideoName = "video"

// VideoFS holds the bundled video clip (manifest.jsonl, greeting.mp4).
var VideoFS fs.FS = mustSub(builtinFiles, "builtin/video")

// Reference benchmarks whose rules a dataset follows (Options.Kind,
// run --dataset-name): session ids and frame boundaries differ.
const (
	KindOmniInteract = "omniinteract"     // vllm bench serve --omni --dataset-name omniinteract
	KindDuplexEval   = "omni-duplex-eval" // vllm bench omni-duplex-eval
)

// MaxFrameBytes caps one extracted (or camera) JPEG: 256 KiB, so two frames
// plus 10 s of PCM16 fit the simulator's websocket frame cap. A frame over
// the cap is dropped (its slot stays empty) and counted.
const MaxFrameBytes = 256 << 10

// Media limits, as OmniInteract's (media timeout 600 s, max video 3 600 s).
const (
	mediaTimeout     = 600 * time.Second
	maxVideoDuration = 3600.0
)

// OmniInteractSubsets are the subsets the reference reads.
var OmniInteractSubsets = []string{"1q1a", "1q1a_math", "1qna"}

// LoadOmniInteract reads an OmniInteract directory as vLLM-Omni's
// OmniInteractDataset does: root (or root/data) holds one directory per
// subset; 1q1a and 1q1a_math list {video, annotation, scene_type} entries
// in video_json_map.json, 1qna pairs videos_bench/**/*.mp4 with
// annotations/**/*.json. Cases whose video or annotation is missing are
// skipped, as the reference skips them. sample_id is the video path
// relative to the subset, split the subset. Order: subsets as given, 1qna
// sorted (the reference then shuffles with seed 0 unless
// --disable-shuffle; duplexscope keeps this order).
func LoadOmniInteract(root string, subsets []string, opts *Options) ([]Sample, error) {
	if opts == nil {
		opts = &Options{}
	}
	if len(subsets) == 0 {
		subsets = []string{"1q1a"}
	}
	data := ""
	for _, c := range []string{root, filepath.Join(root, "data")} {
		if st, err := os.Stat(filepath.Join(c, "1q1a")); err == nil && st.IsDir() {
			data = c
			break
		}
	}
	if data == "" {
		return nil, fmt.Errorf("dataset %q: OmniInteract data not found (want %s/1q1a or %s/data/1q1a)", root, root, root)
	}
	var out []Sample
	add := func(subset, videoRel, video, annotation, scene string) {
		rec, _ := json.Marshal(map[string]string{"subset": subset, "video": videoRel, "annotation": annotation, "scene_type": scene})
		out = append(out, Sample{SampleID: videoRel, Split: subset, Media: video, Video: video, FromVideo: true,
			Kind: KindOmniInteract, Record: rec})
	}
	for _, subset := range subsets {
		if !slices.Contains(OmniInteractSubsets, subset) {
			return nil, fmt.Errorf("dataset %q: unsupported OmniInteract subset %q (want %s)", root, subset, strings.Join(OmniInteractSubsets, ", "))
		}
		dir := filepath.Join(data, subset)
		if subset != "1qna" {
			b, err := os.ReadFile(filepath.Join(dir, "video_json_map.json"))
			if errors.Is(err, os.ErrNotExist) {
				continue
			}
			if err != nil {
				return nil, fmt.Errorf("dataset %q: %w", root, err)
			}
			var m struct {
				Entries []struct {
					Video      string `json:"video"`
					Annotation string `json:"annotation"`
					SceneType  string `json:"scene_type"`
				} `json:"entries"`
			}
			if err := json.Unmarshal(b, &m); err != nil {
				return nil, fmt.Errorf("dataset %q: %s/video_json_map.json: %w", root, subset, err)
			}
			for _, e := range m.Entries {
				v, a := filepath.Join(dir, e.Video), filepath.Join(dir, e.Annotation)
				if e.Video == "" || e.Annotation == "" || !isFile(v) || !isFile(a) {
					continue
				}
				scene := strings.ToLower(e.SceneType)
				if scene == "" {
					scene = "multi_turn"
				}
				add(subset, e.Video, v, a, scene)
			}
			continue
		}
		videos := filepath.Join(dir, "videos_bench")
		var found []string
		_ = filepath.WalkDir(videos, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".mp4") {
				found = append(found, p)
			}
			return nil
		})
		sort.Strings(found)
		for _, v := range found {
			rel, _ := filepath.Rel(videos, v)
			a := filepath.Join(dir, "annotations", strings.TrimSuffix(rel, ".mp4")+".json")
			if isFile(a) {
				relRoot, _ := filepath.Rel(dir, v)
				add(subset, filepath.ToSlash(relRoot), v, a, "1qna")
			}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("dataset %q: no OmniInteract sessions found (subsets %s)", root, strings.Join(subsets, ","))
	}
	if opts.Limit > 0 && len(out) > opts.Limit {
		out = out[:opts.Limit]
	}
	return out, nil
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// VideoFrames extracts the sample's video frames with ffmpeg as the
// reference of its Kind does, as bare base64 JPEGs:
//
//   - OmniInteract (and any other record with a video): ceil(duration)
//     frames at 1 fps, frame k the first at t ≥ k+0.5 s, scaled to fit
//     640×640, JPEG -q:v 5 (vLLM-Omni omniinteract.prepare_media);
//   - Omni-DuplexEval: one frame per second at t = k s, -q:v 3
//     (omni_duplex_eval_media.iter_jpegs).
//
// Frames over MaxFrameBytes are dropped; their slot stays "" and dropped
// counts them. A sample without a video returns nil.
func (s *Sample) VideoFrames(ctx context.Context, opts *Options) (frames []string, dropped int, err error) {
	if s.Video == "" {
		return nil, 0, nil
	}
	bin := "ffmpeg"
	if opts != nil && opts.FFmpeg != "" {
		bin = opts.FFmpeg
	}
	exe, err := exec.LookPath(bin)
	if err != nil {
		return nil, 0, fmt.Errorf("sample %s: %w (looked for %q)", s.Key(), ErrNoFFmpeg, bin)
	}
	path, cleanup, err := s.videoHostPath()
	if err != nil {
		return nil, 0, err
	}
	defer cleanup()
	ctx, cancel := context.WithTimeout(ctx, mediaTimeout)
	defer cancel()
	dur, err := probeDuration(ctx, exe, path)
	if err != nil {
		return nil, 0, fmt.Errorf("sample %s (%s): %w", s.Key(), s.Video, err)
	}
	n := int(math.Ceil(dur))
	dir, err := os.MkdirTemp("", "duplexscope-frames-*")
	if err != nil {
		return nil, 0, err
	}
	defer os.RemoveAll(dir)
	var args [][]string
	if s.Kind == KindDuplexEval {
		for k := range n {
			args = append(args, []string{"-ss", fmt.Sprintf("%d.000", k), "-i", path, "-frames:v", "1", "-q:v", "3", "-f", "image2",
				filepath.Join(dir, fmt.Sprintf("frame-%06d.jpg", k+1))})
		}
	} else {
		args = append(args, []string{"-i", path, "-an", "-vf",
			`select=gte(t\,(selected_n+0.5)/1),scale=640:640:force_original_aspect_ratio=decrease`,
			"-frames:v", strconv.Itoa(n), "-vsync", "vfr", "-q:v", "5", filepath.Join(dir, "frame-%06d.jpg")})
	}
	for _, a := range args {
		cmd := exec.CommandContext(ctx, exe, append([]string{"-nostdin", "-v", "error"}, a...)...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil && s.Kind != KindDuplexEval { // DuplexEval stops at the first frame it cannot read
			return nil, 0, fmt.Errorf("sample %s (%s): ffmpeg frames: %w: %s", s.Key(), s.Video, err, strings.TrimSpace(stderr.String()))
		}
	}
	frames = make([]string, n)
	for k := range n {
		b, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("frame-%06d.jpg", k+1)))
		switch {
		case err != nil: // fewer frames than seconds: the slot stays empty
		case len(b) > MaxFrameBytes:
			dropped++
		default:
			frames[k] = base64.StdEncoding.EncodeToString(b)
		}
	}
	return frames, dropped, nil
}

// videoHostPath returns a host path of the video (a temporary copy when it
// lives in an embedded or directory file system).
func (s *Sample) videoHostPath() (string, func(), error) {
	if s.videoFS == nil {
		return s.Video, func() {}, nil
	}
	b, err := fs.ReadFile(s.videoFS, s.Video)
	if err != nil {
		return "", nil, fmt.Errorf("sample %s: %w", s.Key(), err)
	}
	f, err := os.CreateTemp("", "duplexscope-video-*"+filepath.Ext(s.Video))
	if err != nil {
		return "", nil, err
	}
	_, werr := f.Write(b)
	if err := errors.Join(werr, f.Close()); err != nil {
		os.Remove(f.Name())
		return "", nil, fmt.Errorf("sample %s: %w", s.Key(), err)
	}
	return f.Name(), func() { os.Remove(f.Name()) }, nil
}

// probeDuration asks ffprobe (next to ffmpeg) for the container duration.
func probeDuration(ctx context.Context, ffmpeg, path string) (float64, error) {
	probe := filepath.Join(filepath.Dir(ffmpeg), "ffprobe")
	if _, err := os.Stat(probe); err != nil {
		if probe, err = exec.LookPath("ffprobe"); err != nil {
			return 0, fmt.Errorf("%w (ffprobe)", ErrNoFFmpeg)
		}
	}
	var out, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, probe, "-v", "error", "-show_entries", "format=duration", "-of", "default=noprint_wrappers=1:nokey=1", path)
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		return 0, fmt.Errorf("ffprobe: %w: %s", err, strings.TrimSpace(stderr.String()))
	}
	d, err := strconv.ParseFloat(strings.TrimSpace(out.String()), 64)
	if err != nil || math.IsNaN(d) || d <= 0 || d > maxVideoDuration {
		return 0, fmt.Errorf("ffprobe: video duration %q: want 0 < d ≤ %g s", strings.TrimSpace(out.String()), maxVideoDuration)
	}
	return d, nil
}

// containerBytes is OmniInteract's input length for a video soundtrack:
// ceil(container duration, from ffprobe) s of 16 kHz PCM16. ok is false
// when the duration cannot be read (then the soundtrack's own length is
// padded instead).
func (s *Sample) containerBytes(ctx context.Context, opts *Options) (int, bool) {
	bin := "ffmpeg"
	if opts != nil && opts.FFmpeg != "" {
		bin = opts.FFmpeg
	}
	exe, err := exec.LookPath(bin)
	if err != nil {
		return 0, false
	}
	path, cleanup, err := s.videoHostPath()
	if err != nil {
		return 0, false
	}
	defer cleanup()
	d, err := probeDuration(ctx, exe, path)
	if err != nil {
		return 0, false
	}
	return int(math.Ceil(d)) * 32000, true
}

// fit zero-pads or truncates pcm to n bytes (prepare_media's rule).
func fit(pcm []byte, n int) []byte {
	if len(pcm) >= n {
		return pcm[:n]
	}
	return append(pcm, make([]byte, n-len(pcm))...)
}
