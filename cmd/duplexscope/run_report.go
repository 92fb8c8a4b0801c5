//go:build !js

package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/duplexscope/duplexscope/dataset"
	"github.com/duplexscope/duplexscope/metrics"
	"github.com/duplexscope/duplexscope/metrics/turntaking"
	"github.com/duplexscope/duplexscope/protocol"
	"github.com/duplexscope/duplexscope/report"
	"github.com/duplexscope/duplexscope/session"
	"github.com/duplexscope/duplexscope/trace"
)

// The run's report.json and result.json, built from the merged metrics
// and the wire logs.

// sameReport reports whether two report.json files are equal but for the
// run's wall-clock start and end times.
func sameReport(a, b []byte) bool {
	norm := func(x []byte) []byte {
		r, err := report.Decode(x, report.DefaultLimits)
		if err != nil {
			return nil
		}
		r.Run.StartedAt, r.Run.EndedAt = "", ""
		out, err := report.MarshalIndent(r)
		if err != nil {
			return nil
		}
		return out
	}
	na, nb := norm(a), norm(b)
	return na != nil && bytes.Equal(na, nb)
}

// runInfo is report.json's run section as dataset and load-curve runs
// share it.
func runInfo(o *runOptions, started, ended time.Time) report.Run {
	host, _ := os.Hostname()
	run := report.Run{
		TargetURL: o.URL, Model: o.Model, FrameMs: o.FrameMs, Version: version, Client: report.ClientCLI,
		Machine:   report.Machine{OS: runtime.GOOS, Arch: runtime.GOARCH, CPUs: runtime.NumCPU(), Hostname: host, GoVersion: runtime.Version()},
		Source:    report.Source{Kind: report.SourceDataset, Dataset: o.Dataset, Split: o.Split},
		RunID:     o.RunID,
		StartedAt: started.UTC().Format(time.RFC3339), EndedAt: ended.UTC().Format(time.RFC3339),
		Name: o.Name, Notes: o.Notes, Tags: o.Tags,
	}
	if u, err := url.Parse(o.URL); err == nil {
		run.Profile = u.Query().Get("sim_profile")
	}
	if o.ShardCount > 0 {
		run.Shard = &report.Shard{Index: o.ShardIndex, Count: o.ShardCount}
	}
	return run
}

// buildRunReport assembles report.json from the merged metrics and every
// wire log in OUT/traces that belongs to this run's samples.
func buildRunReport(o *runOptions, dm metrics.Report, samples []dataset.Sample, failed []runFailure, started, ended time.Time) (*report.Report, error) {
	run := runInfo(o, started, ended)
	run.Concurrency = o.Concurrency
	rep, err := report.FromMetrics(run, dm)
	if err != nil {
		return nil, fmt.Errorf("run: report: %w", err)
	}
	rep.Warnings = append(rep.Warnings, report.ValueWarnings(dm)...) // values written as null
	sessions := &sessionReport{rep: rep, out: o.Out, failedBy: map[string]string{}, turnTaking: &ttCollector{}}
	for _, f := range failed {
		sessions.failedBy[f.Split+"\x00"+f.SampleID] = f.Error
	}
	for _, s := range samples {
		sessions.add(s, float64(o.FrameMs))
	}
	rep.TurnTaking = sessions.turnTaking.report()
	rep.Warnings = append(rep.Warnings, sessions.warnings(o.FrameMs)...)
	report.Finish(rep)
	return rep, nil
}

// sessionReport fills report.json's sessions, responses and wire-log
// attachments from OUT/traces and counts what the run's warnings say.
type sessionReport struct {
	rep        *report.Report
	out        string            // --out
	failedBy   map[string]string // this run's failures by split + "\x00" + sample_id
	turnTaking *ttCollector
	// lagging counts sessions that sent a frame more than a frame late,
	// legacy those that saw legacy event names; underruns counts playback
	// underruns; tickWarning is the first frame-tick warning.
	lagging, legacy, underruns int
	tickWarning                string
}

