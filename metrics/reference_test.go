package metrics_test

// An independent, deliberately naive transcription of the reference
// algorithm (docs/metrics.md, event log to stream window; the Python structure: collect, then scan the
// whole log once per response), used to cross-check the incremental
// Accumulator on generated sessions. It shares no code with the package.

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/duplexscope/duplexscope/trace"
)

type refEv struct {
	e map[string]any
	t float64
}

func refNum(v any) (float64, bool) { // real number, not bool
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil && !strings.Contains(err.Error(), "range") {
		return 0, false
	}
	return f, true
}

func refInt(v any) (float64, bool) { // Python int, bool included
	switch v := v.(type) {
	case bool:
		if v {
			return 1, true
		}
		return 0, true
	case json.Number:
		if strings.ContainsAny(string(v), ".eE") {
			return 0, false
		}
		return refNum(v)
	}
	return 0, false
}

func refTruthy(v any) bool {
	switch v := v.(type) {
	case nil:
		return false
	case bool:
		return v
	case string:
		return v != ""
	case json.Number:
		f, _ := refNum(v)
		return f != 0
	case []any:
		return len(v) > 0
	case map[string]any:
		return len(v) > 0
	}
	return true
}

func refIdentity(e map[string]any) (string, bool) {
	if s, ok := e["response_id"].(string); ok {
		return s, true
	}
	if r, ok := e["response"].(map[string]any); ok {
		if s, ok := r["id"].(string); ok {
			return s, true
		}
	}
	return "", false
}

func refDig(e map[string]any, keys ...string) (any, bool) {
	var cur any = e
	for _, k := range keys {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[k]; !ok {
			return nil, false
		}
	}
	return cur, true
}

func refFirstObj(e map[string]any, places [][]string) map[string]any {
	for _, p := range places {
		if v, ok := refDig(e, p...); ok {
			if m, ok := v.(map[string]any); ok {
				return m
			}
		}
	}
	return nil
}

func refRound(x float64, d int) float64 {
	f, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'f', d, 64), 64)
	return f
}

func refPayload(e map[string]any) any {
	if refTruthy(e["delta"]) {
		return e["delta"]
	}
	return e["audio"]
}

func refSummary(vals []float64, d int) any {
	var c []float64
	for _, v := range vals {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			c = append(c, v)
		}
	}
	if len(c) == 0 {
		return nil
	}
	sort.Float64s(c)
	sum := 0.0
	for _, v := range c {
		sum += v
	}
	nr := func(p float64) float64 {
		return c[min(max(0, int(math.Ceil(p*float64(len(c))))-1), len(c)-1)]
	}
	return map[string]any{"count": len(c), "mean": refRound(sum/float64(len(c)), d), "p50": refRound(nr(0.5), d), "p99": refRound(nr(0.99), d)}
}

var refTextTypes = map[string]bool{"response.output_audio_transcript.delta": true, "response.output_text.delta": true, "response.text.delta": true}

