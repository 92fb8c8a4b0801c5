package dataset

import (
	"bufio"
	"bytes"
	"context"
	"embed"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/duplexscope/duplexscope/audio"
)

//go:embed builtin/manifest.jsonl builtin/*.wav builtin/NOTE builtin/turntaking/manifest.jsonl builtin/turntaking/*.wav builtin/video/manifest.jsonl builtin/video/*.mp4
var builtinFiles embed.FS

// BuiltinName is the --dataset value that selects the bundled clips.
const BuiltinName = "builtin"

// BuiltinFS holds the bundled clips (manifest.jsonl, *.wav, NOTE) at its root.
var BuiltinFS fs.FS = mustSub(builtinFiles, "builtin")

// TurnTakingName is the --dataset value that selects the bundled labelled
// turn-taking cases (split "turntaking": pause, backchannel, turn_end,
// interruption). Each record carries "turntaking": {"cases": [{id,
// category, onset_ms, offset_ms, anchor_ms, window_ms}]}, times in ms of the
// clip's own input clock.
const TurnTakingName = "turntaking"

// TurnTakingFS holds the labelled turn-taking cases (manifest.jsonl, *.wav).
var TurnTakingFS fs.FS = mustSub(builtinFiles, "builtin/turntaking")

// Bundled returns the bundled sets by name (builtin, turntaking, video):
// what `duplexscope serve` offers the page at /api/datasets/{name}; the
// video set prepared for the page (PreparedVideoFS: WAV plus JPEG frames,
// made with ffmpeg on first use).
func Bundled() map[string]fs.FS {
	return map[string]fs.FS{BuiltinName: BuiltinFS, TurnTakingName: TurnTakingFS, VideoName: PreparedVideoFS(VideoName, VideoFS)}
}

func mustSub(f fs.FS, dir string) fs.FS {
	s, err := fs.Sub(f, dir)
	if err != nil {
		panic(err)
	}
	return s
}

// Sample is one input clip of a dataset.
type Sample struct {
	SampleID string `json:"sample_id"`
	Split    string `json:"split"`
	Text     string `json:"text,omitempty"`
	// Media is the audio or video file the sample's audio comes from, as
	// resolved (a path in the dataset's file system, or an absolute path).
	Media string `json:"media"`
	// FromVideo reports that the audio is a video soundtrack (OmniInteract
	// padding applies).
	FromVideo bool `json:"from_video,omitempty"`
	// Video is the video whose frames ride the appends (the record's
	// video|video_path|video_file, resolved like Media); "" for none.
	Video string `json:"video,omitempty"`
	// Kind is the reference benchmark whose rules apply (session ids,
	// frame boundaries): KindOmniInteract, KindDuplexEval or "".
	Kind string `json:"kind,omitempty"`
	// Record is the original manifest record.
	Record json.RawMessage `json:"record,omitempty"`

	fsys    fs.FS  // where Media lives (nil: host file system)
	inline  []byte // audio bytes carried in the record itself
	videoFS fs.FS  // where Video lives (nil: host file system)
}

// Key is the (split, sample_id) merge key of the sample.
func (s *Sample) Key() string { return s.Split + "/" + s.SampleID }

// Options narrows what Load returns. A nil *Options means all samples.
type Options struct {
	Split     string // keep only this split ("" or "all": every split)
	Limit     int    // keep at most this many samples (0: all)
	MediaRoot string // base for relative media paths (default: the manifest's directory)
	FFmpeg    string // ffmpeg binary (default "ffmpeg" on $PATH)
	Kind      string // reference benchmark of the records (video.go): KindOmniInteract, KindDuplexEval or ""
}

