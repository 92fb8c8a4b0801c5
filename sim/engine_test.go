//go:build !js

package sim

import (
	"encoding/base64"
	"math"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/duplexscope/duplexscope/internal/golden"
	"github.com/duplexscope/duplexscope/metrics"
	"github.com/duplexscope/duplexscope/protocol"
	"github.com/google/go-cmp/cmp"
)

const ms = time.Millisecond

// threeTurns is 3 user turns with pauses long enough to answer each
// before the next one ends (test profile: ~130 ms per response).
var threeTurns = [][2]int{{600, 600}, {500, 700}, {700, 600}}

// runSession runs update → real-time paced stream → final commit → settle
// → session.close with injected times.
func runSession(t *testing.T, sc Scenario, query string, turns [][2]int) *harness {
	t.Helper()
	h := newHarness(t, sc, query)
	h.update(0)
	end := h.stream(10*ms, speechPCM(turns...), 200)
	h.send(end, map[string]any{"type": "input_audio_buffer.commit", "final": true})
	h.runUntil(end + 8*time.Second)
	h.send(end+8*time.Second, map[string]any{"type": "session.close"})
	h.runUntil(end + 9*time.Second)
	return h
}

// TestScenarioGolden pins a whole deterministic session (injected clock,
// fixed seed) frame by frame, audio payloads reduced to their size.
func TestScenarioGolden(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, profile, query string
	}{
		{"test", ProfileTest, ""},
		{"test_legacy", ProfileTest, "sim_event_names=legacy"},
		{"minicpmo", ProfileMiniCPMO, ""},
		{"personaplex", ProfilePersonaPlex, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := runSession(t, mustProfile(t, tc.profile), tc.query, threeTurns)
			golden.Check(t, "ndjson", h.summary())
		})
	}
}

// checkInvariants applies docs/protocol.md's rules to an engine's output.
func checkInvariants(t *testing.T, h *harness) {
	t.Helper()
	created := map[string]bool{}
	done := map[string]bool{}
	for _, r := range h.out {
		if r.ev == nil {
			continue
		}
		typ := r.ev["type"].(string)
		rid, _ := protocol.ResponseIdentity(r.frame)
		switch {
		case typ == protocol.TypeResponseCreated:
			if created[rid] {
				t.Errorf("second response.created for %s", rid)
			}
			created[rid] = true
		case typ == protocol.TypeResponseDone:
			if !created[rid] || done[rid] {
				t.Errorf("response.done for %s: created=%v done=%v", rid, created[rid], done[rid])
			}
			done[rid] = true
		case rid != "" && typ != protocol.TypeResponseListen || strings.HasPrefix(typ, "response.output"):
			if !created[rid] || done[rid] {
				t.Errorf("%s for %s outside created..done", typ, rid)
			}
		}
		if protocol.IsAudioDelta(typ) {
			ev, err := protocol.Decode(r.frame)
			if err != nil {
				t.Fatal(err)
			}
			if err := ev.Validate(); err != nil {
				t.Error(err)
			}
			pcm, err := protocol.DecodePCM16(ev.(*protocol.AudioDelta).Payload())
			if err != nil {
				t.Fatal(err)
			}
			if db := frameDBFS(pcm); db < -30 {
				t.Errorf("audio delta of %s at %.1f dBFS: too quiet for voice", rid, db)
			}
		}
	}
	if len(done) != len(created) {
		t.Errorf("%d created, %d done", len(created), len(done))
	}
}

func TestInvariants(t *testing.T) {
	t.Parallel()
	for _, p := range Profiles() {
		t.Run(p, func(t *testing.T) {
			t.Parallel()
			h := runSession(t, mustProfile(t, p), "", threeTurns)
			checkInvariants(t, h)
		})
	}
}

