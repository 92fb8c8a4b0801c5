package app

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/duplexscope/duplexscope/audio"
	"github.com/duplexscope/duplexscope/metrics/turntaking"
	"github.com/duplexscope/duplexscope/report"
	"github.com/duplexscope/duplexscope/server/apiclient"
	"github.com/duplexscope/duplexscope/session"
)

// clipGapMs of silence separates dataset clips so each is its own turn.
const clipGapMs = 1500

// labelledGapMs of silence separates the clips of a labelled dataset
// instead: every clip of the bundled labelled set already ends with ≥ 1.2 s
// of silence, so a model answer of up to ~7 s to a clip's last turn (the
// scenarios with known answers answer for up to 6 s after a ≤ 0.5 s
// end-of-turn wait) ends before the next clip starts, and no case window
// sees the previous clip's answer (with 1.5 s, a 6 s answer that holds the
// floor runs into the next clip and its turn end is missed).
const labelledGapMs = 6000

// datasetClip is one entry of GET /api/datasets/{name}.
type datasetClip struct {
	SampleID string `json:"sample_id"`
	Split    string `json:"split"`
	Text     string `json:"text"`
	URL      string `json:"url"`
	// VideoFrames are the clip's frame URLs, one per OmniInteract slot
	// (frame k due at (k+0.5)·1000 ms of the clip; "" for an empty slot).
	VideoFrames []string `json:"video_frames"`
}

// clipCaption is a clip's text at its offset in the joined stream.
type clipCaption struct {
	TS   float64 // seconds from stream start
	Text string
}

// joinedDataset is a dataset's clips joined into one input stream.
type joinedDataset struct {
	PCM      []byte // 16 kHz PCM16
	Captions []clipCaption
	Labels   *streamLabels // nil when no clip has labels
	// Video holds the clips' frames (bare base64 JPEG, "" for an empty
	// slot) and VideoAtMs when each is due on the joined stream's clock.
	Video     []string
	VideoAtMs []float64
}

// loadDataset fetches a dataset's clips from the page's server and joins
// them into one 16 kHz PCM16 stream with silence between clips (see
// gapBefore), with each clip's caption and its turn-taking labels moved to
// the stream clock. frameMs is the input frame size.
func loadDataset(ctx context.Context, name string, frameMs int) (*joinedDataset, error) {
	entries, raws, err := fetchClipList(ctx, name)
	if err != nil {
		return nil, err
	}
	clips := make([]labelledClip, len(entries))
	labelled := false
	for i, raw := range raws {
		c := entries[i]
		// A clip entry carries its record's "turntaking" member as is, so
		// it parses like the manifest record the CLI reads.
		ls, err := turntaking.ParseLabels(raw)
		if err != nil {
			return nil, fmt.Errorf("clip %s: %w", c.SampleID, err)
		}
		clips[i] = labelledClip{CaseClip: report.CaseClip{SampleID: c.SampleID, Split: c.Split}, Labels: ls}
		labelled = labelled || len(ls) > 0
	}
	out := &joinedDataset{}
	for i, c := range entries {
		p, err := clipPCM(ctx, c)
		if err != nil {
			return nil, err
		}
		if i > 0 {
			out.PCM = append(out.PCM, make([]byte, gapBefore(len(out.PCM), labelled, frameMs))...)
		}
		clips[i].OffsetMs = float64(len(out.PCM)) / 32 // 16 kHz PCM16: 32 bytes per ms
		for k, u := range c.VideoFrames {
			f := ""
			if u != "" {
				b, err := fetch(ctx, u)
				if err != nil {
					return nil, fmt.Errorf("clip %s frame %d: %w", c.SampleID, k, err)
				}
				f = base64.StdEncoding.EncodeToString(b)
			}
			out.Video = append(out.Video, f)
			out.VideoAtMs = append(out.VideoAtMs, clips[i].OffsetMs+session.OmniInteractBoundary(k))
		}
		out.Captions = append(out.Captions, clipCaption{TS: clips[i].OffsetMs / 1000, Text: c.Text})
		out.PCM = append(out.PCM, p...)
	}
	if labelled {
		out.Labels = joinLabels(clips)
	}
	return out, nil
}

