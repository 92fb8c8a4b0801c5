//go:build e2e

package e2e

import (
	"encoding/json"
	"math"
	"net/url"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/duplexscope/duplexscope/trace"
)

// TestCameraSession runs a page session with the camera source on
// (video=camera) against Chromium's fake camera: the latest ~1 fps JPEG
// rides the next append; the report counts the frames sent, the simulator
// received the same number, and the wire log keeps digests, not pictures.
func TestCameraSession(t *testing.T) {
	t.Parallel() // no timing bound: may run beside another test (doc.go)
	s, ctx := pageTest(t, nil, 3*time.Minute)
	const durS = 8
	q := url.Values{"autostart": {"1"}, "duration_s": {strconv.Itoa(durS)}, "source": {"mic"}, "video": {"camera"}}
	run := runPage(t, s, ctx, q, 2*time.Minute)
	rep, truth := videoRun(t, s, run)
	sent := rep.VideoFramesSent
	wl := s.getJSON(t, "/api/reports/"+run.ReportID+"/attachments/"+rep.WireLog, nil)
	span := appendSpan(t, wl)
	t.Logf("video frames sent: %d over %.0f ms of appends (page clock)", sent, span)
	// About one picture a second. The first may come late, while the fake
	// camera starts: at least durS − 3. The camera ticks once a second of
	// wall time, not of input, so the bound above is the appends' wall
	// span on the page clock (it exceeds durS s when a busy page sends its
	// input late): the first append carries the picture taken before it,
	// later appends the ones taken during the span — at most ⌊span⌋ + 1
	// ticks, plus one tick the ticker may deliver late from before the
	// span. A capture per append (5 a second) would exceed this.
	if maxSent := int(span/1000) + 3; sent < durS-3 || sent > maxSent {
		t.Errorf("video_frames_sent = %d, want about %d (1 fps over %d s of input, at most %d over the %.0f ms the appends took)", sent, durS, durS, maxSent, span)
	}
	if truth.Received != sent || len(truth.Frames) != sent {
		t.Errorf("simulator received %d frames (%d listed), the report says %d sent", truth.Received, len(truth.Frames), sent)
	}
	for i := 1; i < len(truth.Frames); i++ {
		if truth.Frames[i].AppendIndex <= truth.Frames[i-1].AppendIndex {
			t.Errorf("two frames on one append or out of order: %+v", truth.Frames)
			break
		}
	}
	if n := len(regexp.MustCompile(`"video_frames":\[\{"bytes":\d+,"sha256":"[0-9a-f]{64}"\}\]`).FindAll(wl, -1)); n != sent {
		t.Errorf("wire log holds %d frame digests, want %d", n, sent)
	}
	text, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#camera-frames")))
	if err != nil {
		t.Fatal(err)
	}
	if want := "Camera: " + strconv.Itoa(sent) + " video frames sent"; len(text) < len(want) || text[:len(want)] != want {
		t.Errorf("page says %q, want %q…", text, want)
	}
}

// TestVideoDatasetSession streams the bundled video clip (dataset:video):
// its frames ride the appends at OmniInteract's boundaries (frame k on the
// first append with audio_end_ms ≥ (k+0.5)·1000), as the simulator saw them.
func TestVideoDatasetSession(t *testing.T) {
	t.Parallel() // no timing bound: may run beside another test (doc.go)
	s, ctx := pageTest(t, nil, 3*time.Minute)
	q := url.Values{"autostart": {"1"}, "source": {"dataset:video"}}
	run := runPage(t, s, ctx, q, 2*time.Minute)
	rep, truth := videoRun(t, s, run)
	if rep.VideoFramesSent != 5 { // greeting.mp4: 4.6 s → 5 slots, all with a picture
		t.Fatalf("session %+v, want 5 frames sent", rep)
	}
	if truth.Received != 5 || len(truth.Frames) != 5 {
		t.Fatalf("truth: %+v", truth)
	}
	for k, f := range truth.Frames {
		b := int((float64(k) + 0.5) * 1000)
		if f.AudioEndMs < b || f.AudioEndMs >= b+200 { // the first 200 ms append at or past the boundary
			t.Errorf("frame %d rode the append ending at %d ms, want the first at ≥ %d ms", k, f.AudioEndMs, b)
		}
	}
}

// appendSpan is the page-clock time from the wire log's first
// input_audio_buffer.append to its last, in ms.
func appendSpan(t *testing.T, wireLog []byte) float64 {
	t.Helper()
	tr, err := trace.DecodeSession(wireLog)
	if err != nil {
		t.Fatalf("wire log: %v", err)
	}
	first, last := math.NaN(), math.NaN()
	for _, e := range tr.Events {
		var ev struct {
			Type string `json:"type"`
		}
		if e.Dir != trace.DirSend || json.Unmarshal(e.Event, &ev) != nil || ev.Type != "input_audio_buffer.append" {
			continue
		}
		if math.IsNaN(first) {
			first = e.TMs
		}
		last = e.TMs
	}
	if math.IsNaN(first) {
		t.Fatal("the wire log has no input_audio_buffer.append")
	}
	return last - first
}

// videoSession is the one session of a video run's report.
type videoSession struct {
	SessionID       string `json:"session_id"`
	WireLog         string `json:"wire_log"`
	VideoFramesSent int    `json:"video_frames_sent"`
}

// videoTruth is what the simulator says it received of the pictures.
type videoTruth struct {
	Received int `json:"video_frames_received"`
	Frames   []struct {
		AppendIndex int `json:"append_index"`
		AudioEndMs  int `json:"audio_end_ms"`
	} `json:"video_frames"`
}

// videoRun fetches run's report, which must hold one session, and the
// simulator's truth of that session.
func videoRun(t *testing.T, s *stack, run browserRun) (videoSession, videoTruth) {
	t.Helper()
	var rep struct {
		Sessions []videoSession `json:"sessions"`
	}
	s.getJSON(t, "/api/reports/"+run.ReportID, &rep)
	if len(rep.Sessions) != 1 {
		t.Fatalf("sessions %+v, want one", rep.Sessions)
	}
	var truth videoTruth
	s.getJSON(t, "/sim/sessions/"+rep.Sessions[0].SessionID+"/truth", &truth)
	return rep.Sessions[0], truth
}
