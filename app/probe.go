package app

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/duplexscope/duplexscope/chart"
	"github.com/duplexscope/duplexscope/metrics"
	"github.com/duplexscope/duplexscope/report"
	"github.com/duplexscope/duplexscope/session/probe"
)

// probe is one injected barge-in or overlap probe (issue 11): a standard
// clip mixed into the outgoing input while the model may be talking.
//
// Onset is the send instant of the frame carrying the probe's first sample
// (client send clock): that is when the server can first hear it. Stop is
// when the playback of the response playing at onset was cut (cleared by
// the server, playback clock) — or never, when the model kept talking (a
// MiniCPM-o-like listen_only policy).
type sentProbe struct {
	ID         string
	Kind       string
	Clip       string  // the clip's name from GET /api/probes ("standard:KIND")
	Seq        int     // worklet frame carrying the first sample (-1 until known)
	OnsetMs    float64 // client send clock, 0 until sent
	ResponseID string  // response playing at onset ("" = model silent)
	// StoppedBy is how that response stopped, with probe.Result's
	// meanings (probe.StopCleared, ProbeEnded, ProbeLaterProbe); "" while
	// it plays.
	StoppedBy string
	StopMs    float64 // playback clock (mapped) of the cut, 0 = not cut by this probe
	PlayedMs  int     // of ResponseID when it was cut (truncation point)
	ResumeMs  float64 // next response.created after onset, client receive clock
	Err       string  // the clip could not be loaded (the probe was not sent)
}

// probeKind is what the page says about a probe kind.
type probeKind struct {
	Label, Button, Hint string
	WantStop            bool // a good duplex model stops talking
}

// probeKinds describes probe.Kinds for the probe panel.
var probeKinds = map[string]probeKind{
	probe.KindInterruption: {"Interruption", "Interrupt now",
		"“Wait, what about Mars?” said over the model: a good duplex model stops talking quickly (and answers).", true},
	probe.KindBackchannel: {"Backchannel", "Say “mm hmm” now",
		"“mm hmm”: the listener only agrees, so a good duplex model keeps talking.", false},
	probe.KindSideTalk: {"Side talk", "Side talk now",
		"A quiet sentence said to someone else: not for the model, so a good duplex model keeps talking.", false},
	probe.KindNoise: {"Noise", "Noise now",
		"One second of white noise: not speech, so a good duplex model keeps talking.", false},
}

// probeView is a row of the probe table.
type probeView struct {
	ID, Kind, Response, StopLatency, Played, Received, Resume, Verdict string
	Outcome                                                            string // data-outcome: cleared|ended|later_probe|pending|silent|waiting|error
	Pass                                                               string // data-pass: "yes", "no", or "" (no verdict)
}

// probeClipData is a loaded standard clip.
type probeClipData struct {
	PCM  []byte // 16 kHz mono PCM16
	Name string // "standard:KIND"
}

// loadProbeClip fetches the standard clip of kind from the page's server:
// GET /api/probes names it and gives its URL (/api/probes/{kind}.wav).
func loadProbeClip(ctx context.Context, kind string) (probeClipData, error) {
	var list struct {
		Probes []struct {
			Kind string `json:"kind"`
			Clip string `json:"clip"`
			URL  string `json:"url"`
		} `json:"probes"`
	}
	b, err := fetch(ctx, "/api/probes")
	if err != nil {
		return probeClipData{}, err
	}
	if err := json.Unmarshal(b, &list); err != nil {
		return probeClipData{}, fmt.Errorf("reading the probe clip list: %w", err)
	}
	for _, p := range list.Probes {
		if p.Kind != kind {
			continue
		}
		w, err := fetch(ctx, p.URL)
		if err != nil {
			return probeClipData{}, err
		}
		pcm, err := wavToInput(w)
		if err != nil {
			return probeClipData{}, fmt.Errorf("clip %s: %w", p.Clip, err)
		}
		return probeClipData{PCM: pcm, Name: p.Clip}, nil
	}
	return probeClipData{}, fmt.Errorf("the server offers no standard %s clip", kind)
}

