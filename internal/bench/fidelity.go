//go:build !js

package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/duplexscope/duplexscope/audio"
	"github.com/duplexscope/duplexscope/dataset"
	"github.com/duplexscope/duplexscope/internal/cputime"
	"github.com/duplexscope/duplexscope/protocol"
	"github.com/duplexscope/duplexscope/session"
	"github.com/duplexscope/duplexscope/sim"
	"github.com/duplexscope/duplexscope/trace"
)

// Stamps are one response's client receive instants (ms, client clock);
// negative = not seen.
type Stamps struct{ Created, FirstText, FirstAudio, LastAudio float64 }

// ReceiveStamps extracts per-response receive instants from a wire log:
// response.created, the first non-empty text delta (transcript or text),
// the first and last non-empty audio delta.
func ReceiveStamps(events []trace.Event) map[string]*Stamps {
	out := map[string]*Stamps{}
	type delta struct {
		Type  string `json:"type"`
		Delta string `json:"delta"`
		Audio string `json:"audio"`
	}
	eachDecoded(events, trace.DirRecv, func(e trace.Event, ev delta) {
		id, _ := protocol.ResponseIdentity(e.Event)
		st := out[id]
		switch {
		case ev.Type == protocol.TypeResponseCreated && st == nil:
			out[id] = &Stamps{Created: e.TMs, FirstText: -1, FirstAudio: -1, LastAudio: -1}
		case st == nil:
		case ev.Type == protocol.TypeResponseOutputAudioDelta && (ev.Delta != "" || ev.Audio != ""):
			if st.FirstAudio < 0 {
				st.FirstAudio = e.TMs
			}
			st.LastAudio = e.TMs
		case protocol.IsTextDelta(ev.Type) && ev.Delta != "" && st.FirstText < 0:
			st.FirstText = e.TMs
		}
	})
	return out
}

// eachDecoded calls f, in order, with every event of direction dir whose
// payload decodes as T; the others are skipped.
func eachDecoded[T any](events []trace.Event, dir string, f func(trace.Event, T)) {
	for _, e := range events {
		var v T
		if e.Dir == dir && json.Unmarshal(e.Event, &v) == nil {
			f(e, v)
		}
	}
}

// Errors are client-minus-true interval errors (ms) per interval kind.
type Errors struct {
	CreatedText, CreatedAudio, AudioSpan []float64
	Responses                            int // responses matched to the truth
	Missing                              int // truth responses with audio the client did not see
}

// Add appends o's errors.
func (e *Errors) Add(o Errors) {
	e.CreatedText = append(e.CreatedText, o.CreatedText...)
	e.CreatedAudio = append(e.CreatedAudio, o.CreatedAudio...)
	e.AudioSpan = append(e.AudioSpan, o.AudioSpan...)
	e.Responses += o.Responses
	e.Missing += o.Missing
}

// All pools the three kinds.
func (e Errors) All() []float64 {
	return append(append(append([]float64(nil), e.CreatedText...), e.CreatedAudio...), e.AudioSpan...)
}

// CompareTruth computes, for every response of truth, the client interval minus
// the true interval for created → first text, created → first audio and
// first → last audio (the last only when the response had ≥ 2 packets).
func CompareTruth(st map[string]*Stamps, truth sim.Truth) Errors {
	var e Errors
	for _, r := range truth.Responses {
		if r.CreatedMs == nil {
			continue
		}
		c := st[r.ResponseID]
		if c == nil {
			if r.FirstAudioMs != nil {
				e.Missing++
			}
			continue
		}
		matched := false
		if r.FirstTextMs != nil && c.FirstText >= 0 {
			e.CreatedText = append(e.CreatedText, (c.FirstText-c.Created)-(*r.FirstTextMs-*r.CreatedMs))
			matched = true
		}
		if r.FirstAudioMs != nil {
			if c.FirstAudio < 0 {
				e.Missing++
				continue
			}
			e.CreatedAudio = append(e.CreatedAudio, (c.FirstAudio-c.Created)-(*r.FirstAudioMs-*r.CreatedMs))
			matched = true
			if r.LastAudioMs != nil && *r.LastAudioMs > *r.FirstAudioMs {
				e.AudioSpan = append(e.AudioSpan, (c.LastAudio-c.FirstAudio)-(*r.LastAudioMs-*r.FirstAudioMs))
			}
		}
		if matched {
			e.Responses++
		}
	}
	return e
}

