//go:build !js

package bench

import (
	"encoding/json"
	"strings"

	"github.com/duplexscope/duplexscope/audio"
	"github.com/duplexscope/duplexscope/protocol"
	"github.com/duplexscope/duplexscope/trace"
)

// Buffering is the playback path's own delay per response, from a page
// session's wire log (PlayerBuffering).
type Buffering struct {
	// Delays: per response played that the player was free for when its
	// first audio arrived, its first sample's played_at_ms minus that
	// audio's receive stamp (client receive clock → playback clock).
	Delays []float64
	// Queued counts the responses left out: their first audio arrived
	// while the previous response still played.
	Queued int
}

// PlayerBuffering measures how long a response's first audio waited in
// the page's playback path before its first sample played.
//
// heard TTFP − client TTFP (PlaybackBuffering) also counts the wait for
// the previous response: the player plays responses one after another, so
// a response whose audio arrives while the one before still plays starts
// when that one ends. That wait is the previous response's audio, not
// buffering: the simulator's periodic profile (~2.6 s of audio every 3 s
// of input) keeps the player busy ~88% of the time, and the longer the
// session the more responses queue (measured, session_thread=worker: 18
// of 39 in 2 minutes, 106 of 199 in 10, where that figure's p50 was 101 ms
// and this one's 41 ms), so the figure's p50 lands on the queued
// responses' waits (hundreds of ms) or not depending on the session's
// length and pacing, whatever the playback path does. A queued response's own start says
// nothing about the path either (it follows the previous one's last
// sample, ≈ 0 ms, if its audio came in time), so only the responses the
// player was free for count: for those heard TTFP − client TTFP is all
// the path's delay (decode, hand-off to the playback worklet, its
// prebuffer, the render quantum and the output latency).
//
// The previous response ends at its played_at_ms plus its audio (all of
// it received, or what played before a "cleared" note). An underrun in it
// ends it later than that, so a response it delays may count as free with
// that wait in its delay: this can only overstate buffering, never hide
// any.
func PlayerBuffering(events []trace.Event) Buffering {
	type resp struct {
		first, heard float64 // receive stamp of the first audio, played_at_ms; < 0: none
		samples      int     // audio received (output rate)
		clearedMs    float64 // played before a "cleared" note; < 0: not cleared
	}
	byID := map[string]*resp{}
	var order []string // by first audio received: the player's queue order
	for _, e := range events {
		switch e.Dir {
		case trace.DirRecv:
			var ev struct {
				Type  string `json:"type"`
				Delta string `json:"delta"`
				Audio string `json:"audio"`
			}
			if json.Unmarshal(e.Event, &ev) != nil || ev.Type != protocol.TypeResponseOutputAudioDelta {
				continue
			}
			b64 := ev.Delta
			if b64 == "" {
				b64 = ev.Audio
			}
			id, _ := protocol.ResponseIdentity(e.Event)
			if id == "" || b64 == "" {
				continue
			}
			r := byID[id]
			if r == nil {
				r = &resp{first: e.TMs, heard: -1, clearedMs: -1}
				byID[id] = r
				order = append(order, id)
			}
			r.samples += base64Len(b64) / 2
		case trace.DirLocal:
			var n struct {
				Type       string   `json:"type"`
				Event      string   `json:"event"`
				ResponseID string   `json:"response_id"`
				PlayedAtMs *float64 `json:"played_at_ms"`
				PlayedMs   float64  `json:"played_ms"`
			}
			if json.Unmarshal(e.Event, &n) != nil || n.Type != "duplexscope.playback" {
				continue
			}
			r := byID[n.ResponseID]
			switch {
			case r == nil:
			case n.Event == "start" && n.PlayedAtMs != nil && r.heard < 0:
				r.heard = *n.PlayedAtMs
			case n.Event == "cleared":
				r.clearedMs = n.PlayedMs
			}
		}
	}
	var out Buffering
	prevEnd := -1.0 // < 0: the player had nothing before
	for _, id := range order {
		r := byID[id]
		if r.heard < 0 {
			continue // never played (cleared before it started)
		}
		if prevEnd > r.first {
			out.Queued++
		} else {
			out.Delays = append(out.Delays, r.heard-r.first)
		}
		played := float64(r.samples) * 1000 / audio.OutputRate
		if r.clearedMs >= 0 {
			played = r.clearedMs
		}
		prevEnd = r.heard + played
	}
	return out
}

// base64Len is the decoded length of base64 s, padded or not.
func base64Len(s string) int {
	return len(strings.TrimRight(s, "=")) * 3 / 4
}