// add reports sample s from its wire log; frame is the default append size
// in ms.
func (r *sessionReport) add(s dataset.Sample, frame float64) {
	name := traceName(s.Split, s.SampleID)
	t, err := readTrace(filepath.Join(r.out, dirTraces, name))
	if err != nil {
		// No wire log: the session never opened (handshake failure,
		// unreadable media). A failure of this run stays in the report.
		if msg, ok := r.failedBy[s.Split+"\x00"+s.SampleID]; ok {
			r.rep.Sessions = append(r.rep.Sessions, report.SessionExtra{SampleID: s.SampleID, Split: s.Split, Complete: false, Error: msg})
		}
		return
	}
	var ex session.Extra
	_ = json.Unmarshal(t.Session.Extra, &ex)
	extras := responseExtras(t)
	for _, x := range extras {
		r.underruns += x.Underruns
	}
	r.rep.Responses = append(r.rep.Responses, extras...)
	se := report.SessionExtra{
		SampleID: s.SampleID, Split: s.Split, Complete: !ex.Incomplete, Error: ex.Error,
		WireLog: name, StreamStartMs: t.Session.StreamStartMs,
	}
	if t.Session.SessionID != nil {
		se.SessionID = *t.Session.SessionID
	}
	se.ServerSessionID, se.VideoFramesSent = ex.ServerSessionID, session.VideoFramesSent(t)
	if b, err := os.ReadFile(filepath.Join(r.out, dirTraces, name)); err == nil {
		h := sha256.Sum256(b)
		r.rep.Attachments = append(r.rep.Attachments, report.Attachment{Name: name, Kind: report.AttachWireLog, ContentType: "application/json",
			SizeBytes: int64(len(b)), SHA256: hex.EncodeToString(h[:]), SessionID: se.SessionID})
	}
	if ex.Pacing.Frames > 0 {
		se.PacingLagP99, se.PacingLagMax = ptrTo(ex.Pacing.P99Ms), ptrTo(ex.Pacing.MaxMs)
		f := frame // the append size the session used (the server's tick may have replaced the default)
		if ex.FrameMs > 0 {
			f = float64(ex.FrameMs)
		}
		if ex.Pacing.MaxMs > f {
			r.lagging++
		}
	}
	for _, w := range ex.Warnings {
		if strings.HasPrefix(w, "legacy") {
			r.legacy++
		}
		if strings.HasPrefix(w, session.WarnFrameTickPrefix) && r.tickWarning == "" {
			r.tickWarning = w
		}
	}
	r.rep.Sessions = append(r.rep.Sessions, se)
	r.turnTaking.add(s, se.SessionID, t)
}

// warnings are the run's warnings from what add counted.
func (r *sessionReport) warnings(frameMs int) []report.Warning {
	var ws []report.Warning
	if r.lagging > 0 {
		ws = append(ws, report.Warning{Code: report.WarnPacingLag,
			Message: fmt.Sprintf("%d sessions sent an input frame more than one frame (%d ms) late (client send clock).", r.lagging, frameMs)})
	}
	if r.underruns > 0 {
		ws = append(ws, report.Warning{Code: report.WarnPlaybackUnderrun,
			Message: fmt.Sprintf("The simulated playback ran out of audio %d times (audio arrived slower than real time; client receive clock).", r.underruns)})
	}
	if r.legacy > 0 {
		ws = append(ws, report.Warning{Code: report.WarnLegacyEventNames, Message: report.WarningCodes[report.WarnLegacyEventNames]})
	}
	if r.tickWarning != "" {
		ws = append(ws, report.Warning{Code: report.WarnFrameTick, Message: "The " + r.tickWarning + "."})
	}
	return ws
}

func ptrTo[T any](v T) *T { return &v }

// heardOrigin labels heard latencies of headless runs.
const heardOrigin = "simulated serial playback clock (headless: playback starts when audio is received and the player is free)"