// FrameErrors pairs the wire log's received frames with the simulator's
// emitted frames (see FrameDelays) and returns, for each consecutive pair,
// the client receive interval minus the true emit interval (ms): the
// receive-stamp error of every server frame, not only of the few
// per-response instants.
func FrameErrors(events []trace.Event, truth []sim.TruthEvent) ([]float64, error) {
	delays, err := FrameDelays(events, truth)
	var out []float64
	for k := 1; k < len(delays); k++ {
		out = append(out, delays[k]-delays[k-1])
	}
	return out, err
}

// FrameDelays pairs the wire log's received frames with the simulator's
// emitted frames (one websocket keeps order, so the k-th received is the
// k-th emitted) and returns, per frame, its client receive stamp minus its
// true emit instant (ms). The two clocks have different origins, so only
// the spread matters: a frame held back (a stalled thread stamping it late)
// reads that much above the others. Pairing stops at the end of either
// list; a frame whose type disagrees is an error (the lists are not the
// same stream), never silently paired.
func FrameDelays(events []trace.Event, truth []sim.TruthEvent) ([]float64, error) {
	var out []float64
	k := 0
	for _, e := range events {
		if e.Dir != trace.DirRecv {
			continue
		}
		if k >= len(truth) {
			break
		}
		var ev struct {
			Type string `json:"type"`
		}
		if err := json.Unmarshal(e.Event, &ev); err != nil {
			return out, fmt.Errorf("bench: received frame %d at %.3f ms: %w", k, e.TMs, err)
		}
		if ev.Type != truth[k].Type {
			return out, fmt.Errorf("bench: received frame %d is %q, the simulator's frame %d is %q: the wire log and the truth are not the same stream", k, ev.Type, k, truth[k].Type)
		}
		out = append(out, e.TMs-truth[k].TMs)
		k++
	}
	return out, nil
}

// PlaybackBuffering returns, per response with both, heard_ttfp_ms −
// client_ttfp_ms of a page report: response.created receive → first
// sample played minus → first audio packet received, i.e. how long the
// first audio waited in the page's playback path (the client receive clock
// and the playback clock mapped onto it). rows are the report's
// metrics.duplex_request_metrics, heard its responses[].
func PlaybackBuffering(rows []json.RawMessage, heard []HeardResponse) []float64 {
	client := map[string]float64{}
	for _, raw := range rows {
		var r struct {
			ResponseID   string   `json:"response_id"`
			ClientTTFPMs *float64 `json:"client_ttfp_ms"`
		}
		if json.Unmarshal(raw, &r) == nil && r.ClientTTFPMs != nil {
			client[r.ResponseID] = *r.ClientTTFPMs
		}
	}
	var out []float64
	for _, h := range heard {
		if c, ok := client[h.ResponseID]; ok && h.HeardTTFPMs != nil {
			out = append(out, *h.HeardTTFPMs-c)
		}
	}
	return out
}

// HeardResponse is the part of a report's responses[] PlaybackBuffering
// reads.
type HeardResponse struct {
	ResponseID  string   `json:"response_id"`
	HeardTTFPMs *float64 `json:"heard_ttfp_ms"`
}

// InputPCM returns d of 16 kHz PCM16 input: the builtin dataset's clips
// (speech with pauses) repeated, starting at clip offset.
func InputPCM(d time.Duration, offset int) ([]byte, error) {
	samples, err := dataset.Load(dataset.BuiltinName, nil)
	if err != nil {
		return nil, fmt.Errorf("bench: builtin dataset: %w", err)
	}
	want := audio.DurationToBytes(d, audio.InputRate)
	var pcm []byte
	for i := offset; len(pcm) < want; i++ {
		p, err := samples[i%len(samples)].PCM(context.Background(), nil)
		if err != nil {
			return nil, fmt.Errorf("bench: builtin clip: %w", err)
		}
		pcm = append(pcm, p...)
	}
	return pcm[:want&^1], nil
}

// FidelityResult is one fidelity measurement.
type FidelityResult struct {
	Sessions int
	Errors   Errors
	// FrameErrs are the per-frame receive-stamp errors (FrameErrors) of
	// every session, ms.
	FrameErrs []float64
	Lags      []float64 // pacing lags of all frames, ms
	Start     time.Time // when the first session was started
	Elapsed   time.Duration
	// CPU is this process's CPU time from the first start to the last
	// session's end: the sessions' cost without the harness's input
	// preparation before and truth comparison after. Runs that overlap
	// (RunPair) each count the other's too.
	CPU time.Duration
}

// RunSessions runs n concurrent session.Run sessions of d input each
// against the simulator (query selects its profile) and returns the wire
// logs' errors against the truth. stagger spreads the starts.
func RunSessions(ctx context.Context, s *Sim, query string, n int, d, stagger time.Duration) (FidelityResult, []*session.Result, error) {
	pcms, err := inputs(n, d)
	if err != nil {
		return FidelityResult{Sessions: n}, nil, err
	}
	return runSessions(ctx, s, query, pcms, slots(n, stagger, 0))
}

