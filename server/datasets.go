//go:build !js

package server

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io/fs"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"
	"time"
)

// DatasetClip is one entry of GET /api/datasets/{name}.
type DatasetClip struct {
	SampleID string `json:"sample_id"`
	Split    string `json:"split,omitempty"`
	Text     string `json:"text,omitempty"`
	URL      string `json:"url"`
	// TurnTaking is the manifest record's "turntaking" member (labelled
	// turn-taking cases on the clip's clock), passed on unchanged so the
	// page scores what the CLI scores; absent when the record has none.
	TurnTaking json.RawMessage `json:"turntaking,omitempty"`
	// VideoFrames are the URLs of the clip's video frames, one per slot
	// ("" for an empty slot; frame k is due at (k+0.5)·1000 ms of the clip,
	// OmniInteract's rule); absent for audio-only clips.
	VideoFrames []string `json:"video_frames,omitempty"`
}

// DatasetResponse is the body of GET /api/datasets/{name}.
type DatasetResponse struct {
	Name  string        `json:"name"`
	Clips []DatasetClip `json:"clips"`
}

type manifestLine struct {
	SampleID    string          `json:"sample_id"`
	Split       string          `json:"split"`
	Audio       string          `json:"audio"`
	Text        string          `json:"text"`
	TurnTaking  json.RawMessage `json:"turntaking"`
	VideoFrames []string        `json:"video_frames"`
}

func (s *Server) datasetManifest(name string) ([]manifestLine, fs.FS, bool) {
	fsys, ok := s.cfg.Datasets[name]
	if !ok {
		return nil, nil, false
	}
	b, err := fs.ReadFile(fsys, "manifest.jsonl")
	if err != nil {
		return nil, nil, false
	}
	var out []manifestLine
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		var m manifestLine
		if json.Unmarshal(sc.Bytes(), &m) == nil && m.SampleID != "" && fs.ValidPath(m.Audio) {
			out = append(out, m)
		}
	}
	return out, fsys, true
}

// handleDataset lists a served dataset's clips (only the configured
// datasets: a URL never names a local path).
func (s *Server) handleDataset(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	lines, _, ok := s.datasetManifest(name)
	if !ok {
		writeError(w, http.StatusNotFound, "no dataset "+name, nil)
		return
	}
	resp := DatasetResponse{Name: name, Clips: []DatasetClip{}}
	for _, m := range lines {
		c := DatasetClip{SampleID: m.SampleID, Split: m.Split, Text: m.Text, TurnTaking: m.TurnTaking,
			URL: "/api/datasets/" + url.PathEscape(name) + "/" + url.PathEscape(m.SampleID) + ".wav"}
		for k, f := range m.VideoFrames {
			u := ""
			if f != "" {
				u = "/api/datasets/" + url.PathEscape(name) + "/" + url.PathEscape(m.SampleID) + ".f" + strconv.Itoa(k) + ".jpg"
			}
			c.VideoFrames = append(c.VideoFrames, u)
		}
		resp.Clips = append(resp.Clips, c)
	}
	writeJSON(w, http.StatusOK, resp)
}

// handleDatasetClip serves {sample_id}.wav of a served dataset.
func (s *Server) handleDatasetClip(w http.ResponseWriter, r *http.Request) {
	name, file := r.PathValue("name"), r.PathValue("file")
	id, ok := strings.CutSuffix(file, ".wav")
	frame := -1
	if jid, isJPEG := strings.CutSuffix(file, ".jpg"); isJPEG && !ok {
		// {sample_id}.f{k}.jpg: a video frame of the clip
		if i := strings.LastIndex(jid, ".f"); i > 0 {
			if k, err := strconv.Atoi(jid[i+2:]); err == nil && k >= 0 {
				id, frame, ok = jid[:i], k, true
			}
		}
	}
	lines, fsys, found := s.datasetManifest(name)
	if !ok || !found {
		writeError(w, http.StatusNotFound, "no such clip", nil)
		return
	}
	for _, m := range lines {
		if m.SampleID != id {
			continue
		}
		if frame >= 0 {
			if frame >= len(m.VideoFrames) || m.VideoFrames[frame] == "" || !fs.ValidPath(m.VideoFrames[frame]) {
				break
			}
			b, err := fs.ReadFile(fsys, m.VideoFrames[frame])
			if err != nil {
				break
			}
			w.Header().Set("Content-Type", "image/jpeg")
			w.Header().Set("Cache-Control", "public, max-age=3600")
			http.ServeContent(w, r, file, time.Time{}, bytes.NewReader(b))
			return
		}
		b, err := fs.ReadFile(fsys, path.Clean(m.Audio))
		if err != nil {
			break
		}
		w.Header().Set("Content-Type", "audio/wav")
		w.Header().Set("Cache-Control", "public, max-age=3600")
		http.ServeContent(w, r, file, time.Time{}, bytes.NewReader(b))
		return
	}
	writeError(w, http.StatusNotFound, "no such clip", nil)
}