// responseExtras derives per-response extras from a wire log: heard TTFP
// (response.created receive → first sample played on the simulated playback
// clock, both client monotonic), underruns, truncation, transcript.
func responseExtras(t *trace.Session) []report.ResponseExtra {
	sid := ""
	if t.Session.SessionID != nil {
		sid = *t.Session.SessionID
	}
	type acc struct {
		created, start *float64
		ex             report.ResponseExtra
	}
	byID := map[string]*acc{}
	var order []string
	get := func(id string) *acc {
		a := byID[id]
		if a == nil {
			a = &acc{ex: report.ResponseExtra{SessionID: sid, ResponseID: id}}
			byID[id] = a
			order = append(order, id)
		}
		return a
	}
	for _, e := range t.Events {
		var ev struct {
			Type       string          `json:"type"`
			ResponseID json.RawMessage `json:"response_id"`
			Transcript string          `json:"transcript"`
			Cleared    bool            `json:"cleared"`
			UnderrunMs float64         `json:"underrun_ms"`
			Response   struct {
				ID     json.RawMessage `json:"id"`
				Status string          `json:"status"`
			} `json:"response"`
		}
		if json.Unmarshal(e.Event, &ev) != nil {
			continue
		}
		id, ok := protocol.IdentityOf(ev.ResponseID, ev.Response.ID) // the metrics' rule
		if !ok {
			continue
		}
		switch {
		case e.Dir == trace.DirRecv && ev.Type == "response.created":
			if a := get(id); a.created == nil {
				a.created = ptrTo(e.TMs)
			}
		case e.Dir == trace.DirRecv && ev.Type == "response.output_audio_transcript.done":
			get(id).ex.Transcript = ev.Transcript
		case e.Dir == trace.DirRecv && ev.Type == "output_audio_buffer.cleared",
			e.Dir == trace.DirRecv && ev.Type == "response.done" && ev.Response.Status == "cancelled": // cut off before any audio
			get(id).ex.Truncated = true
		case e.Dir == trace.DirLocal && ev.Type == "duplexscope.playback_start":
			if a := get(id); a.start == nil {
				a.start = ptrTo(e.TMs)
			}
		case e.Dir == trace.DirLocal && ev.Type == "duplexscope.playback_end":
			a := get(id)
			a.ex.Truncated = a.ex.Truncated || ev.Cleared
			if ev.UnderrunMs > 0 {
				a.ex.Underruns++
			}
		}
	}
	// End of the user's speech (VAD of the sent audio, trace clock) → first
	// sample on the simulated player: the same pairing as the page.
	user, _ := turntaking.Channels(*t, nil)
	starts := make([]*float64, len(order))
	for i, id := range order {
		starts[i] = byID[id].start
	}
	ends := turntaking.SpeechEndToFirstSound(user, starts)
	var out []report.ResponseExtra
	for i, id := range order {
		a := byID[id]
		if a.created != nil && a.start != nil {
			a.ex.HeardTTFPMs = ptrTo(metrics.Round(*a.start-*a.created, 3))
			a.ex.HeardOrigin = heardOrigin
			if e := ends[i]; e != nil {
				a.ex.SpeechEndToHeardMs = ptrTo(metrics.Round(*e, 3))
			}
		}
		if a.ex.HeardTTFPMs == nil && a.ex.Transcript == "" && !a.ex.Truncated && a.ex.Underruns == 0 {
			continue
		}
		out = append(out, a.ex)
	}
	return out
}

// buildResult writes result.json: the run-level keys of duplex_metrics.json
// plus run information, OmniInteract-style pacing figures and failures.
func buildResult(o *runOptions, dm metrics.Report, rep *report.Report, sum *runSummary, started, ended time.Time) []byte {
	// Both pacing figures from the same wire logs (the report's
	// pacing_lag_max_ms was read from them too).
	meanLag, maxLag := pacingLag(loadRunSessions(o, rep))
	head := metrics.Object{
		{Key: "date", Value: started.UTC().Format(time.RFC3339)},
		{Key: "backend", Value: "openai-realtime-duplex"},
		{Key: "url", Value: o.URL},
		{Key: "model_id", Value: o.Model},
		{Key: "dataset", Value: o.Dataset},
		{Key: "split", Value: o.Split},
		{Key: "frame_ms", Value: o.FrameMs},
		{Key: "max_concurrency", Value: o.Concurrency},
		{Key: "duration_s", Value: ended.Sub(started).Seconds()},
		{Key: "num_sessions", Value: len(rep.Sessions)},
		{Key: "completed", Value: sum.Ran - len(sum.Failed)},
		{Key: "failed", Value: len(sum.Failed)},
		{Key: "skipped", Value: sum.Skipped},
		{Key: "pacing_mean_lag_s", Value: meanLag},
		{Key: "pacing_max_lag_s", Value: maxLag},
		{Key: "pacing_clock", Value: "client monotonic send clock"},
	}
	if o.RunID != "" {
		head = append(head, metrics.Member{Key: "run_id", Value: o.RunID})
	}
	if o.ShardCount > 0 {
		head = append(head, metrics.Member{Key: "shard", Value: fmt.Sprintf("%d/%d", o.ShardIndex, o.ShardCount)})
	}
	full := dm.Object()
	for _, m := range full {
		if m.Key == "duplex_request_metrics" || m.Key == "duplex_session_metrics" {
			continue
		}
		head = append(head, m)
	}
	clean, _ := metrics.Finite(head) // a non-finite run-level value is null, as in duplex_metrics.json (report.json warns)
	b, err := clean.(metrics.Object).MarshalJSON()
	if err != nil {
		b = []byte("{}")
	}
	var fails []runFailure
	fails = append(fails, sum.Failed...)
	fb, _ := json.Marshal(fails)
	if fails == nil {
		fb = []byte("[]")
	}
	if tb := turnTakingJSON(rep.TurnTaking); tb != nil {
		b = append(b[:len(b)-1], []byte(`,"turn_taking":`)...)
		b = append(b, tb...)
		b = append(b, '}')
	}
	// Append "failures" to the object.
	b = append(b[:len(b)-1], []byte(`,"failures":`)...)
	b = append(b, fb...)
	b = append(b, '}')
	var pretty bytes.Buffer
	if json.Indent(&pretty, b, "", "  ") == nil {
		return append(pretty.Bytes(), '\n')
	}
	return b
}
