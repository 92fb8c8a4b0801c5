package app

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"

	"github.com/duplexscope/duplexscope/audio"
)

// clipGapMs of silence separates dataset clips so each is its own turn.
const clipGapMs = 1500

// datasetClip is one entry of GET /api/datasets/{name}.
type datasetClip struct {
	SampleID string `json:"sample_id"`
	Split    string `json:"split"`
	Text     string `json:"text"`
	URL      string `json:"url"`
}

// clipCaption is a clip's text at its offset in the joined stream.
type clipCaption struct {
	TS   float64 // seconds from stream start
	Text string
}

// loadDataset fetches a dataset's clips from the page's server and joins
// them into one 16 kHz PCM16 stream with silence between clips, with each
// clip's caption.
func loadDataset(ctx context.Context, name string) ([]byte, []clipCaption, error) {
	clips, err := fetchClipList(ctx, name)
	if err != nil {
		return nil, nil, err
	}
	gap := make([]byte, audio.FrameBytes(16000, clipGapMs))
	var pcm []byte
	var caps []clipCaption
	for i, c := range clips {
		w, err := fetch(ctx, c.URL)
		if err != nil {
			return nil, nil, fmt.Errorf("clip %s: %w", c.SampleID, err)
		}
		p, err := wavToInput(w)
		if err != nil {
			return nil, nil, fmt.Errorf("clip %s: %w", c.SampleID, err)
		}
		if i > 0 {
			pcm = append(pcm, gap...)
		}
		caps = append(caps, clipCaption{TS: float64(len(pcm)) / 32000, Text: c.Text})
		pcm = append(pcm, p...)
	}
	return pcm, caps, nil
}

// fetchClipList reads GET /api/datasets/{name}: at least one clip.
func fetchClipList(ctx context.Context, name string) ([]datasetClip, error) {
	var list struct {
		Clips []datasetClip `json:"clips"`
	}
	b, err := fetch(ctx, "/api/datasets/"+url.PathEscape(name))
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, &list); err != nil {
		return nil, fmt.Errorf("reading the clip list: %w", err)
	}
	if len(list.Clips) == 0 {
		return nil, fmt.Errorf("dataset %s has no clips", name)
	}
	return list.Clips, nil
}

// wavToInput decodes a WAV of any rate and channel count to 16 kHz mono PCM16.
func wavToInput(b []byte) ([]byte, error) {
	clip, err := audio.DecodeWAV(b)
	if err != nil {
		return nil, err
	}
	return audio.ToInputPCM16(clip), nil
}

func fetch(ctx context.Context, path string) ([]byte, error) {
	u := path
	if len(path) > 0 && path[0] == '/' {
		u = pageOrigin() + path
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", path, res.Status)
	}
	return io.ReadAll(io.LimitReader(res.Body, 64<<20))
}