// probeClip returns kind's clip, fetched once per run.
func (r *liveRun) probeClip(kind string) (probeClipData, error) {
	r.mu.Lock()
	c, ok := r.probes.clips[kind]
	r.mu.Unlock()
	if ok {
		return c, nil
	}
	c, err := loadProbeClip(r.ctx, kind)
	if err != nil {
		return c, err
	}
	r.mu.Lock()
	r.probes.clips[kind] = c
	r.mu.Unlock()
	return c, nil
}

// injectProbe mixes kind's standard clip into the input now (button or a
// probe_s offset). Called from controller goroutines.
func (r *liveRun) injectProbe(kind string) {
	r.mu.Lock()
	g, ws, ready := r.graph, r.worker, r.input.ready
	if !r.input.clipMode {
		ws = nil // mic input is mixed in the input worklet
	}
	var p *sentProbe
	if ready && g != nil {
		p = r.probes.add(kind)
	}
	r.mu.Unlock()
	if p == nil {
		return
	}
	c, err := r.probeClip(kind)
	r.mu.Lock()
	if err != nil {
		p.Err = "no " + kind + " clip: " + err.Error()
	} else {
		p.Clip = c.Name
	}
	r.mu.Unlock()
	switch {
	case err != nil:
	case ws != nil:
		ws.Inject(p.ID, c.PCM)
	default:
		g.inject(p.ID, c.PCM)
	}
}

// onProbeOnset runs in the worklet callback: remember the frame.
func (r *liveRun) onProbeOnset(id string, seq, sample int) {
	r.mu.Lock()
	r.probes.onset(id, seq)
	r.mu.Unlock()
}

// probeSentLocked stamps probes whose onset frame was just sent.
func (r *liveRun) probeSentLocked(seq int, sentAt float64) {
	for _, p := range r.probes.frameSent(seq, sentAt, r.playingLocked) {
		r.markers = append(r.markers, chart.Marker{TS: (sentAt - r.wire.StreamStartMs()) / 1000, Kind: chart.MarkProbe, ResponseID: p.ID,
			Label: fmt.Sprintf("%s (%s) sent, talking: %s", p.ID, p.Kind, orDash(p.ResponseID))})
		r.notes = append(r.notes, map[string]any{"type": "duplexscope.probe", "event": "onset", "probe_id": p.ID, "kind": p.Kind,
			"clip": p.Clip, "onset_ms": sentAt, "clock": "client send", "response_id": p.ResponseID})
	}
}

// playingLocked is the response whose audio is being played now.
func (r *liveRun) playingLocked() string {
	order := r.wire.Order()
	for i := len(order) - 1; i >= 0; i-- {
		id := order[i]
		if start, _, drained := r.playback.heard(id); start > 0 && !drained && !r.wire.Response(id).Truncated {
			return id
		}
	}
	return ""
}

// probeStoppedLocked records that response id's playback was cut at perfMs:
// the cut belongs to the latest probe sent on it before the cut; earlier
// ones were talked through (probe.StopLaterProbe).
func (r *liveRun) probeStoppedLocked(id string, perfMs float64, playedMs int) {
	last := r.probes.stopped(id, perfMs, playedMs)
	if last == nil {
		return
	}
	lat := perfMs - last.OnsetMs
	r.markers = append(r.markers, chart.Marker{TS: (perfMs - r.wire.StreamStartMs()) / 1000, Kind: chart.MarkProbeStop, ResponseID: last.ID,
		Label: fmt.Sprintf("%s (%s) stopped %s after %.0f ms", last.ID, last.Kind, id, lat)})
	r.notes = append(r.notes, map[string]any{"type": "duplexscope.probe", "event": "stopped", "probe_id": last.ID,
		"response_id": id, "stop_latency_ms": lat, "played_ms": playedMs, "clock": "playback"})
}

