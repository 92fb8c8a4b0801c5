package probe

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/duplexscope/duplexscope/audio"
	"github.com/duplexscope/duplexscope/protocol"
	"github.com/duplexscope/duplexscope/trace"
)

// Probe kinds (issue 11): what an injected clip stands for.
const (
	KindInterruption = "interruption" // the user talks over the model: a barge-in
	KindBackchannel  = "backchannel"  // "mm-hm": the model should keep talking
	KindSideTalk     = "side_talk"    // speech not addressed to the model
	KindNoise        = "noise"        // non-speech noise
)

// How the response playing at a probe's onset stopped (Result.StoppedBy).
const (
	StopCleared = "cleared" // output_audio_buffer.cleared: the probe cut it
	StopEnded   = "ended"   // its audio ran out: the model kept talking to the end
	// StopLaterProbe: it was cleared, but after a later probe's onset on
	// the same response: the model kept talking through this probe, and the
	// cut (with its latency) belongs to the later one.
	StopLaterProbe = "later_probe"
)

// Kinds lists the valid probe kinds.
var Kinds = []string{KindInterruption, KindBackchannel, KindSideTalk, KindNoise}

// Probe is one clip injected into the input stream at OffsetS seconds after
// stream start (mixed into the input; the input is extended with silence
// when the probe ends after it).
type Probe struct {
	Kind    string  `json:"kind"`
	Clip    string  `json:"clip"`
	OffsetS float64 `json:"offset_s"`
	PCM     []byte  `json:"-"` // 16 kHz mono PCM16 of the clip
}

// Inject mixes each probe's PCM into pcm at its offset (sample-wise
// sum, clipped to PCM16) and returns the new input; pcm is not modified.
// After the last probe the input is extended so at least 1.5 s of the
// original (or silence) follows it, letting an energy VAD see its end.
func Inject(pcm []byte, probes []Probe) []byte {
	end := len(pcm)
	for _, p := range probes {
		off := int(math.Round(p.OffsetS*audio.InputRate)) * 2
		if e := off + len(p.PCM) + 48000; e > end {
			end = e
		}
	}
	out := make([]byte, end)
	copy(out, pcm)
	for _, p := range probes {
		off := int(math.Round(p.OffsetS*audio.InputRate)) * 2
		for i := 0; i+1 < len(p.PCM); i += 2 {
			j := off + i
			a := int32(int16(uint16(out[j]) | uint16(out[j+1])<<8))
			b := int32(int16(uint16(p.PCM[i]) | uint16(p.PCM[i+1])<<8))
			v := min(max(a+b, math.MinInt16), math.MaxInt16)
			out[j], out[j+1] = byte(uint16(v)), byte(uint16(v)>>8)
		}
	}
	return out
}

// Result is what a probe measured, all on the client monotonic clock
// (receive stamps and the simulated playback clock of headless mode).
type Result struct {
	SampleID  string  `json:"sample_id,omitempty"`
	Split     string  `json:"split,omitempty"`
	SessionID string  `json:"session_id,omitempty"`
	Kind      string  `json:"kind"`
	Clip      string  `json:"clip"`
	OffsetS   float64 `json:"offset_s"`
	OnsetMs   float64 `json:"onset_ms"` // stream start + offset
	// ActiveResponseID is the response whose audio was playing at onset
	// ("" when the model was silent).
	ActiveResponseID string `json:"active_response_id,omitempty"`
	// StoppedBy is how the response playing at onset stopped: StopCleared,
	// StopEnded, StopLaterProbe, or "" (nothing active, or still playing).
	StoppedBy     string   `json:"stopped_by,omitempty"`
	StopLatencyMs *float64 `json:"stop_latency_ms,omitempty"` // onset → playback stopped
	PlayedMs      *int     `json:"played_ms,omitempty"`       // playback clock, at stop
	CommittedMs   *int     `json:"committed_ms,omitempty"`    // last playback.ack sent for it
	ReceivedMs    *float64 `json:"received_ms,omitempty"`     // audio of it received in total
	// ResumeAfterMs: stop → the next response.created of a response that
	// spoke (the model resumed; a "listen" decision does not count).
	ResumeAfterMs *float64 `json:"resume_after_ms,omitempty"`
	// NextResponseMs: onset → the first response.created after onset of a
	// response that spoke (a takeover when the model was silent).
	NextResponseMs *float64 `json:"next_response_ms,omitempty"`
	Clock          string   `json:"clock"`
}

// response is what Analyze follows of one response.
type response struct {
	created    *float64
	start, end *float64
	played     int
	cleared    *float64
	ackMs      *int
	bytes      int
}

// spoke reports whether the response sent or played audio: a model
// "listen" decision is a response.created with none, and is not the model
// resuming or taking the turn.
func (r *response) spoke() bool { return r.bytes > 0 || r.start != nil }

// timeline is what Analyze follows of a wire log's responses:
// each by identity, and the ones with a response.created in receive order.
type timeline struct {
	resp    map[string]*response
	created []string
}