// TestTruthEqualsReported checks that server-reported TTFT/TTFP/TPOT equal
// the truth exactly, that truth times are the emit times, and that the
// reported TPOT is the token-weighted rule over the deltas' emit times.
func TestTruthEqualsReported(t *testing.T) {
	t.Parallel()
	for _, p := range []string{ProfileTest, ProfileMiniCPMO, ProfilePersonaPlex} {
		t.Run(p, func(t *testing.T) {
			t.Parallel()
			h := runSession(t, mustProfile(t, p), "", threeTurns)
			tr := h.truth()
			spoken := 0
			for _, resp := range tr.Responses {
				if resp.Kind != "speak" {
					continue
				}
				spoken++
				var firstText, firstAudio, created *rec
				var outs []metrics.EngineOutput
				var lastStage map[string]any
				var lastAudio rec
				for i := range h.out {
					r := &h.out[i]
					if r.ev == nil || str(r.ev, "response_id") != resp.ResponseID {
						continue
					}
					switch r.ev["type"] {
					case protocol.TypeResponseCreated:
						created = r
					case protocol.TypeResponseOutputAudioTranscriptDelta:
						if firstText == nil {
							firstText = r
						}
					case protocol.TypeResponseOutputAudioDelta:
						if firstAudio == nil {
							firstAudio = r
						}
						lastAudio = *r
						md := r.ev["metadata"].(map[string]any)["vllm_omni"].(map[string]any)
						st := md["stage_metrics"].(map[string]any)["0"].(map[string]any)
						n := int(st["num_tokens_out"].(float64))
						prev := 0
						for _, o := range outs {
							prev += o.NewTokens
						}
						outs = append(outs, metrics.EngineOutput{TMs: msOf(r.t), NewTokens: n - prev})
						lastStage = st
					}
				}
				if created == nil || firstText == nil || firstAudio == nil {
					t.Fatalf("%s: missing events", resp.ResponseID)
				}
				rttft, _ := num(firstText.ev, "metadata", "vllm_omni", "response_request_metrics", "ttft_ms")
				rttfp, _ := num(firstAudio.ev, "metadata", "vllm_omni", "response_request_metrics", "ttfp_ms")
				rttft2, _ := num(firstAudio.ev, "metadata", "vllm_omni", "response_request_metrics", "ttft_ms")
				want := TruthResponse{ResponseID: resp.ResponseID, Kind: "speak", Status: resp.Status, StartMs: resp.StartMs,
					CreatedMs: ptrF(msOf(created.t)), FirstTextMs: ptrF(msOf(firstText.t)), FirstAudioMs: ptrF(msOf(firstAudio.t)),
					LastAudioMs: ptrF(msOf(lastAudio.t)), DoneMs: resp.DoneMs, AudioMs: resp.AudioMs,
					TTFTMs: &rttft, TTFPMs: &rttfp, TPOTMs: ptrF(lastStage["vllm_tpot_ms"].(float64)), RTF: resp.RTF,
					NumTokensOut: int(lastStage["num_tokens_out"].(float64)), AudioPackets: resp.AudioPackets}
				if d := cmp.Diff(want, resp); d != "" {
					t.Errorf("%s truth (-reported +truth):\n%s", resp.ResponseID, d)
				}
				if rttft2 != rttft || math.Abs(rttft-(msOf(firstText.t)-resp.StartMs)) > 1e-9 || math.Abs(rttfp-(msOf(firstAudio.t)-resp.StartMs)) > 1e-9 {
					t.Errorf("%s: ttft %v/%v, ttfp %v vs emit times", resp.ResponseID, rttft, rttft2, rttfp)
				}
				if got := metrics.EngineTPOT(outs).TPOTMs; got != *resp.TPOTMs {
					t.Errorf("%s: tpot %v, rule over emit times gives %v", resp.ResponseID, *resp.TPOTMs, got)
				}
				if created.t != time.Duration(resp.StartMs*float64(ms)) {
					t.Errorf("%s: created at %v, start %v ms: response.created must be emitted at the request start", resp.ResponseID, created.t, resp.StartMs)
				}
				wantRTF := (msOf(lastAudio.t) - msOf(created.t)) / resp.AudioMs
				if resp.RTF == nil || *resp.RTF != wantRTF {
					t.Errorf("%s: rtf %v, want %v", resp.ResponseID, resp.RTF, wantRTF)
				}
			}
			if spoken < 3 {
				t.Errorf("%d spoken responses, want ≥ one per user turn (3)", spoken)
			}
		})
	}
}

