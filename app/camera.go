package app

import (
	"context"
	"encoding/base64"
	"fmt"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/duplexscope/duplexscope/session"
)

// Camera capture, as vLLM's web demo does it: the latest camera picture,
// about once a second, as a JPEG at quality 0.7, rides the next append
// (session.LatestFrame). Frames are capped at cameraMaxBytes so two of them
// plus an append's audio fit the server's (and the simulator's) websocket
// frame cap; a picture over the cap is re-encoded smaller, then dropped.
const (
	cameraInterval = time.Second
	cameraQuality  = 0.7
	cameraMaxSide  = 640       // scaled to fit 640×640, like the CLI's extracted frames
	cameraMaxBytes = 256 << 10 // dataset.MaxFrameBytes
	// CameraPreviewID is the element the preview <video> is placed in.
	CameraPreviewID = "camera-preview"
)

// Video settings (URL parameter video=camera|off).
const (
	VideoOff    = "off"
	VideoCamera = "camera"
)

// camera is a running capture.
type camera struct {
	latest   session.LatestFrame
	stream   app.Value
	video    app.Value
	canvas   app.Value
	mu       sync.Mutex
	captured int // pictures handed to the session
	dropped  int // pictures over the cap even re-encoded
	done     chan struct{}
	once     sync.Once
}

// startCamera opens the camera (getUserMedia video), shows a small preview
// in #camera-preview when the page has one, and captures a picture every
// cameraInterval until stop.
func startCamera(ctx context.Context) (*camera, error) {
	w := app.Window()
	md := w.Get("navigator").Get("mediaDevices")
	if md.IsUndefined() {
		return nil, fmt.Errorf("no camera access here (the page needs https or localhost)")
	}
	constraints := jsObject(map[string]any{"audio": false, "video": jsObject(map[string]any{
		"width": jsObject(map[string]any{"ideal": 640}), "height": jsObject(map[string]any{"ideal": 480}),
	})})
	stream, err := await(md.Call("getUserMedia", constraints))
	if err != nil {
		return nil, fmt.Errorf("camera: %w", err)
	}
	doc := w.Get("document")
	c := &camera{stream: stream, done: make(chan struct{})}
	c.video = doc.Call("createElement", "video")
	c.video.Set("muted", true)
	c.video.Set("playsInline", true)
	c.video.Set("autoplay", true)
	c.video.Set("width", 160)
	c.video.Set("srcObject", stream)
	if box := doc.Call("getElementById", CameraPreviewID); !box.IsNull() && !box.IsUndefined() {
		box.Call("appendChild", c.video)
	}
	c.video.Call("play")
	c.canvas = doc.Call("createElement", "canvas")
	go c.loop(ctx)
	return c, nil
}

func (c *camera) loop(ctx context.Context) {
	t := time.NewTicker(cameraInterval)
	for {
		c.capture()
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-c.done:
			t.Stop()
			return
		case <-t.C:
		}
	}
}

// capture draws the current picture and stores it as the latest frame.
func (c *camera) capture() {
	vw, vh := c.video.Get("videoWidth").Int(), c.video.Get("videoHeight").Int()
	if vw <= 0 || vh <= 0 {
		return // no picture yet
	}
	scale := math.Min(1, float64(cameraMaxSide)/float64(max(vw, vh)))
	for _, try := range []struct{ scale, q float64 }{{scale, cameraQuality}, {scale, 0.5}, {scale / 2, 0.5}} {
		w, h := max(1, int(float64(vw)*try.scale)), max(1, int(float64(vh)*try.scale))
		c.canvas.Set("width", w)
		c.canvas.Set("height", h)
		c.canvas.Call("getContext", "2d").Call("drawImage", c.video, 0, 0, w, h)
		b64, ok := strings.CutPrefix(c.canvas.Call("toDataURL", "image/jpeg", try.q).String(), "data:image/jpeg;base64,")
		if !ok {
			return // the browser could not encode a JPEG
		}
		if base64.StdEncoding.DecodedLen(len(b64)) <= cameraMaxBytes {
			c.latest.Set(b64)
			c.mu.Lock()
			c.captured++
			c.mu.Unlock()
			return
		}
	}
	c.mu.Lock()
	c.dropped++
	c.mu.Unlock()
}

// stop ends the capture and releases the camera.
func (c *camera) stop() {
	c.once.Do(func() {
		close(c.done)
		tracks := c.stream.Call("getTracks")
		for i := 0; i < tracks.Length(); i++ {
			tracks.Index(i).Call("stop")
		}
		c.video.Set("srcObject", nil)
	})
}