// gapBefore returns the silence, in bytes of 16 kHz PCM16, to put before
// a clip when the stream so far holds cursor bytes: clipGapMs; for a
// labelled dataset labelledGapMs, rounded up so that the clip starts on a
// frame boundary — its frames are then cut as `duplexscope run` cuts the
// clip alone, so the server hears the same frames (the simulator decides
// turns per frame received).
func gapBefore(cursor int, labelled bool, frameMs int) int {
	if !labelled {
		return audio.FrameBytes(16000, clipGapMs)
	}
	gap := audio.FrameBytes(16000, labelledGapMs)
	if f := audio.FrameBytes(16000, frameMs); f > 0 {
		if r := (cursor + gap) % f; r != 0 {
			gap += f - r
		}
	}
	return gap
}

// fetchClipList reads GET /api/datasets/{name}: at least one clip, each
// decoded and as its raw entry (labels ride along in it).
func fetchClipList(ctx context.Context, name string) ([]datasetClip, []json.RawMessage, error) {
	var list struct {
		Clips []json.RawMessage `json:"clips"`
	}
	b, err := fetch(ctx, "/api/datasets/"+url.PathEscape(name))
	if se, ok := errors.AsType[*apiclient.Error](err); ok && se.Code == http.StatusNotFound {
		return nil, nil, fmt.Errorf("this server has no dataset %q (bundled: %s)", name, strings.Join(BundledDatasets, ", "))
	}
	if err != nil {
		return nil, nil, err
	}
	if err := json.Unmarshal(b, &list); err != nil {
		return nil, nil, fmt.Errorf("reading the clip list: %w", err)
	}
	if len(list.Clips) == 0 {
		return nil, nil, fmt.Errorf("dataset %s has no clips", name)
	}
	entries := make([]datasetClip, len(list.Clips))
	for i, raw := range list.Clips {
		if err := json.Unmarshal(raw, &entries[i]); err != nil {
			return nil, nil, fmt.Errorf("reading the clip list: %w", err)
		}
	}
	return entries, list.Clips, nil
}

// loadClips fetches every clip of a served dataset as 16 kHz PCM16 (the
// load page streams each one in its own session).
func loadClips(ctx context.Context, name string) ([][]byte, error) {
	list, _, err := fetchClipList(ctx, name)
	if err != nil {
		return nil, err
	}
	out := make([][]byte, 0, len(list))
	for _, c := range list {
		p, err := clipPCM(ctx, c)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// clipPCM fetches one clip as 16 kHz PCM16.
func clipPCM(ctx context.Context, c datasetClip) ([]byte, error) {
	w, err := fetch(ctx, c.URL)
	if err != nil {
		return nil, fmt.Errorf("clip %s: %w", c.SampleID, err)
	}
	p, err := wavToInput(w)
	if err != nil {
		return nil, fmt.Errorf("clip %s: %w", c.SampleID, err)
	}
	return p, nil
}

// wavToInput decodes a WAV of any rate and channel count to 16 kHz mono PCM16.
func wavToInput(b []byte) ([]byte, error) {
	clip, err := audio.DecodeWAV(b)
	if err != nil {
		return nil, err
	}
	return audio.ToInputPCM16(clip), nil
}

// fetch GETs a clip, a frame or a list from the page's server (path) or a
// URL, through the one API client; a non-2xx answer is an *apiclient.Error.
func fetch(ctx context.Context, path string) ([]byte, error) {
	c := apiclient.Client{MaxAnswer: 64 << 20}
	if strings.HasPrefix(path, "/") {
		c.Base = pageOrigin()
	}
	var b []byte
	err := c.Send(ctx, apiclient.Call{Method: http.MethodGet, Path: path}, &b)
	return b, err
}

// checkLinkDataset asks the page's server whether a dataset the connect
// panel does not list exists; report gets the error on the UI goroutine.
func checkLinkDataset(ctx app.Context, s Settings, report func(error)) {
	name := s.DatasetName()
	if name == "" || slices.Contains(BundledDatasets, name) {
		return
	}
	ctx.Async(func() {
		if _, _, err := fetchClipList(context.Background(), name); err != nil {
			ctx.Dispatch(func(app.Context) { report(fmt.Errorf("source=%q: %w", s.Source, err)) })
		}
	})
}
