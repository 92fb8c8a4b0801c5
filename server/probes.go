//go:build !js

package server

import (
	"bytes"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/duplexscope/duplexscope/audio"
)

// ProbeClip is one entry of GET /api/probes: a standard probe clip the
// page injects (and `run --probe` uses when a probe names no clip).
type ProbeClip struct {
	Kind       string  `json:"kind"`
	Clip       string  `json:"clip"` // "standard:KIND", as reports record it
	DurationMs float64 `json:"duration_ms"`
	URL        string  `json:"url"`
}

// ProbesResponse is the body of GET /api/probes.
type ProbesResponse struct {
	Probes []ProbeClip `json:"probes"`
}

// handleProbes lists the standard probe clips in Config.ProbeKinds order.
func (s *Server) handleProbes(w http.ResponseWriter, r *http.Request) {
	resp := ProbesResponse{Probes: []ProbeClip{}}
	for _, k := range s.probeKinds() {
		pcm, name, err := s.cfg.ProbeClip(k)
		if err != nil {
			writeError(w, http.StatusInternalServerError, "standard probe clip "+k+": "+err.Error(), nil)
			return
		}
		resp.Probes = append(resp.Probes, ProbeClip{Kind: k, Clip: name, DurationMs: audio.BytesToMs(len(pcm), audio.InputRate),
			URL: "/api/probes/" + url.PathEscape(k) + ".wav"})
	}
	writeJSON(w, http.StatusOK, resp)
}

// handleProbeClip serves {kind}.wav: the standard clip, 16 kHz mono PCM16.
func (s *Server) handleProbeClip(w http.ResponseWriter, r *http.Request) {
	file := r.PathValue("file")
	kind, ok := strings.CutSuffix(file, ".wav")
	if !ok || !slices.Contains(s.probeKinds(), kind) {
		writeError(w, http.StatusNotFound, "no standard probe clip "+file+" (kinds: "+strings.Join(s.probeKinds(), ", ")+")", nil)
		return
	}
	pcm, _, err := s.cfg.ProbeClip(kind)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "standard probe clip "+kind+": "+err.Error(), nil)
		return
	}
	var b bytes.Buffer
	if err := audio.WritePCM16WAV(&b, pcm, audio.InputRate); err != nil {
		writeError(w, http.StatusInternalServerError, "standard probe clip "+kind+": "+err.Error(), nil)
		return
	}
	w.Header().Set("Content-Type", "audio/wav")
	w.Header().Set("Cache-Control", "public, max-age=3600")
	http.ServeContent(w, r, file, time.Time{}, bytes.NewReader(b.Bytes()))
}

// probeKinds are the kinds served (none without Config.ProbeClip).
func (s *Server) probeKinds() []string {
	if s.cfg.ProbeClip == nil {
		return nil
	}
	return s.cfg.ProbeKinds
}