// refScore returns the `score` object of a session the naive way.
func refScore(s trace.Session) map[string]any {
	var log []refEv
	var ids []string
	seen := map[string]bool{}
	audioBytes := map[string]int{}
	rate := 24000.0
	hasSeq, last := false, 0.0
	for _, ev := range s.Events {
		if ev.Dir != "recv" {
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(ev.Event))
		dec.UseNumber()
		var e map[string]any
		if dec.Decode(&e) != nil || e == nil {
			continue
		}
		if seq, ok := refInt(e["server_event_seq"]); ok {
			if hasSeq && seq <= last {
				continue
			}
			hasSeq, last = true, seq
		}
		log = append(log, refEv{e, ev.TMs / 1000.0})
		id, hasID := refIdentity(e)
		if e["type"] == "response.created" && hasID && !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
		if e["type"] == "response.output_audio.delta" {
			if hz, ok := refInt(e["sample_rate_hz"]); ok && hz > 0 {
				rate = hz
			}
			if p, ok := refPayload(e).(string); ok && p != "" && hasID {
				if b, err := base64.StdEncoding.DecodeString(p); err == nil { // generated payloads are canonical
					audioBytes[id] += len(b)
				}
			}
		}
	}
	ss := s.Session.StreamStartS()
	rowsOut := []any{}
	var ttft, ttfp, rtf, tpot, cttft, cttfp []float64
	outputTokens := 0
	sessionID := s.Session.ResolvedSessionID()
	prefix := func(m map[string]any) map[string]any {
		if s.Session.SampleID != nil {
			m["sample_id"] = *s.Session.SampleID
			if s.Session.Split != nil {
				m["split"] = *s.Session.Split
			} else {
				m["split"] = nil
			}
		}
		return m
	}
	sid := any(nil)
	if sessionID != nil {
		sid = *sessionID
	}
	srvPlaces := [][]string{{"response_request_metrics"}, {"vllm_omni", "response_request_metrics"}, {"metadata", "response_request_metrics"},
		{"metadata", "vllm_omni", "response_request_metrics"}, {"metadata", "duplex_event", "response_request_metrics"},
		{"response", "metadata", "response_request_metrics"}, {"response", "metadata", "vllm_omni", "response_request_metrics"},
		{"response", "metadata", "duplex_event", "response_request_metrics"}}
	stagePlaces := [][]string{{"vllm_omni", "stage_metrics"}, {"metadata", "stage_metrics"}, {"metadata", "vllm_omni", "stage_metrics"},
		{"response", "metadata", "stage_metrics"}, {"response", "metadata", "vllm_omni", "stage_metrics"}}
	byteMs := func(id string) float64 { return float64(audioBytes[id]) * 1000 / (rate * 2) }
	for idx, id := range ids {
		var evs []refEv
		for _, le := range log {
			if rid, ok := refIdentity(le.e); ok && rid == id && le.t >= ss {
				evs = append(evs, le)
			}
		}
		var C, F, A0, AL, CA *float64
		var dur *float64
		merged := map[string]any{}
		var stage0 map[string]any
		for _, le := range evs {
			t := le.t
			typ, _ := le.e["type"].(string)
			if typ == "response.created" && C == nil {
				C = &t
			}
			if d, ok := le.e["delta"].(string); ok && d != "" && refTextTypes[typ] && F == nil {
				F = &t
			}
			if typ == "response.output_audio.delta" {
				p := refPayload(le.e)
				if _, ok := p.(string); ok && CA == nil {
					CA = &t
				}
				if ps, ok := p.(string); ok && ps != "" {
					if A0 == nil {
						A0 = &t
					}
					AL = &t
					if v, ok := refDig(le.e, "metadata", "audio_duration_ms"); ok {
						f, ok := refNum(v)
						if !ok {
							f, ok = refInt(v)
						}
						if ok && !math.IsInf(f, 0) && !math.IsNaN(f) {
							f = max(0, f)
							if dur == nil || f > *dur {
								dur = &f
							}
						}
					}
				}
			}
			if m := refFirstObj(le.e, srvPlaces); m != nil {
				for k, v := range m {
					merged[k] = v
				}
			}
			if sm := refFirstObj(le.e, stagePlaces); sm != nil {
				if s0, ok := sm["0"].(map[string]any); ok {
					stage0 = s0
				}
			}
		}
		row := map[string]any{"session_id": sid, "request_index": idx, "response_id": id}
		hasRaw := A0 != nil && C != nil
		if !hasRaw && stage0 == nil {
			continue
		}
		if hasRaw {
			c := *C
			srv := func(k string) (float64, bool) {
				f, ok := refNum(merged[k])
				return f, ok && !math.IsInf(f, 0) && !math.IsNaN(f) && f >= 0
			}
			st, okT := srv("ttft_ms")
			sp, okP := srv("ttfp_ms")
			origin := map[string]any{"ttft": "response.created client receive to first non-empty text delta",
				"ttfp": "response.created client receive to first audio packet", "tpot": "Stage-0 engine mean time per output token",
				"rtf":         "response.created client receive to last audio packet divided by emitted audio duration",
				"client_ttft": "response.created client receive to first non-empty text delta; includes server prompt preparation and engine submission when they follow response creation, as in Qwen3-Omni",
				"client_ttfp": "response.created client receive to first audio packet; includes server prompt preparation and engine submission when they follow response creation, as in Qwen3-Omni"}
			mo, _ := merged["measurement_origin"].(map[string]any)
			row["source"] = "client_monotonic_receive"
			if okT || okP {
				row["source"] = "server_request_start_and_client_receive"
			}
			switch {
			case okT:
				row["ttft_ms"] = st
				if s, ok := mo["ttft"].(string); ok {
					origin["ttft"] = s
				}
			case F != nil:
				row["ttft_ms"] = refRound((*F-c)*1000, 3)
			default:
				row["ttft_ms"] = nil
			}
			if okP {
				row["ttfp_ms"] = sp
				if s, ok := mo["ttfp"].(string); ok {
					origin["ttfp"] = s
				}
			} else {
				row["ttfp_ms"] = refRound((*A0-c)*1000, 3)
			}
			row["measurement_origin"] = origin
			gen := refRound(max(0, (*AL-c)*1000), 3)
			d := refRound(byteMs(id), 3)
			if dur != nil {
				d = refRound(*dur, 3)
			}
			row["audio_generation_ms"], row["audio_duration_ms"] = gen, d
			if okT || okP {
				row["response_created_to_first_text_ms"] = nil
				if F != nil {
					row["response_created_to_first_text_ms"] = refRound((*F-c)*1000, 3)
				}
				row["response_created_to_first_audio_ms"] = refRound((*A0-c)*1000, 3)
			}
			if stage0 != nil {
				f, ok := refNum(stage0["vllm_tpot_ms"])
				row["tpot_ms"] = nil
				if ok && !math.IsInf(f, 0) && f >= 0 {
					row["tpot_ms"] = f
					if f > 0 {
						tpot = append(tpot, f)
					}
				}
			}
			row["rtf"] = nil
			if d > 0 {
				r := refRound((gen/1000)/(d/1000), 6)
				row["rtf"] = r
				rtf = append(rtf, r)
			}
			row["client_ttft_ms"], row["client_ttfp_ms"] = nil, nil
			if F != nil {
				v := refRound(max(0, *F-c)*1000, 3)
				row["client_ttft_ms"] = v
				cttft = append(cttft, v)
			}
			if CA != nil {
				v := refRound(max(0, *CA-c)*1000, 3)
				row["client_ttfp_ms"] = v
				cttfp = append(cttfp, v)
			}
			if v, ok := row["ttft_ms"].(float64); ok {
				ttft = append(ttft, v)
			}
			ttfp = append(ttfp, row["ttfp_ms"].(float64))
		}
		if stage0 != nil {
			// Generated snapshots use plain numbers, so the conversions are simple.
			n, _ := refNum(stage0["num_tokens_out"])
			tt, _ := refNum(stage0["vllm_ttft_ms"])
			tp, _ := refNum(stage0["vllm_tpot_ms"])
			itls := []float64{}
			if arr, ok := stage0["vllm_itls_ms"].([]any); ok {
				for _, v := range arr {
					if f, ok := refNum(v); ok {
						itls = append(itls, f)
					}
				}
			}
			var clean []float64
			for _, v := range itls {
				if v >= 0 {
					clean = append(clean, refRound(v, 3))
				}
			}
			sort.Float64s(clean)
			iv := map[string]any{"count": 0, "mean": 0.0, "p50": 0.0, "p95": 0.0, "max": 0.0}
			if len(clean) > 0 {
				sum := 0.0
				for _, v := range clean {
					sum += v
				}
				nr := func(p float64) float64 {
					return clean[min(max(0, int(math.Ceil(p*float64(len(clean))))-1), len(clean)-1)]
				}
				iv = map[string]any{"count": len(clean), "mean": refRound(sum/float64(len(clean)), 3), "p50": nr(0.5), "p95": nr(0.95), "max": clean[len(clean)-1]}
			}
			row["stage0_tokens"] = map[string]any{"source": "engine_stage_metrics", "output_token_count": int(n), "ttft_ms": tt,
				"tpot_ms": tp, "itls_ms": itls, "inter_token_interval_ms": iv}
			outputTokens += int(n)
		}
		rowsOut = append(rowsOut, prefix(row))
	}
	sess := prefix(map[string]any{"session_id": sid, "audio_turn_count": len(rowsOut),
		"ttft_ms": refSummary(ttft, 3), "ttfp_ms": refSummary(ttfp, 3), "rtf": refSummary(rtf, 6)})
	for k, v := range map[string]any{"tpot_ms": refSummary(tpot, 3), "client_ttft_ms": refSummary(cttft, 3), "client_ttfp_ms": refSummary(cttfp, 3)} {
		if v != nil {
			sess[k] = v
		}
	}
	// Stream window.
	listed := map[string]bool{}
	for _, id := range ids {
		listed[id] = true
	}
	var Fs, A0s, ALs *float64
	for _, le := range log {
		id, ok := refIdentity(le.e)
		if !ok || !listed[id] || le.t < ss {
			continue
		}
		t := le.t
		typ, _ := le.e["type"].(string)
		if d, ok := le.e["delta"].(string); ok && d != "" && refTextTypes[typ] && Fs == nil {
			Fs = &t
		}
		if p, ok := refPayload(le.e).(string); ok && p != "" && typ == "response.output_audio.delta" {
			if A0s == nil {
				A0s = &t
			}
			ALs = &t
		}
	}
	if A0s != nil {
		total := 0.0
		for _, id := range ids {
			var best *float64
			for _, le := range log {
				rid, ok := refIdentity(le.e)
				if !ok || rid != id || le.t < ss || le.e["type"] != "response.output_audio.delta" {
					continue
				}
				if p, ok := refPayload(le.e).(string); !ok || p == "" {
					continue
				}
				if v, ok := refDig(le.e, "metadata", "audio_duration_ms"); ok {
					if f, ok := refNum(v); ok && !math.IsInf(f, 0) && f >= 0 && (best == nil || f > *best) {
						best = &f
					}
				}
			}
			if best != nil {
				total += *best
			} else {
				total += byteMs(id)
			}
		}
		sess["stream_ttft_ms"] = nil
		if Fs != nil {
			sess["stream_ttft_ms"] = refRound((*Fs-ss)*1000, 3)
		}
		sess["stream_ttfp_ms"] = refRound((*A0s-ss)*1000, 3)
		gen := refRound(max(0, (*ALs-ss)*1000), 3)
		d := refRound(total, 3)
		sess["stream_audio_generation_ms"], sess["stream_audio_duration_ms"] = gen, d
		sess["stream_rtf"] = nil
		if d > 0 {
			sess["stream_rtf"] = refRound((gen/1000)/(d/1000), 6)
		}
		sess["stream_measurement_origin"] = map[string]any{"ttft": "input stream start to first non-empty text delta",
			"ttfp": "input stream start to first audio packet",
			"rtf":  "input stream start-to-last-audio receive time divided by total emitted audio duration; includes concurrent realtime input"}
	}
	return map[string]any{"kind": "session", "request_metrics": rowsOut, "session_metrics": sess, "output_tokens": outputTokens}
}