// Load reads the dataset at src: "builtin", "turntaking", a directory holding
// manifest.jsonl (or manifest.json / manifest.jsonl variants), or a
// .json/.jsonl record file.
func Load(src string, opts *Options) ([]Sample, error) {
	if opts == nil {
		opts = &Options{}
	}
	var (
		fsys     fs.FS
		manifest string
	)
	switch {
	case src == BuiltinName:
		fsys, manifest = BuiltinFS, "manifest.jsonl"
	case src == TurnTakingName:
		fsys, manifest = TurnTakingFS, "manifest.jsonl"
	case src == VideoName:
		fsys, manifest = VideoFS, "manifest.jsonl"
	default:
		st, err := os.Stat(src)
		if err != nil {
			return nil, fmt.Errorf("dataset %q: %w", src, err)
		}
		if st.IsDir() {
			fsys = os.DirFS(src)
			for _, name := range []string{"manifest.jsonl", "manifest.json"} {
				if _, err := fs.Stat(fsys, name); err == nil {
					manifest = name
					break
				}
			}
			if manifest == "" {
				return nil, fmt.Errorf("dataset %q: no manifest.jsonl or manifest.json in the directory", src)
			}
		} else {
			fsys, manifest = os.DirFS(filepath.Dir(src)), filepath.Base(src)
		}
		if opts.MediaRoot != "" {
			abs, err := filepath.Abs(opts.MediaRoot)
			if err != nil {
				return nil, fmt.Errorf("dataset %q: media root: %w", src, err)
			}
			opts = &Options{Split: opts.Split, Limit: opts.Limit, MediaRoot: abs, FFmpeg: opts.FFmpeg, Kind: opts.Kind}
		}
	}
	data, err := fs.ReadFile(fsys, manifest)
	if err != nil {
		return nil, fmt.Errorf("dataset %q: %w", src, err)
	}
	recs, err := parseRecords(manifest, data)
	if err != nil {
		return nil, fmt.Errorf("dataset %q: %w", src, err)
	}
	var out []Sample
	seen := map[string]int{}
	for i, rec := range recs {
		s, err := sampleFromRecord(rec, i, fsys, path.Dir(manifest), opts.MediaRoot)
		if err != nil {
			return nil, fmt.Errorf("dataset %q: %s record %d: %w", src, manifest, i+1, err)
		}
		if opts.Split != "" && opts.Split != "all" && s.Split != opts.Split {
			continue
		}
		s.Kind = opts.Kind
		if j, dup := seen[s.Key()]; dup {
			return nil, fmt.Errorf("dataset %q: records %d and %d share (split %q, sample_id %q)", src, j+1, i+1, s.Split, s.SampleID)
		}
		seen[s.Key()] = i
		out = append(out, s)
		if opts.Limit > 0 && len(out) >= opts.Limit {
			break
		}
	}
	return out, nil
}

// parseRecords reads JSONL (one object per line) or JSON (a list, or an
// object with "data" or "samples").
func parseRecords(name string, data []byte) ([]map[string]json.RawMessage, error) {
	trimmed := bytes.TrimSpace(data)
	if strings.HasSuffix(name, ".json") && len(trimmed) > 0 && (trimmed[0] == '[' || trimmed[0] == '{') {
		var list []map[string]json.RawMessage
		if trimmed[0] == '[' {
			if err := json.Unmarshal(trimmed, &list); err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			return list, nil
		}
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(trimmed, &obj); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		for _, k := range []string{"data", "samples"} {
			if raw, ok := obj[k]; ok {
				if err := json.Unmarshal(raw, &list); err != nil {
					return nil, fmt.Errorf("%s: %q: %w", name, k, err)
				}
				return list, nil
			}
		}
		return nil, fmt.Errorf("%s: a JSON object manifest needs a \"data\" or \"samples\" list", name)
	}
	var out []map[string]json.RawMessage
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), 64<<20)
	for line := 1; sc.Scan(); line++ {
		l := bytes.TrimSpace(sc.Bytes())
		if len(l) == 0 {
			continue
		}
		var rec map[string]json.RawMessage
		if err := json.Unmarshal(l, &rec); err != nil {
			return nil, fmt.Errorf("%s line %d: %w", name, line, err)
		}
		out = append(out, rec)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return out, nil
}

// first returns the first key of keys present with a non-null value.
func first(rec map[string]json.RawMessage, keys ...string) (json.RawMessage, bool) {
	for _, k := range keys {
		if v, ok := rec[k]; ok && string(bytes.TrimSpace(v)) != "null" {
			return v, true
		}
	}
	return nil, false
}

// str stringifies a JSON scalar (numbers keep their JSON spelling).
func str(v json.RawMessage) string {
	var s string
	if json.Unmarshal(v, &s) == nil {
		return s
	}
	var n json.Number
	if json.Unmarshal(v, &n) == nil {
		return n.String()
	}
	return strings.TrimSpace(string(v))
}