func ptrF(v float64) *float64 { return &v }

// TestTestProfileTimings checks the fixed test profile's exact numbers.
func TestTestProfileTimings(t *testing.T) {
	t.Parallel()
	h := runSession(t, mustProfile(t, ProfileTest), "", threeTurns)
	for _, r := range h.truth().Responses {
		if r.Kind != "speak" {
			continue
		}
		// ttfp 30, lead 10; 4 packets of 100 ms at RTF 0.25 → 25 ms apart; 3 tokens each.
		if *r.TTFTMs != 20 || *r.TTFPMs != 30 || r.AudioMs != 400 || *r.LastAudioMs-*r.FirstAudioMs != 75 ||
			*r.TPOTMs != 25.0/3 || r.NumTokensOut != 12 || r.AudioPackets != 4 {
			t.Errorf("%+v", r)
		}
	}
}

// TestTurnDetection checks when each user turn is answered: speech end +
// silence_ms, at the accept time of the append that completes the silence.
func TestTurnDetection(t *testing.T) {
	t.Parallel()
	h := runSession(t, mustProfile(t, ProfileTest), "", threeTurns)
	starts := speakStarts(h)
	// Speech ends at input 600, 1700, 3100 ms; +200 ms silence → input 800,
	// 1900, 3300 ms, carried by the appends accepted at 10 + 600, 1800, 3200.
	if d := cmp.Diff([]float64{610, 1810, 3210}, starts); d != "" {
		t.Errorf("turn starts (-want +got):\n%s", d)
	}
}

