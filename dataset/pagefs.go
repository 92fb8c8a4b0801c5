package dataset

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/duplexscope/duplexscope/audio"
)

// The page cannot run ffmpeg, so the server serves a video dataset
// prepared: each record with a video becomes a 16 kHz WAV (its soundtrack,
// padded as OmniInteract pads it) and its extracted JPEG frames, listed in
// the served manifest as "audio" and "video_frames" (frame k is due at
// OmniInteract's boundary (k+0.5)·1000 ms of the clip; an empty slot is
// ""). Preparation runs ffmpeg once, on first use.

// PreparedVideoFS returns fsys (a dataset with manifest.jsonl) with its
// video records prepared for the page; the work is done on the first Open
// and an ffmpeg failure is returned by every Open.
func PreparedVideoFS(name string, fsys fs.FS) fs.FS {
	return &lazyFS{build: func() (memFS, error) { return prepareVideo(name, fsys) }}
}

type lazyFS struct {
	once  sync.Once
	build func() (memFS, error)
	fs    memFS
	err   error
}

func (l *lazyFS) Open(name string) (fs.File, error) {
	l.once.Do(func() { l.fs, l.err = l.build() })
	if l.err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: l.err}
	}
	return l.fs.Open(name)
}

func prepareVideo(name string, fsys fs.FS) (memFS, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	ss, err := loadFS(name, fsys)
	if err != nil {
		return nil, err
	}
	out := memFS{}
	var manifest bytes.Buffer
	for i := range ss {
		s := &ss[i]
		pcm, err := s.PCM(ctx, nil)
		if err != nil {
			return nil, err
		}
		var wav bytes.Buffer
		if err := audio.WritePCM16WAV(&wav, pcm, audio.InputRate); err != nil {
			return nil, err
		}
		base := fmt.Sprintf("clip%03d", i)
		rec := map[string]any{"sample_id": s.SampleID, "split": s.Split, "text": s.Text, "audio": base + ".wav"}
		out[base+".wav"] = wav.Bytes()
		if s.Video != "" {
			frames, _, err := s.VideoFrames(ctx, nil)
			if err != nil {
				return nil, err
			}
			names := make([]string, len(frames))
			for k, f := range frames {
				if f == "" {
					continue
				}
				b, _ := base64.StdEncoding.DecodeString(f)
				names[k] = fmt.Sprintf("%s.f%d.jpg", base, k)
				out[names[k]] = b
			}
			rec["video_frames"] = names
		}
		line, _ := json.Marshal(rec)
		manifest.Write(append(line, '\n'))
	}
	out["manifest.jsonl"] = manifest.Bytes()
	return out, nil
}

// loadFS loads the samples of a dataset held in fsys.
func loadFS(name string, fsys fs.FS) ([]Sample, error) {
	data, err := fs.ReadFile(fsys, "manifest.jsonl")
	if err != nil {
		return nil, fmt.Errorf("dataset %q: %w", name, err)
	}
	recs, err := parseRecords("manifest.jsonl", data)
	if err != nil {
		return nil, fmt.Errorf("dataset %q: %w", name, err)
	}
	var out []Sample
	for i, rec := range recs {
		s, err := sampleFromRecord(rec, i, fsys, ".", "")
		if err != nil {
			return nil, fmt.Errorf("dataset %q: record %d: %w", name, i+1, err)
		}
		out = append(out, s)
	}
	return out, nil
}

// memFS is a flat in-memory file system (names without directories).
type memFS map[string][]byte

func (m memFS) Open(name string) (fs.File, error) {
	if name == "." {
		names := make([]string, 0, len(m))
		for n := range m {
			names = append(names, n)
		}
		sort.Strings(names)
		return &memDir{names: names, m: m}, nil
	}
	b, ok := m[name]
	if !ok || strings.Contains(name, "/") {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return &memFile{name: name, r: bytes.NewReader(b), size: int64(len(b))}, nil
}

type memFile struct {
	name string
	r    *bytes.Reader
	size int64
}

func (f *memFile) Stat() (fs.FileInfo, error) { return memInfo{f.name, f.size, false}, nil }
func (f *memFile) Read(b []byte) (int, error) { return f.r.Read(b) }
func (f *memFile) Close() error               { return nil }

type memDir struct {
	names []string
	m     memFS
	pos   int
}

func (d *memDir) Stat() (fs.FileInfo, error) { return memInfo{".", 0, true}, nil }
func (d *memDir) Read([]byte) (int, error)   { return 0, io.EOF }
func (d *memDir) Close() error               { return nil }
func (d *memDir) ReadDir(n int) ([]fs.DirEntry, error) {
	var out []fs.DirEntry
	for d.pos < len(d.names) && (n <= 0 || len(out) < n) {
		nm := d.names[d.pos]
		out = append(out, fs.FileInfoToDirEntry(memInfo{nm, int64(len(d.m[nm])), false}))
		d.pos++
	}
	if n > 0 && len(out) == 0 {
		return nil, io.EOF
	}
	return out, nil
}

type memInfo struct {
	name  string
	size  int64
	isDir bool
}

func (i memInfo) Name() string { return i.name }
func (i memInfo) Size() int64  { return i.size }
func (i memInfo) Mode() fs.FileMode {
	if i.isDir {
		return fs.ModeDir | 0o555
	}
	return 0o444
}
func (i memInfo) ModTime() time.Time { return time.Time{} }
func (i memInfo) IsDir() bool        { return i.isDir }
func (i memInfo) Sys() any           { return nil }
