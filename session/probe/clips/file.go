package clips

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/duplexscope/duplexscope/audio"
	"github.com/duplexscope/duplexscope/dataset"
	"github.com/duplexscope/duplexscope/session/probe"
)

// Load reads a probe file (the CLI's --probe): a JSON list of {kind, clip, offset_s,
// gain, duration_s}. clip is a WAV path (relative to the file),
// "builtin:SAMPLE_ID", "noise" (white noise, duration_s long, default 1 s),
// or "standard:KIND"; empty or "standard" means the standard clip of the
// probe's kind (StandardClip), recorded as "standard:KIND".
func Load(path string) ([]probe.Probe, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var specs []struct {
		Kind      string   `json:"kind"`
		Clip      string   `json:"clip"`
		OffsetS   float64  `json:"offset_s"`
		Gain      *float64 `json:"gain"`
		DurationS float64  `json:"duration_s"`
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&specs); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var out []probe.Probe
	for i, sp := range specs {
		p := probe.Probe{Kind: sp.Kind, Clip: sp.Clip, OffsetS: sp.OffsetS}
		if err := probe.Validate(p); err != nil {
			return nil, fmt.Errorf("%s: probe %d: %w", path, i, err)
		}
		var (
			pcm []byte    // the clip as PCM16 (standard, builtin) …
			x   []float32 // … or as samples (noise, WAV files)
		)
		switch {
		case sp.Clip == "" || sp.Clip == "standard" || strings.HasPrefix(sp.Clip, StandardClipPrefix):
			kind := strings.TrimPrefix(sp.Clip, StandardClipPrefix)
			if sp.Clip == "" || sp.Clip == "standard" {
				kind = sp.Kind
			}
			var name string
			if pcm, name, err = StandardClip(kind); err != nil {
				return nil, fmt.Errorf("%s: probe %d: %w", path, i, err)
			}
			p.Clip = name
		case sp.Clip == "noise":
			d := sp.DurationS
			if d <= 0 {
				d = 1
			}
			x = Noise(int(d*audio.InputRate), NoiseSeed+uint32(i))
		case strings.HasPrefix(sp.Clip, "builtin:"):
			s, err := dataset.Find(dataset.BuiltinName, strings.TrimPrefix(sp.Clip, "builtin:"))
			if err != nil {
				return nil, fmt.Errorf("%s: probe %d: %w", path, i, err)
			}
			if pcm, err = s.PCM(context.Background(), nil); err != nil {
				return nil, fmt.Errorf("%s: probe %d: %w", path, i, err)
			}
		default:
			f := sp.Clip
			if !filepath.IsAbs(f) {
				f = filepath.Join(filepath.Dir(path), f)
			}
			wb, err := os.ReadFile(f)
			if err != nil {
				return nil, fmt.Errorf("%s: probe %d: %w", path, i, err)
			}
			c, err := audio.DecodeWAV(wb)
			if err != nil {
				return nil, fmt.Errorf("%s: probe %d: %w", path, i, err)
			}
			x = audio.Resample(c.Samples, c.Rate, audio.InputRate)
		}
		if sp.Gain != nil {
			if x == nil {
				x = audio.PCM16ToFloat(pcm)
			}
			for k := range x {
				x[k] *= float32(*sp.Gain)
			}
			pcm = nil
		}
		if pcm == nil {
			pcm = audio.FloatToPCM16(x)
		}
		p.PCM = pcm
		out = append(out, p)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no probes", path)
	}
	return out, nil
}