func TestVAD(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		cfg   VAD
		turns [][2]int
		want  []vadEvent
	}{
		{"one turn", VAD{-40, 60, 200, 0}, [][2]int{{500, 400}}, []vadEvent{{vadStart, 0, 0}, {vadEnd, 500, 500}}},
		{"short pause kept", VAD{-40, 60, 200, 0}, [][2]int{{300, 100}, {300, 400}}, []vadEvent{{vadStart, 0, 0}, {vadEnd, 700, 600}}},
		{"blip ignored", VAD{-40, 100, 200, 0}, [][2]int{{40, 400}, {200, 300}}, []vadEvent{{vadStart, 440, 0}, {vadEnd, 640, 200}}},
		{"max turn", VAD{-40, 60, 200, 1000}, [][2]int{{2500, 300}}, []vadEvent{{vadStart, 0, 0}, {vadEnd, 1000, 1000}, {vadStart, 1000, 0}, {vadEnd, 2000, 1000}, {vadStart, 2000, 0}, {vadEnd, 2500, 500}}},
		{"silence only", VAD{-40, 60, 200, 0}, [][2]int{{0, 2000}}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			v := &vad{cfg: tc.cfg, rate: 16000}
			pcm, _ := protocol.PCM16Samples(speechPCM(tc.turns...))
			var got []vadEvent
			for off := 0; off < len(pcm); off += 1234 { // odd chunking
				got = append(got, v.feed(pcm[off:min(off+1234, len(pcm))])...)
			}
			if d := cmp.Diff(tc.want, got, cmp.AllowUnexported(vadEvent{})); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

// TestMiniCPMODistribution checks the built-in TTFP distribution against
// the published MiniCPM-o 4.5 figures (p50 ≈ 490, p99 ≈ 970, mean ≈ 550).
func TestMiniCPMODistribution(t *testing.T) {
	t.Parallel()
	sc := mustProfile(t, ProfileMiniCPMO)
	h := newHarness(t, sc, "")
	var xs []float64
	for range 50000 {
		xs = append(xs, sc.TTFPMs.Sample(h.e.rng))
	}
	sort.Float64s(xs)
	mean := 0.0
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	p50, p99 := xs[len(xs)/2], xs[len(xs)*99/100]
	if math.Abs(p50-490) > 8 || math.Abs(p99-970) > 12 || math.Abs(mean-550) > 10 {
		t.Errorf("p50 %.1f p99 %.1f mean %.1f", p50, p99, mean)
	}
}

func TestDistributions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		json          string
		mean, sd, tol float64
		wantErr       bool
	}{
		{`250`, 250, 0, 0, false},
		{`{"dist":"fixed","value":7}`, 7, 0, 0, false},
		{`{"dist":"normal","mean":100,"stddev":10}`, 100, 10, 1, false},
		{`{"dist":"lognormal","median":100,"sigma":0.5}`, 100 * math.Exp(0.125), 0, 2, false},
		{`{"dist":"uniform","min":0,"max":10}`, 5, 0, 0.2, false},
		{`{"dist":"quantiles","points":[[0,0],[1,10]]}`, 5, 0, 0.2, false},
		{`{"dist":"normal","mean":5,"stddev":100,"min":0,"max":1}`, 0.5, 0, 0.1, false},
		{`{"dist":"zipf"}`, 0, 0, 0, true},
		{`{"dist":"quantiles","points":[[0,5],[0.5,1],[1,9]]}`, 0, 0, 0, true},
		{`{"dist":"lognormal","median":0}`, 0, 0, 0, true},
	}
	for _, tc := range tests {
		sc, err := ParseScenario([]byte(`{"base":"test","ttfp_ms":` + tc.json + `}`))
		if (err != nil) != tc.wantErr {
			t.Fatalf("%s: err %v", tc.json, err)
		}
		if err != nil {
			continue
		}
		h := newHarness(t, sc, "")
		var sum, sq float64
		const n = 20000
		for range n {
			x := sc.TTFPMs.Sample(h.e.rng)
			sum += x
			sq += x * x
		}
		mean := sum / n
		sd := math.Sqrt(sq/n - mean*mean)
		if math.Abs(mean-tc.mean) > tc.tol || (tc.sd > 0 && math.Abs(sd-tc.sd) > tc.tol) {
			t.Errorf("%s: mean %.3f sd %.3f", tc.json, mean, sd)
		}
	}
}

// TestBargeIn: a PersonaPlex-like profile truncates on user speech
// (cleared + cancelled) and answers the interrupting turn afterwards; a
// MiniCPM-o-like one keeps talking.
func TestBargeIn(t *testing.T) {
	t.Parallel()
	// Speech, a 600 ms pause (long enough to end the turn in every
	// profile), then speech again while the answer (~2 s) plays.
	turns := [][2]int{{800, 600}, {600, 2500}}
	tests := []struct {
		profile, query          string
		wantCleared, wantCancel int
	}{
		{ProfilePersonaPlex, "sim_ttfp_ms=50", 1, 1},
		{ProfileMiniCPMO, "sim_ttfp_ms=50", 0, 0},
		{ProfileMiniCPMO, "sim_ttfp_ms=50&sim_behavior=yields", 1, 1},
		{ProfilePersonaPlex, "sim_ttfp_ms=50&sim_behavior=holds_floor", 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.profile+"?"+tc.query, func(t *testing.T) {
			t.Parallel()
			h := runSession(t, mustProfile(t, tc.profile), tc.query, turns)
			checkInvariants(t, h)
			cleared := h.ofType(protocol.TypeOutputAudioBufferCleared)
			cancelled := 0
			for _, r := range h.ofType(protocol.TypeResponseDone) {
				if str(r.ev, "response", "status") == "cancelled" {
					cancelled++
					if str(r.ev, "response", "status_details", "reason") != "barge_in" {
						t.Errorf("cancel reason: %s", r.frame)
					}
				}
			}
			if len(cleared) != tc.wantCleared || cancelled != tc.wantCancel {
				t.Fatalf("cleared %d cancelled %d; want %d %d\n%v", len(cleared), cancelled, tc.wantCleared, tc.wantCancel, h.types())
			}
			if tc.wantCleared == 1 {
				rid := str(cleared[0].ev, "response_id")
				for _, r := range h.out {
					if r.t > cleared[0].t && r.ev != nil && str(r.ev, "response_id") == rid && r.ev["type"] != protocol.TypeResponseDone {
						t.Errorf("%s after the clear of %s", r.ev["type"], rid)
					}
				}
				if n := countSpeak(h); n != 2 {
					t.Errorf("%d spoken responses; the interrupting turn must be answered", n)
				}
			}
		})
	}
}

