//go:build !js

package server_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/duplexscope/duplexscope/audio"
	"github.com/duplexscope/duplexscope/server"
	"github.com/duplexscope/duplexscope/session/probe"
	"github.com/duplexscope/duplexscope/session/probe/clips"
	"github.com/google/go-cmp/cmp"
)

// TestProbes: /api/probes lists the standard probe clips the CLI uses (one
// definition: clips.StandardClip), and /api/probes/{kind}.wav serves each
// as a 16 kHz mono WAV holding exactly that clip.
func TestProbes(t *testing.T) {
	e := newEnv(t, func(c *server.Config) { c.ProbeClip, c.ProbeKinds = clips.StandardClip, probe.Kinds })
	code, _, b := e.do("GET", "/api/probes", nil)
	if code != http.StatusOK {
		t.Fatalf("GET /api/probes = %d %s", code, b)
	}
	if diff := cmp.Diff([]string{"probes"}, keys(t, b)); diff != "" {
		t.Errorf("keys (-want +got):\n%s", diff)
	}
	var want server.ProbesResponse
	for _, k := range probe.Kinds {
		pcm, name, err := clips.StandardClip(k)
		if err != nil {
			t.Fatal(err)
		}
		want.Probes = append(want.Probes, server.ProbeClip{Kind: k, Clip: name, DurationMs: audio.BytesToMs(len(pcm), audio.InputRate), URL: "/api/probes/" + k + ".wav"})
	}
	got := decode[server.ProbesResponse](t, b)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("GET /api/probes (-want +got):\n%s", diff)
	}
	for _, p := range got.Probes {
		code, h, b := e.do("GET", p.URL, nil)
		if code != http.StatusOK || h.Get("Content-Type") != "audio/wav" {
			t.Errorf("GET %s = %d %q", p.URL, code, h.Get("Content-Type"))
			continue
		}
		c, err := audio.DecodeWAV(b)
		if err != nil {
			t.Errorf("GET %s: %v", p.URL, err)
			continue
		}
		pcm, _, _ := clips.StandardClip(p.Kind)
		channels := binary.LittleEndian.Uint16(b[22:24]) // fmt chunk of the canonical header
		if c.Rate != audio.InputRate || channels != 1 || len(c.Samples) != len(pcm)/2 || !bytes.Equal(b[len(b)-len(pcm):], pcm) {
			t.Errorf("GET %s: %d Hz × %d, %d samples; want the 16 kHz mono standard clip (%d samples)", p.URL, c.Rate, channels, len(c.Samples), len(pcm)/2)
		}
	}
	for _, p := range []string{"/api/probes/shout.wav", "/api/probes/noise", "/api/probes/noise.mp3", "/api/probes/..%2fnoise.wav"} {
		code, h, b := e.do("GET", p, nil)
		if code != http.StatusNotFound || !strings.HasPrefix(h.Get("Content-Type"), "application/json") || !strings.Contains(string(b), `"error":"no standard probe clip`) {
			t.Errorf("GET %s = %d %q %s, want 404 with a JSON error", p, code, h.Get("Content-Type"), b)
		}
	}
}

// TestProbesUnconfigured: without Config.ProbeClip the list is empty and
// every clip is a 404; a failing clip source is a 500 naming the kind.
func TestProbesUnconfigured(t *testing.T) {
	e := newEnv(t, nil)
	if code, _, b := e.do("GET", "/api/probes", nil); code != http.StatusOK || strings.TrimSpace(string(b)) != `{"probes":[]}` {
		t.Errorf("GET /api/probes = %d %s, want an empty list", code, b)
	}
	if code, _, _ := e.do("GET", "/api/probes/noise.wav", nil); code != http.StatusNotFound {
		t.Errorf("GET /api/probes/noise.wav = %d, want 404", code)
	}
	broken := newEnv(t, func(c *server.Config) {
		c.ProbeKinds = []string{"noise"}
		c.ProbeClip = func(string) ([]byte, string, error) { return nil, "", errors.New("disk gone") }
	})
	for _, p := range []string{"/api/probes", "/api/probes/noise.wav"} {
		if code, _, b := broken.do("GET", p, nil); code != http.StatusInternalServerError || !strings.Contains(string(b), "noise: disk gone") {
			t.Errorf("GET %s = %d %s, want 500 naming the kind and cause", p, code, b)
		}
	}
}