// inputs returns n sessions' input of d each (session i starts at clip i),
// all made before any session starts: decoding and resampling the clips
// makes hundreds of MB of garbage, which must not be made and collected
// next to the first sessions' receive loops.
func inputs(n int, d time.Duration) ([][]byte, error) {
	pcms := make([][]byte, n)
	for i := range pcms {
		var err error
		if pcms[i], err = InputPCM(d, i); err != nil {
			return nil, err
		}
	}
	return pcms, nil
}

// slots spreads n starts over stagger: start i at (i + frac)·stagger/n.
func slots(n int, stagger time.Duration, frac float64) func(i int) time.Duration {
	return func(i int) time.Duration {
		return time.Duration((float64(i) + frac) * float64(stagger) / float64(n))
	}
}

// staggered runs one for every pcm concurrently, the ith starting at(i)
// after now, and returns the timing with each session's result and error.
func staggered[R any](pcms [][]byte, at func(i int) time.Duration, one func(i int, pcm []byte) (R, error)) (FidelityResult, []R, []error) {
	res := FidelityResult{Sessions: len(pcms), Start: time.Now()}
	cpu0 := cputime.Self()
	results := make([]R, len(pcms))
	errs := make([]error, len(pcms))
	var wg sync.WaitGroup
	for i, pcm := range pcms {
		wg.Go(func() {
			time.Sleep(at(i))
			results[i], errs[i] = one(i, pcm)
		})
	}
	wg.Wait()
	res.Elapsed, res.CPU = time.Since(res.Start), cputime.Self()-cpu0
	return res, results, errs
}

func runSessions(ctx context.Context, s *Sim, query string, pcms [][]byte, at func(i int) time.Duration) (FidelityResult, []*session.Result, error) {
	n := len(pcms)
	res, results, errs := staggered(pcms, at, func(i int, pcm []byte) (*session.Result, error) {
		cfg := &session.Config{URL: s.WS(query), Model: "sim", SampleID: fmt.Sprintf("bench-%d", i), Split: "bench", CompletionTimeout: 2 * time.Minute}
		return session.Run(ctx, cfg, pcm)
	})
	for i, r := range results {
		if errs[i] != nil {
			return res, results, fmt.Errorf("bench: session %d of %d: %w", i, n, errs[i])
		}
		truth, err := GetTruth(ctx, s.Base, r.SessionID)
		if err != nil {
			return res, results, err
		}
		res.Errors.Add(CompareTruth(ReceiveStamps(r.Trace.Events), truth))
		fe, err := FrameErrors(r.Trace.Events, truth.Events)
		if err != nil {
			return res, results, fmt.Errorf("bench: session %d of %d: %w", i, n, err)
		}
		res.FrameErrs = append(res.FrameErrs, fe...)
		res.Lags = append(res.Lags, PacingLags(r.Trace.Events)...)
	}
	return res, results, nil
}

// RunPair runs n session.Run sessions and n bare-client sessions (RunBare)
// at the same time against one simulator, with the same inputs and their
// starts interleaved (bare i half a slot after session i), after a forced
// collection. Run one after the other, the two sides met different moments
// of a shared, loaded machine: one stall of the process during one side's
// 25 s made a 28× p99 ratio (issue 17). Together, every stall of the
// machine, the simulator or the collector can hit both.
func RunPair(ctx context.Context, s *Sim, query string, n int, d, stagger time.Duration) (runner, bare FidelityResult, err error) {
	pcms, err := inputs(n, d)
	if err != nil {
		return runner, bare, err
	}
	runtime.GC()
	var rerr, berr error
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		runner, _, rerr = runSessions(ctx, s, query, pcms, slots(n, stagger, 0))
	}()
	go func() {
		defer wg.Done()
		bare, berr = runBare(ctx, s, query, pcms, slots(n, stagger, 0.5))
	}()
	wg.Wait()
	return runner, bare, errors.Join(rerr, berr)
}

// PacingLags returns the lag_ms of every "duplexscope.pacing" wire-log
// entry, in order (client send clock: actual − scheduled send instant).
func PacingLags(events []trace.Event) []float64 {
	var out []float64
	type pacing struct {
		Type  string  `json:"type"`
		LagMs float64 `json:"lag_ms"`
	}
	eachDecoded(events, trace.DirLocal, func(_ trace.Event, p pacing) {
		if p.Type == "duplexscope.pacing" {
			out = append(out, p.LagMs)
		}
	})
	return out
}
