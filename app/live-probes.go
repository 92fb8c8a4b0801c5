package app

import (
	"fmt"

	"github.com/duplexscope/duplexscope/session/probe"
)

// liveProbes is a live run's barge-in probes: those sent (button or
// probe_s), the standard clips fetched for them, and the probe_s schedule.
// It keeps the bookkeeping only; the run adds the chart marks and wire-log
// notes. The run's lock (liveRun.mu) guards it.
type liveProbes struct {
	sent     []*sentProbe
	clips    map[string]probeClipData // standard clips by kind, fetched once per run
	schedule []probe.At               // probe_s probes not yet injected, in time order
}

func newLiveProbes(schedule []probe.At) liveProbes {
	return liveProbes{clips: map[string]probeClipData{}, schedule: append([]probe.At(nil), schedule...)}
}

// add starts a probe of kind; its frame and clip are filled in later.
func (p *liveProbes) add(kind string) *sentProbe {
	s := &sentProbe{ID: fmt.Sprintf("probe_%d", len(p.sent)+1), Kind: kind, Seq: -1}
	p.sent = append(p.sent, s)
	return s
}

// due takes the next scheduled probe once sentMs of input went out ("" if none).
func (p *liveProbes) due(sentMs float64) string {
	if len(p.schedule) == 0 || sentMs < p.schedule[0].OffsetS*1000 {
		return ""
	}
	kind := p.schedule[0].Kind
	p.schedule = p.schedule[1:]
	return kind
}

// onset records the worklet frame carrying probe id's first sample.
func (p *liveProbes) onset(id string, seq int) {
	for _, s := range p.sent {
		if s.ID == id && s.Seq < 0 {
			s.Seq = seq
		}
	}
}

// frameSent stamps the probes whose onset frame seq went out at sentAt
// (client send clock) with the response playing then, and returns them.
func (p *liveProbes) frameSent(seq int, sentAt float64, playing func() string) []*sentProbe {
	var out []*sentProbe
	for _, s := range p.sent {
		if s.Seq == seq && s.OnsetMs == 0 {
			s.OnsetMs, s.ResponseID = sentAt, playing()
			out = append(out, s)
		}
	}
	return out
}

// stopped attributes the cut of response id's playback at perfMs to the
// latest probe sent on it before the cut, and returns it (nil: none);
// earlier ones were talked through (probe.StopLaterProbe).
func (p *liveProbes) stopped(id string, perfMs float64, playedMs int) *sentProbe {
	var last *sentProbe
	for _, s := range p.sent {
		if s.ResponseID == id && s.OnsetMs > 0 && s.OnsetMs <= perfMs && s.StoppedBy == "" {
			if last != nil {
				last.StoppedBy = probe.StopLaterProbe
			}
			last = s
		}
	}
	if last != nil {
		last.StoppedBy, last.StopMs, last.PlayedMs = probe.StopCleared, perfMs, playedMs
	}
	return last
}

// drained: response id played to its end despite the probes sent on it.
func (p *liveProbes) drained(id string) {
	for _, s := range p.sent {
		if s.ResponseID == id && s.OnsetMs > 0 && s.StoppedBy == "" {
			s.StoppedBy = probe.StopEnded
		}
	}
}

// created records the model's next turn after each probe: tMs is the
// response.created receive time of a response that spoke.
func (p *liveProbes) created(tMs float64) {
	for _, s := range p.sent {
		if s.OnsetMs > 0 && s.ResumeMs == 0 && tMs > s.OnsetMs {
			s.ResumeMs = tMs
		}
	}
}

// interruptionOnsets are the send instants of the interruption probes sent so far.
func (p *liveProbes) interruptionOnsets() []float64 {
	var out []float64
	for _, s := range p.sent {
		if on, ok := s.interruptionOnset(); ok {
			out = append(out, on)
		}
	}
	return out
}

// copies are the probes as they stand (the report's).
func (p *liveProbes) copies() []sentProbe {
	out := make([]sentProbe, len(p.sent))
	for i, s := range p.sent {
		out[i] = *s
	}
	return out
}