// speakStarts returns the spoken responses' request starts (server ms).
func speakStarts(h *harness) []float64 {
	var starts []float64
	for _, r := range h.truth().Responses {
		if r.Kind == "speak" {
			starts = append(starts, r.StartMs)
		}
	}
	return starts
}

func countSpeak(h *harness) int {
	n := 0
	for _, r := range h.truth().Responses {
		if r.Kind == "speak" {
			n++
		}
	}
	return n
}

func TestInputErrors(t *testing.T) {
	t.Parallel()
	b64 := func(b []byte) string { return base64.StdEncoding.EncodeToString(b) }
	tests := []struct {
		name     string
		msg      string
		wantCode string
		wantEcho string
	}{
		{"bad base64", `{"type":"input_audio_buffer.append","event_id":"evt_1","audio":"@@@"}`, protocol.CodeBadAudio, "evt_1"},
		{"odd length", `{"type":"input_audio_buffer.append","event_id":"evt_2","audio":"` + b64([]byte{1, 2, 3}) + `"}`, protocol.CodeBadAudio, "evt_2"},
		{"rate", `{"type":"input_audio_buffer.append","event_id":"evt_3","audio":"AAAA","sample_rate_hz":24000}`, protocol.CodeUnsupportedAudioFormat, "evt_3"},
		{"alt rate key", `{"type":"input_audio_buffer.append","event_id":"evt_3b","audio":"AAAA","sample_rate":8000}`, protocol.CodeUnsupportedAudioFormat, "evt_3b"},
		{"format", `{"type":"input_audio_buffer.append","event_id":"evt_4","audio":"AAAA","format":"opus"}`, protocol.CodeUnsupportedAudioFormat, "evt_4"},
		{"no audio", `{"type":"input_audio_buffer.append","event_id":"evt_5","format":"pcm16"}`, protocol.CodeBadEvent, "evt_5"},
		{"wrong type field", `{"type":"input_audio_buffer.append","event_id":"evt_6","audio":5}`, protocol.CodeBadEvent, "evt_6"},
		{"not json", `{"type":`, protocol.CodeInvalidJSON, ""},
		{"unknown", `{"type":"x.y","event_id":"evt_7"}`, protocol.CodeUnknownEvent, "evt_7"},
		{"empty commit", `{"type":"input_audio_buffer.commit","event_id":"evt_8","final":true}`, protocol.CodeInputAudioBufferEmpty, "evt_8"},
		{"ack unknown", `{"type":"playback.ack","event_id":"evt_9","response_id":"nope","played_ms":0,"committed_ms":0}`, protocol.CodePlaybackItemNotFound, "evt_9"},
		{"cancel idle", `{"type":"response.cancel","event_id":"evt_10"}`, protocol.CodeResponseNotActive, "evt_10"},
		{"deep nesting", `{"type":"playback.ack","event_id":"evt_11","x":` + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + `}`, protocol.CodeInvalidJSON, ""}, // unparsable: no event_id to echo
		{"NaN", `{"type":"playback.ack","event_id":"evt_12","response_id":"r","played_ms":NaN}`, protocol.CodeInvalidJSON, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, mustProfile(t, ProfileTest), "")
			h.update(0)
			h.send(10*ms, []byte(tc.msg))
			h.runUntil(20 * ms)
			errs := h.ofType(protocol.TypeError)
			if len(errs) != 1 {
				t.Fatalf("errors: %v", h.types())
			}
			if c := str(errs[0].ev, "error", "code"); c != tc.wantCode || str(errs[0].ev, "error", "event_id") != tc.wantEcho {
				t.Errorf("error = %s", errs[0].frame)
			}
			if str(errs[0].ev, "error", "type") != protocol.ErrorTypeForCode(tc.wantCode) || str(errs[0].ev, "error", "message") == "" {
				t.Errorf("error = %s", errs[0].frame)
			}
		})
	}
}