// probeViewsLocked renders the probe table.
func (r *liveRun) probeViewsLocked() []probeView {
	out := make([]probeView, 0, len(r.probes.sent))
	for _, p := range r.probes.sent {
		recv := -1.0
		if rs := r.wire.Response(p.ResponseID); rs != nil {
			recv = rs.ReceivedMs()
		}
		out = append(out, probeRow(*p, recv))
	}
	return out
}

// probeRow is the table row of p; receivedMs is the audio received of its
// response so far (< 0: none).
func probeRow(p sentProbe, receivedMs float64) probeView {
	v := probeView{ID: p.ID, Kind: p.Kind, Response: orDash(p.ResponseID), StopLatency: "—", Played: "—", Received: "—", Resume: "—"}
	if receivedMs >= 0 {
		v.Received = fmt.Sprintf("%.0f ms", receivedMs)
	}
	if p.StoppedBy == probe.StopCleared {
		v.StopLatency = fmt.Sprintf("%.0f ms", p.StopMs-p.OnsetMs)
		v.Played = fmt.Sprintf("%d ms", p.PlayedMs)
	}
	if p.ResumeMs > 0 {
		v.Resume = fmt.Sprintf("+%.0f ms", p.ResumeMs-p.OnsetMs)
	}
	v.Verdict, v.Outcome, v.Pass = probeVerdict(p)
	return v
}

// probeVerdict says what the model did against what a good duplex model
// does for the kind (interruption: stop; the others: keep talking).
func probeVerdict(p sentProbe) (text, outcome, pass string) {
	switch {
	case p.Err != "":
		return p.Err, "error", ""
	case p.OnsetMs == 0:
		return "waiting to be sent", "waiting", ""
	case p.ResponseID == "":
		return "model was silent at onset: nothing to stop", "silent", ""
	}
	switch p.StoppedBy {
	case probe.StopCleared:
		text = fmt.Sprintf("stopped in %.0f ms", p.StopMs-p.OnsetMs)
	case probe.StopEnded:
		text = "kept talking"
	case probe.StopLaterProbe:
		text = "kept talking (until a later probe)"
	default:
		return "model still talking…", "pending", ""
	}
	if (p.StoppedBy == probe.StopCleared) == probeKinds[p.Kind].WantStop {
		return text + " ✓", p.StoppedBy, "yes"
	}
	return text + " ✗", p.StoppedBy, "no"
}

// interruptionOnset is p's onset when it is a sent interruption: the page's
// derived turn-taking cases are interruptions (other kinds are not).
func (p *sentProbe) interruptionOnset() (float64, bool) {
	return p.OnsetMs, p.OnsetMs > 0 && p.Kind == probe.KindInterruption
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

// probeClock labels the page's probe numbers: onset on the client send
// clock, stop on the playback clock, next response on the receive clock
// (all performance.now ms, so differences are meaningful).
const probeClock = "page: onset = client send clock, stop = playback clock, next response = client receive clock (performance.now ms)"

// probeReports converts the page's probes to report.Probe with the
// meanings of probe.Result. Probes never sent are left out: they
// have no onset. CommittedMs is not known on the page (nil).
func probeReports(ps []sentProbe, streamStartMs float64, receivedMs map[string]float64, sid string) []report.Probe {
	var out []report.Probe
	for _, p := range ps {
		if p.OnsetMs == 0 {
			continue
		}
		rp := report.Probe{SessionID: sid, Kind: p.Kind, Clip: p.Clip, OffsetS: metrics.Round((p.OnsetMs-streamStartMs)/1000, 3),
			OnsetMs: metrics.Round(p.OnsetMs, 3), ActiveResponseID: p.ResponseID, Clock: probeClock}
		if p.ResponseID != "" {
			if ms, ok := receivedMs[p.ResponseID]; ok {
				ms = metrics.Round(ms, 3)
				rp.ReceivedMs = &ms
			}
			rp.StoppedBy = p.StoppedBy
			if p.StoppedBy == probe.StopCleared {
				lat, played := metrics.Round(p.StopMs-p.OnsetMs, 3), p.PlayedMs
				rp.StopLatencyMs, rp.PlayedMs = &lat, &played
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
