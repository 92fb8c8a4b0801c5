package app

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/duplexscope/duplexscope/chart"
	"github.com/duplexscope/duplexscope/metrics"
	"github.com/duplexscope/duplexscope/report"
)

// probe is one injected barge-in probe (issue 11): a clip mixed into the
// outgoing input while the model may be talking.
//
// Onset is the send instant of the frame carrying the probe's first sample
// (client send clock): that is when the server can first hear it. Stop is
// when the playback of the response playing at onset was cut (cleared by
// the server, playback clock) — or never, when the model kept talking (a
// MiniCPM-o-like listen_only policy).
type probe struct {
	ID         string
	Kind       string
	Seq        int     // worklet frame carrying the first sample (-1 until known)
	OnsetMs    float64 // client send clock, 0 until sent
	ResponseID string  // response playing at onset ("" = model silent)
	StopMs     float64 // playback clock (mapped), 0 = not stopped
	PlayedMs   int     // of ResponseID when it stopped (truncation point)
	ResumeMs   float64 // next response.created after onset, client receive clock
	Outcome    string
}

// probeView is a row of the probe table.
type probeView struct {
	ID, Kind, Response, StopLatency, Resume, Outcome string
}

// parseProbeOffsets reads probe_s=1.5,8 (seconds of input after stream start).
func parseProbeOffsets(v string) ([]float64, error) {
	var out []float64
	for _, f := range strings.Split(v, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		x, err := strconv.ParseFloat(f, 64)
		if err != nil || x < 0 {
			return nil, fmt.Errorf("probe_s=%q: want seconds, comma-separated", v)
		}
		out = append(out, x)
	}
	return out, nil
}

// probeClip loads the interruption clip (the first bundled clip).
func probeClip(ctx context.Context) ([]byte, error) {
	return loadDatasetFirstClip(ctx, "builtin")
}

// injectProbe mixes the interruption clip into the input now (button or a
// probe_s offset). Called from controller goroutines.
func (r *liveRun) injectProbe(kind string) {
	r.mu.Lock()
	g, ready := r.graph, r.ready
	id := fmt.Sprintf("probe_%d", len(r.probes)+1)
	if ready {
		r.probes = append(r.probes, &probe{ID: id, Kind: kind, Seq: -1})
	}
	clip := r.probePCM
	r.mu.Unlock()
	if !ready || g == nil {
		return
	}
	if clip == nil {
		c, err := probeClip(r.ctx)
		if err != nil {
			r.mu.Lock()
			r.probes[len(r.probes)-1].Outcome = "no probe clip: " + err.Error()
			r.mu.Unlock()
			return
		}
		r.mu.Lock()
		r.probePCM, clip = c, c
		r.mu.Unlock()
	}
	g.inject(id, clip)
}

// onProbeOnset runs in the worklet callback: remember the frame.
func (r *liveRun) onProbeOnset(id string, seq, sample int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, p := range r.probes {
		if p.ID == id && p.Seq < 0 {
			p.Seq = seq
		}
	}
}

// probeSentLocked stamps probes whose onset frame was just sent.
func (r *liveRun) probeSentLocked(seq int, sentAt float64) {
	for _, p := range r.probes {
		if p.Seq == seq && p.OnsetMs == 0 {
			p.OnsetMs = sentAt
			p.ResponseID = r.playingLocked()
			if p.ResponseID == "" {
				p.Outcome = "model was silent at onset"
			}
			r.markers = append(r.markers, chart.Marker{TS: (sentAt - r.streamStartMs) / 1000, Kind: chart.MarkProbe, ResponseID: p.ID})
			r.notes = append(r.notes, map[string]any{"type": "duplexscope.probe", "event": "onset", "probe_id": p.ID, "kind": p.Kind,
				"onset_ms": sentAt, "clock": "client send", "response_id": p.ResponseID})
		}
	}
}

// playingLocked is the response whose audio is being played now.
func (r *liveRun) playingLocked() string {
	for i := len(r.order) - 1; i >= 0; i-- {
		rs := r.resp[r.order[i]]
		if rs.PlayStartMs > 0 && !rs.Drained && !rs.Truncated {
			return rs.ID
		}
	}
	return ""
}