func TestHandshake(t *testing.T) {
	t.Parallel()
	t.Run("config timeout", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t, mustProfile(t, ProfileTest), "")
		h.runUntil(ConfigTimeout - ms)
		if len(h.out) != 0 {
			t.Fatalf("early output %v", h.types())
		}
		h.runUntil(ConfigTimeout)
		if len(h.out) != 1 || str(h.out[0].ev, "error", "code") != protocol.CodeConfigTimeout || h.out[0].act != actClosePolicy || h.out[0].t != ConfigTimeout {
			t.Fatalf("got %s", h.summary())
		}
	})
	t.Run("first message not update", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t, mustProfile(t, ProfileTest), "")
		h.send(ms, map[string]any{"type": "input_audio_buffer.append", "audio": "AAAA"})
		h.update(2 * ms)
		h.runUntil(3 * ms)
		if d := cmp.Diff([]string{"error", "session.created", "session.updated"}, h.types()); d != "" {
			t.Error(d)
		}
	})
	t.Run("defaults and model from query", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t, mustProfile(t, ProfilePersonaPlex), "model=from-query")
		h.send(0, []byte(`{"type":"session.update","session":{"modalities":["audio","text"],"voice":"default"}}`))
		h.runUntil(ms)
		c := h.ofType(protocol.TypeSessionCreated)[0]
		if str(c.ev, "session", "model") != "from-query" || str(c.ev, "session", "id") != "duplex-test" {
			t.Errorf("%s", c.frame)
		}
		if v, _ := num(c.ev, "session", "capabilities", "chunk_period_ms"); v != 80 {
			t.Errorf("chunk_period_ms %v", v)
		}
		if h.e.inRate != 16000 || h.e.outRate != 24000 || h.e.stageMetrics {
			t.Errorf("rates %d/%d stage %v", h.e.inRate, h.e.outRate, h.e.stageMetrics)
		}
		if n := len(h.ofType(protocol.TypeSessionUpdated)); n != 1 {
			t.Errorf("%d session.updated", n)
		}
		h.send(2*ms, []byte(`{"type":"session.update","session":{"voice":"x"}}`))
		h.runUntil(3 * ms)
		if n := len(h.ofType(protocol.TypeSessionUpdated)); n != 1 || len(h.ofType(protocol.TypeError)) != 0 {
			t.Errorf("%d session.updated after a second update; %v", n, h.types())
		}
		for i, upd := range []string{`{"model":"other"}`, `{"ref_audio":"data:audio/wav;base64,AAAA"}`, `{"voice":"y"}`} {
			if i == 2 {
				h.stream(4*ms, speechPCM([2]int{0, 200}), 200)
			}
			h.send(time.Duration(10+i)*ms, []byte(`{"type":"session.update","event_id":"evt_u`+string(rune('0'+i))+`","session":`+upd+`}`))
		}
		h.runUntil(20 * ms)
		var codes []string
		for _, r := range h.ofType(protocol.TypeError) {
			codes = append(codes, str(r.ev, "error", "code")+"/"+str(r.ev, "error", "event_id"))
		}
		if d := cmp.Diff([]string{"model_update_unsupported/evt_u0", "ref_audio_update_unsupported/evt_u1", "voice_update_after_audio_unsupported/evt_u2"}, codes); d != "" {
			t.Errorf("later updates (-want +got):\n%s", d)
		}
	})
	t.Run("input rate rejected", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t, mustProfile(t, ProfileTest), "")
		h.send(0, []byte(`{"type":"session.update","event_id":"evt_u","session":{"sample_rate_hz":24000}}`))
		h.runUntil(ConfigTimeout)
		if d := cmp.Diff([]string{"error", "error"}, h.types()); d != "" || str(h.out[0].ev, "error", "event_id") != "evt_u" {
			t.Errorf("%s", h.summary())
		}
	})
	t.Run("output rate 48k", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t, mustProfile(t, ProfileTest), "")
		h.send(0, []byte(`{"type":"session.update","session":{"audio":{"output":{"sample_rate_hz":48000}}}}`))
		h.stream(10*ms, speechPCM([2]int{300, 400}), 200)
		h.runUntil(2 * time.Second)
		d := h.ofType(protocol.TypeResponseOutputAudioDelta)
		if len(d) == 0 {
			t.Fatal("no audio")
		}
		pcm, _ := protocol.DecodeAudioBase64(str(d[0].ev, "delta"))
		if v, _ := num(d[0].ev, "sample_rate_hz"); v != 48000 || len(pcm) != 9600 {
			t.Errorf("rate %v, %d bytes for 100 ms", v, len(pcm))
		}
	})
	t.Run("idle timeout", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t, mustProfile(t, ProfileTest), "")
		h.send(0, []byte(`{"type":"session.update","session":{"idle_timeout_s":2}}`))
		h.send(1500*ms, []byte(`{"type":"session.heartbeat"}`))
		h.runUntil(10 * time.Second)
		want := []string{"session.created", "session.updated", "session.heartbeat_ack", "session.expired"}
		if d := cmp.Diff(want, h.types()); d != "" || h.out[3].t != 3500*ms || h.out[3].act != actClose {
			t.Errorf("%s", h.summary())
		}
	})
}

