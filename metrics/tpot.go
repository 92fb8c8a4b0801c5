package metrics

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"

	"github.com/duplexscope/duplexscope/trace"
)

// EngineOutput is one engine output step of a request: its time on the
// server's clock (ms), the number of new tokens it carries, and the
// continuous generation segment it belongs to (a new segment starts after
// the request idled, e.g. between duplex turns).
type EngineOutput struct {
	TMs       float64
	NewTokens int // ≤ 0: the output is ignored entirely
	Segment   int
}

// EngineTPOTResult is the token-weighted TPOT of one request's outputs.
type EngineTPOTResult struct {
	NumTokensOut int       `json:"num_tokens_out"` // tokens of every counted output
	ITLsMs       []float64 `json:"vllm_itls_ms"`   // one interval per contributing output (unweighted)
	TPOTMs       float64   `json:"vllm_tpot_ms"`   // Σ intervals / Σ their tokens; 0.0 when nothing is weighted
}

// EngineTPOT applies the token-weighted TPOT rule (METRICS.md §2.6): within
// a continuous segment every output after the segment's first contributes
// its interval since the previous counted output and its tokens; the gap
// before a segment and the first output's tokens (prefill) are excluded.
// Three tokens in one output 30 ms after the previous output is 10 ms/token.
// The simulator uses it to produce the vllm_tpot_ms and vllm_itls_ms it
// reports.
func EngineTPOT(outputs []EngineOutput) EngineTPOTResult {
	steps := make([]tpotStep, 0, len(outputs))
	for _, o := range outputs {
		if o.NewTokens > 0 {
			steps = append(steps, tpotStep{t: o.TMs, tokens: o.NewTokens, seg: strconv.Itoa(o.Segment)})
		}
	}
	return engineTPOT(steps)
}

type tpotStep struct {
	t      float64
	tokens int
	seg    string // canonical JSON-equality key
}

func engineTPOT(steps []tpotStep) EngineTPOTResult {
	res := EngineTPOTResult{ITLsMs: []float64{}}
	var elapsed float64
	weighted := 0
	for i, s := range steps {
		res.NumTokensOut += s.tokens
		if i == 0 || steps[i-1].seg != s.seg {
			continue
		}
		iv := s.t - steps[i-1].t
		res.ITLsMs = append(res.ITLsMs, iv)
		elapsed += iv
		weighted += s.tokens
	}
	if weighted > 0 {
		res.TPOTMs = elapsed / float64(weighted)
	}
	return res
}

// ScoreEngineTPOT applies EngineTPOT to an engine_tpot trace with the JSON
// rules of the vectors: new_tokens counts only as a non-boolean number whose
// truncation toward zero is ≥ 1; segment defaults to 0 when missing, and
// segments compare with Python equality of JSON values (0 = 0.0 = false,
// 0 ≠ "0", null is its own value).
func ScoreEngineTPOT(doc trace.EngineTPOT) EngineTPOTResult {
	steps := make([]tpotStep, 0, len(doc.Outputs))
	for i, o := range doc.Outputs {
		f, ok := number(o.NewTokens)
		if !ok || !finite(f) {
			continue
		}
		n := math.Trunc(f)
		if n < 1 || n > 1e15 {
			continue
		}
		seg := segmentKey(o.Segment)
		if seg == "n:NaN" { // NaN != NaN: every NaN segment is its own
			seg = "nan:" + strconv.Itoa(i)
		}
		steps = append(steps, tpotStep{t: o.TMs, tokens: int(n), seg: seg})
	}
	return engineTPOT(steps)
}

func segmentKey(raw json.RawMessage) string {
	switch kindOf(raw) {
	case jMissing:
		return "n:0"
	case jNull:
		return "null"
	case jBool, jNumber:
		f, _ := numberOrBool(raw)
		return "n:" + strconv.FormatFloat(f, 'g', -1, 64)
	case jString:
		s, _ := str(raw)
		return "s:" + s
	default:
		var b bytes.Buffer
		if json.Compact(&b, raw) != nil {
			return "j:" + string(raw)
		}
		return "j:" + b.String()
	}
}

// Object returns the `score` layout {"kind": "engine_tpot", …}.
func (r EngineTPOTResult) Object() Object {
	itls := make([]any, len(r.ITLsMs))
	for i, v := range r.ITLsMs {
		itls[i] = v
	}
	return Object{
		{"kind", trace.KindEngineTPOT},
		{"num_tokens_out", r.NumTokensOut},
		{"vllm_itls_ms", itls},
		{"vllm_tpot_ms", r.TPOTMs},
	}
}

// TPOTSnapshot is one stage-0 request's token count and TPOT.
type TPOTSnapshot struct {
	NumTokensOut int
	TPOTMs       float64
}

// CombineTPOT combines the TPOTs of several stage-0 requests of one
// response by interval weighting: Σ tpot_i·w_i / Σ w_i with w_i =
// num_tokens_out_i − 1 (clamped at 0), or 0.0 when Σ w_i = 0. Example:
// (3 tokens, 10 ms) and (2 tokens, 40 ms) → 20 ms.
func CombineTPOT(snaps []TPOTSnapshot) float64 {
	var num, den float64
	for _, s := range snaps {
		w := float64(max(0, s.NumTokensOut-1))
		num += s.TPOTMs * w
		den += w
	}
	if den == 0 {
		return 0
	}
	return num / den
}