// probeStoppedLocked records that response id's playback was cut at perfMs.
func (r *liveRun) probeStoppedLocked(id string, perfMs float64, playedMs int) {
	for _, p := range r.probes {
		if p.ResponseID == id && p.OnsetMs > 0 && p.StopMs == 0 {
			p.StopMs, p.PlayedMs = perfMs, playedMs
			p.Outcome = "stopped"
			r.notes = append(r.notes, map[string]any{"type": "duplexscope.probe", "event": "stopped", "probe_id": p.ID,
				"response_id": id, "stop_latency_ms": perfMs - p.OnsetMs, "played_ms": playedMs, "clock": "playback"})
		}
	}
}

// probeDrainedLocked: the response played to its end despite the probe.
func (r *liveRun) probeDrainedLocked(id string) {
	for _, p := range r.probes {
		if p.ResponseID == id && p.OnsetMs > 0 && p.StopMs == 0 && p.Outcome == "" {
			p.Outcome = probeKeptTalking
		}
	}
}

// probeKeptTalking is the outcome of a probe the model talked through.
const probeKeptTalking = "kept talking (played to the end)"

// probeCreatedLocked records the model's next turn after a probe.
func (r *liveRun) probeCreatedLocked(tMs float64) {
	for _, p := range r.probes {
		if p.OnsetMs > 0 && p.ResumeMs == 0 && tMs > p.OnsetMs {
			p.ResumeMs = tMs
		}
	}
}

// probeViewsLocked renders the probe table.
func (r *liveRun) probeViewsLocked() []probeView {
	var out []probeView
	for _, p := range r.probes {
		v := probeView{ID: p.ID, Kind: p.Kind, Response: p.ResponseID, StopLatency: "—", Resume: "—", Outcome: p.Outcome}
		if p.OnsetMs == 0 {
			v.Outcome = "waiting to be sent"
		}
		if p.StopMs > 0 {
			v.StopLatency = fmt.Sprintf("%.0f ms (truncated at %d ms played)", p.StopMs-p.OnsetMs, p.PlayedMs)
		}
		if p.ResumeMs > 0 {
			v.Resume = fmt.Sprintf("+%.0f ms", p.ResumeMs-p.OnsetMs)
		}
		out = append(out, v)
	}
	return out
}

// probeClock labels the page's probe numbers: onset on the client send
// clock, stop on the playback clock, next response on the receive clock
// (all performance.now ms, so differences are meaningful).
const probeClock = "page: onset = client send clock, stop = playback clock, next response = client receive clock (performance.now ms)"

// probeReports converts the page's probes to report.Probe with the
// meanings of session.ProbeResult. Probes never sent are left out: they
// have no onset. CommittedMs is not known on the page (nil).
func probeReports(ps []probe, streamStartMs float64, receivedMs map[string]float64, sid string) []report.Probe {
	var out []report.Probe
	for _, p := range ps {
		if p.OnsetMs == 0 {
			continue
		}
		rp := report.Probe{SessionID: sid, Kind: p.Kind, Clip: "builtin:first", OffsetS: metrics.Round((p.OnsetMs-streamStartMs)/1000, 3),
			OnsetMs: metrics.Round(p.OnsetMs, 3), ActiveResponseID: p.ResponseID, Clock: probeClock}
		if p.ResponseID != "" {
			if ms, ok := receivedMs[p.ResponseID]; ok {
				ms = metrics.Round(ms, 3)
				rp.ReceivedMs = &ms
			}
			switch {
			case p.StopMs > 0:
				rp.StoppedBy = "cleared"
				lat, played := metrics.Round(p.StopMs-p.OnsetMs, 3), p.PlayedMs
				rp.StopLatencyMs, rp.PlayedMs = &lat, &played
			case p.Outcome == probeKeptTalking:
				rp.StoppedBy = "ended"
			}
		}
		if p.ResumeMs > 0 {
			next := metrics.Round(p.ResumeMs-p.OnsetMs, 3)
			rp.NextResponseMs = &next
			if p.StopMs > 0 && p.ResumeMs >= p.StopMs {
				res := metrics.Round(p.ResumeMs-p.StopMs, 3)
				rp.ResumeAfterMs = &res
			}
		}
		out = append(out, rp)
	}
	return out
}