func sampleFromRecord(rec map[string]json.RawMessage, i int, fsys fs.FS, dir, mediaRoot string) (Sample, error) {
	raw, _ := json.Marshal(rec)
	s := Sample{Record: raw}
	if v, ok := first(rec, "sample_id", "id", "uid", "name", "video_rel"); ok {
		s.SampleID = str(v)
	}
	if s.SampleID == "" {
		s.SampleID = strconv.Itoa(i)
	}
	if v, ok := first(rec, "split", "subset", "config"); ok {
		s.Split = str(v)
	}
	if v, ok := first(rec, "text", "question_text", "question", "instruction"); ok {
		s.Text = str(v)
	}
	if v, ok := first(rec, "audio", "question_audio", "question_wav"); ok {
		var obj struct {
			Path  string `json:"path"`
			Bytes string `json:"bytes"`
		}
		switch {
		case json.Unmarshal(v, &s.Media) == nil:
		case json.Unmarshal(v, &obj) == nil && obj.Bytes != "":
			b, err := base64.StdEncoding.DecodeString(obj.Bytes)
			if err != nil {
				return s, fmt.Errorf("audio.bytes: %w", err)
			}
			s.inline, s.Media = b, obj.Path
		case obj.Path != "":
			s.Media = obj.Path
		default:
			return s, fmt.Errorf("audio: want a path string or {\"path\"|\"bytes\"}, got %s", v)
		}
	} else if v, ok := first(rec, "video", "video_path", "video_file"); ok {
		s.Media, s.FromVideo = str(v), true
	} else {
		return s, errors.New("no audio (audio|question_audio|question_wav) or video (video|video_path|video_file) field")
	}
	if s.inline == nil {
		s.Media, s.fsys = resolve(s.Media, fsys, dir, mediaRoot)
	}
	if v, ok := first(rec, "video", "video_path", "video_file"); ok {
		s.Video, s.videoFS = resolve(str(v), fsys, dir, mediaRoot)
	}
	return s, nil
}

// resolve places a media path: absolute paths on the host; relative ones under
// mediaRoot (host) when set, else next to the manifest in fsys.
func resolve(p string, fsys fs.FS, dir, mediaRoot string) (string, fs.FS) {
	switch {
	case filepath.IsAbs(p):
		return p, nil
	case mediaRoot != "":
		return filepath.Join(mediaRoot, p), nil
	default:
		return path.Clean(path.Join(dir, filepath.ToSlash(p))), fsys
	}
}

// PCM returns the sample's audio as 16 kHz mono PCM16.
func (s *Sample) PCM(ctx context.Context, opts *Options) ([]byte, error) {
	data := s.inline
	if data == nil && s.fsys != nil {
		b, err := fs.ReadFile(s.fsys, s.Media)
		if err != nil {
			return nil, fmt.Errorf("sample %s: %w", s.Key(), err)
		}
		data = b
	}
	if data != nil && isWAV(data) {
		c, err := audio.DecodeWAV(data)
		if err != nil {
			return nil, fmt.Errorf("sample %s (%s): %w", s.Key(), s.Media, err)
		}
		return pad(audio.ToInputPCM16(c), s.FromVideo), nil
	}
	// Not a WAV: decode with ffmpeg (needs a host path).
	var hostPath string
	switch {
	case s.fsys == nil && s.inline == nil:
		if data == nil {
			b, err := os.ReadFile(s.Media)
			if err != nil {
				return nil, fmt.Errorf("sample %s: %w", s.Key(), err)
			}
			if isWAV(b) {
				c, err := audio.DecodeWAV(b)
				if err != nil {
					return nil, fmt.Errorf("sample %s (%s): %w", s.Key(), s.Media, err)
				}
				return pad(audio.ToInputPCM16(c), s.FromVideo), nil
			}
		}
		hostPath = s.Media
	default:
		f, err := os.CreateTemp("", "duplexscope-media-*")
		if err != nil {
			return nil, fmt.Errorf("sample %s: %w", s.Key(), err)
		}
		defer os.Remove(f.Name())
		_, werr := f.Write(data)
		cerr := f.Close()
		if err := errors.Join(werr, cerr); err != nil {
			return nil, fmt.Errorf("sample %s: %w", s.Key(), err)
		}
		hostPath = f.Name()
	}
	ffmpeg := "ffmpeg"
	if opts != nil && opts.FFmpeg != "" {
		ffmpeg = opts.FFmpeg
	}
	pcm, err := decodeFFmpeg(ctx, ffmpeg, hostPath)
	if err != nil {
		return nil, fmt.Errorf("sample %s (%s): %w", s.Key(), s.Media, err)
	}
	if s.FromVideo && s.Video != "" {
		if n, ok := s.containerBytes(ctx, opts); ok {
			return fit(pcm, n), nil // OmniInteract: ceil(container duration) seconds
		}
	}
	return pad(pcm, s.FromVideo), nil
}

func isWAV(b []byte) bool {
	return len(b) >= 12 && string(b[0:4]) == "RIFF" && string(b[8:12]) == "WAVE"
}

// pad applies OmniInteract's soundtrack rule: zero-pad to ceil(duration_s)
// seconds (the soundtrack's own length stands in for the container's).
func pad(pcm []byte, fromVideo bool) []byte {
	if !fromVideo {
		return pcm
	}
	const perSec = 32000
	want := (len(pcm) + perSec - 1) / perSec * perSec
	if want == len(pcm) {
		return pcm
	}
	return append(pcm, make([]byte, want-len(pcm))...)
}