// TestCommitAndAck: committed carries ids and seq, the final decision is a
// response for unanswered speech or a terminal listen, acks are echoed.
func TestCommitAndAck(t *testing.T) {
	t.Parallel()
	t.Run("speech then commit", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t, mustProfile(t, ProfileTest), "")
		h.update(0)
		end := h.stream(0, speechPCM([2]int{500, 0}), 200) // commit while still speaking
		h.send(end, map[string]any{"type": "input_audio_buffer.commit", "final": true})
		h.runUntil(end + time.Second)
		c := h.ofType(protocol.TypeInputAudioBufferCommitted)
		if len(c) != 1 || str(c[0].ev, "event", "type") != "input.committed" || c[0].ev["previous_item_id"] != nil {
			t.Fatalf("%v", h.types())
		}
		if seq, _ := num(c[0].ev, "event", "input_commit_seq"); seq != 1 || countSpeak(h) != 1 {
			t.Errorf("seq %v speak %d", seq, countSpeak(h))
		}
		rid := h.truth().Responses[0].ResponseID
		h.send(end+time.Second, map[string]any{"type": "playback.ack", "response_id": rid, "item_id": "item_" + rid, "played_ms": 200, "committed_ms": 200})
		h.runUntil(end + 2*time.Second)
		a := h.ofType(protocol.TypePlaybackAcknowledged)
		if v, _ := num(a[0].ev, "event", "played_ms"); len(a) != 1 || v != 200 || str(a[0].ev, "event", "response_id") != rid {
			t.Errorf("%s", a[0].frame)
		}
		h.stream(end+2*time.Second, speechPCM([2]int{0, 100}), 200)
		h.send(end+3*time.Second, map[string]any{"type": "input_audio_buffer.commit", "final": true})
		h.runUntil(end + 4*time.Second)
		c = h.ofType(protocol.TypeInputAudioBufferCommitted)
		if len(c) != 2 || str(c[1].ev, "previous_item_id") != str(c[0].ev, "item_id") {
			t.Errorf("second commit: %v", h.types())
		}
		ls := h.ofType(protocol.TypeResponseListen)
		if len(ls) != 1 || str(ls[0].ev, "response_id") == "" {
			t.Errorf("want a terminal listen after silent input, got %v", h.types())
		}
	})
}