// followResponses reads the responses' lifecycle, audio, acks and
// playback notes from a wire log's events.
func followResponses(events []trace.Event) timeline {
	tl := timeline{resp: map[string]*response{}}
	get := func(id string) *response {
		r := tl.resp[id]
		if r == nil {
			r = &response{}
			tl.resp[id] = r
		}
		return r
	}
	for _, e := range events {
		var ev struct {
			Type       string          `json:"type"`
			ResponseID json.RawMessage `json:"response_id"`
			Response   json.RawMessage `json:"response"`
			PlayedMs   float64         `json:"played_ms"`
			Delta      string          `json:"delta"`
		}
		if json.Unmarshal(e.Event, &ev) != nil {
			continue
		}
		id, ok := protocol.IdentityOfFields(ev.ResponseID, ev.Response) // the metrics' rule
		if !ok {
			continue
		}
		tm := e.TMs
		r := get(id)
		switch {
		case e.Dir == trace.DirRecv && ev.Type == "response.created":
			if r.created == nil {
				r.created = &tm
				tl.created = append(tl.created, id)
			}
		case e.Dir == trace.DirRecv && ev.Type == "response.output_audio.delta":
			if n := len(ev.Delta); n >= 4 {
				r.bytes += n/4*3 - strings.Count(ev.Delta[n-2:], "=")
			}
		case e.Dir == trace.DirRecv && ev.Type == "output_audio_buffer.cleared":
			if r.cleared == nil {
				r.cleared = &tm
			}
		case e.Dir == trace.DirSend && ev.Type == "playback.ack":
			v := int(ev.PlayedMs)
			r.ackMs = &v
		case e.Dir == trace.DirLocal && ev.Type == "duplexscope.playback_start":
			r.start = &tm
		case e.Dir == trace.DirLocal && ev.Type == "duplexscope.playback_end":
			r.end = &tm
			r.played = int(ev.PlayedMs)
		}
	}
	sort.SliceStable(tl.created, func(i, j int) bool { return *tl.resp[tl.created[i]].created < *tl.resp[tl.created[j]].created })
	return tl
}

// playing is the response whose audio plays at ms ("" when none).
func (tl timeline) playing(ms float64) string {
	for _, id := range tl.created {
		if r := tl.resp[id]; r.start != nil && *r.start <= ms && (r.end == nil || *r.end > ms) {
			return id
		}
	}
	return ""
}

// spokeAfter is the first response.created after ms of a response that
// spoke (a "listen" decision is not the model taking the turn).
func (tl timeline) spokeAfter(ms float64) (float64, bool) {
	for _, id := range tl.created {
		if c := *tl.resp[id].created; c > ms && tl.resp[id].spoke() {
			return c, true
		}
	}
	return 0, false
}

// Analyze measures each probe on a headless wire log (which carries
// the simulated playback notes); in the browser the page's own playback
// notes (same types) serve.
func Analyze(t *trace.Session, probes []Probe) []Result {
	tl := followResponses(t.Events)
	ss := 0.0
	if t.Session.StreamStartMs != nil {
		ss = *t.Session.StreamStartMs
	}
	out := make([]Result, 0, len(probes))
	for _, p := range probes {
		pr := Result{Kind: p.Kind, Clip: p.Clip, OffsetS: p.OffsetS, OnsetMs: ss + p.OffsetS*1000, Clock: "client monotonic (receive stamps, simulated playback)"}
		if t.Session.SampleID != nil {
			pr.SampleID = *t.Session.SampleID
		}
		if t.Session.Split != nil {
			pr.Split = *t.Session.Split
		}
		if t.Session.SessionID != nil {
			pr.SessionID = *t.Session.SessionID
		}
		pr.ActiveResponseID = tl.playing(pr.OnsetMs)
		out = append(out, pr)
	}
	for i := range out {
		pr := &out[i]
		if r := tl.resp[pr.ActiveResponseID]; r != nil {
			stop, by := r.end, StopEnded
			if r.cleared != nil && *r.cleared >= pr.OnsetMs && (stop == nil || *r.cleared <= *stop) {
				stop, by = r.cleared, StopCleared
			}
			if by == StopCleared && laterProbeBefore(out, i, *stop) {
				by = StopLaterProbe
			}
			if stop != nil {
				pr.StoppedBy = by
			}
			if stop != nil && by != StopLaterProbe {
				pr.StopLatencyMs = ptr(*stop - pr.OnsetMs)
				pr.PlayedMs = ptr(r.played)
				if c, ok := tl.spokeAfter(*stop); ok {
					pr.ResumeAfterMs = ptr(c - *stop)
				}
			}
			pr.CommittedMs = r.ackMs
			pr.ReceivedMs = ptr(audio.BytesToMs(r.bytes, audio.OutputRate))
		}
		if c, ok := tl.spokeAfter(pr.OnsetMs); ok {
			pr.NextResponseMs = ptr(c - pr.OnsetMs)
		}
	}
	return out
}

// laterProbeBefore reports whether another probe on the same playing
// response has its onset after probe i's and before cutMs: the cut is that
// later probe's doing, not probe i's.
func laterProbeBefore(ps []Result, i int, cutMs float64) bool {
	for j, q := range ps {
		if j != i && q.ActiveResponseID == ps[i].ActiveResponseID && q.OnsetMs > ps[i].OnsetMs && q.OnsetMs <= cutMs {
			return true
		}
	}
	return false
}

// Validate checks a probe's kind and offset.
func Validate(p Probe) error {
	ok := false
	for _, k := range Kinds {
		ok = ok || p.Kind == k
	}
	switch {
	case !ok:
		return fmt.Errorf("probe kind %q, want one of %v", p.Kind, Kinds)
	case p.OffsetS < 0 || math.IsNaN(p.OffsetS) || math.IsInf(p.OffsetS, 0):
		return fmt.Errorf("probe offset_s %v, want ≥ 0", p.OffsetS)
	}
	return nil
}

func ptr[T any](v T) *T { return &v }