func TestLegacyNames(t *testing.T) {
	t.Parallel()
	h := runSession(t, mustProfile(t, ProfileTest), "sim_event_names=legacy", threeTurns)
	for _, typ := range h.types() {
		if protocol.LegacyName(typ) != typ {
			t.Fatalf("current name %s in legacy mode", typ)
		}
	}
	if len(h.ofType(protocol.TypeLegacyAudioDelta)) == 0 || len(h.ofType(protocol.TypeLegacyAudioTranscriptDelta)) == 0 {
		t.Error("no legacy deltas")
	}
	h = runSession(t, mustProfile(t, ProfileTest), "", threeTurns)
	for _, typ := range h.types() {
		if protocol.IsLegacy(typ) {
			t.Fatalf("legacy name %s in current mode", typ)
		}
	}
}

func TestPeriodicAndSchedule(t *testing.T) {
	t.Parallel()
	silence := [][2]int{{0, 10000}}
	h := runSession(t, mustProfile(t, ProfilePeriodic), "sim_ttfp_ms=100&sim_response_ms=1000", silence)
	starts := speakStarts(h)
	// Every 3 s of input clock: appends carrying input 3000, 6000, 9000 ms
	// are accepted at 10 + 2800, 5800, 8800 ms.
	if d := cmp.Diff([]float64{2810, 5810, 8810}, starts); d != "" {
		t.Errorf("periodic (-want +got):\n%s", d)
	}
	sc, err := ParseScenario([]byte(`{"base":"test","turns_ms":[1000,1000,4000]}`))
	if err != nil {
		t.Fatal(err)
	}
	h = runSession(t, sc, "", silence)
	starts = speakStarts(h)
	// 1000 (twice: the second turn waits for the first answer, which ends
	// at 810 + 30 + 3×25 = 915) and 4000 ms of input.
	if d := cmp.Diff([]float64{810, 915, 3810}, starts); d != "" {
		t.Errorf("schedule (-want +got):\n%s", d)
	}
}

// TestAudioBeforeText: a negative text lead sends audio first; the first
// audio delta then carries only ttfp_ms and the first text delta adds
// ttft_ms (each key once known, docs/protocol.md#server-request-metrics).
func TestAudioBeforeText(t *testing.T) {
	t.Parallel()
	sc, err := ParseScenario([]byte(`{"base":"test","text_lead_ms":-40}`))
	if err != nil {
		t.Fatal(err)
	}
	h := runSession(t, sc, "", threeTurns[:1])
	a := h.ofType(protocol.TypeResponseOutputAudioDelta)[0]
	x := h.ofType(protocol.TypeResponseOutputAudioTranscriptDelta)[0]
	_, hasTTFT := num(a.ev, "metadata", "vllm_omni", "response_request_metrics", "ttft_ms")
	ttfp, _ := num(a.ev, "metadata", "vllm_omni", "response_request_metrics", "ttfp_ms")
	ttft, _ := num(x.ev, "metadata", "vllm_omni", "response_request_metrics", "ttft_ms")
	ttfp2, _ := num(x.ev, "metadata", "vllm_omni", "response_request_metrics", "ttfp_ms")
	if a.t >= x.t || hasTTFT || ttfp != 30 || ttft != 70 || ttfp2 != 30 {
		t.Errorf("audio at %v, text at %v; audio ttft present %v ttfp %v; text ttft %v ttfp %v", a.t, x.t, hasTTFT, ttfp, ttft, ttfp2)
	}
}
