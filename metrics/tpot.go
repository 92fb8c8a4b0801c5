package metrics

import (
	"encoding/json"
	"math"
	"sort"
	"strconv"
	"strings"

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
	// NumTokensOut is the tokens of every counted output, saturated at the
	// int range; Tokens is the exact Python int the JSON writers print.
	NumTokensOut int       `json:"-"`
	Tokens       Int       `json:"num_tokens_out"`
	ITLsMs       []float64 `json:"vllm_itls_ms"` // one interval per contributing output (unweighted)
	TPOTMs       float64   `json:"vllm_tpot_ms"` // Σ intervals / Σ their tokens; 0.0 when nothing is weighted
	// Faults: the reference raises (a weighted token sum too large for a
	// float, new_tokens NaN or ±Inf); Score refuses.
	Faults []Fault `json:"-"`
}

// EngineTPOT applies the token-weighted TPOT rule (docs/metrics.md#tpot): within
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
			steps = append(steps, tpotStep{t: o.TMs, tokens: IntOf(int64(o.NewTokens)), seg: strconv.Itoa(o.Segment)})
		}
	}
	return engineTPOT(steps)
}

type tpotStep struct {
	t      float64
	tokens Int
	seg    string // canonical Python-equality key
}

func engineTPOT(steps []tpotStep) EngineTPOTResult {
	res := EngineTPOTResult{ITLsMs: []float64{}}
	var elapsed float64
	var weighted Int
	for i, s := range steps {
		res.Tokens = res.Tokens.Add(s.tokens)
		if i == 0 || steps[i-1].seg != s.seg {
			continue
		}
		iv := s.t - steps[i-1].t
		res.ITLsMs = append(res.ITLsMs, iv)
		elapsed += iv
		weighted = weighted.Add(s.tokens)
	}
	res.NumTokensOut = res.Tokens.Int()
	if weighted.Sign() > 0 {
		// Python float / int converts the int to the nearest float first and
		// raises OverflowError when it has no float.
		w, ok := weighted.Float64()
		if !ok {
			res.Faults = append(res.Faults, Fault{Path: "vllm_tpot_ms", Reason: "the weighted token count " + weighted.String() + " is too large for a float (OverflowError in the reference)"})
		}
		res.TPOTMs = elapsed / w
	}
	return res
}

// ScoreEngineTPOT applies EngineTPOT to an engine_tpot trace with the JSON
// rules of the vectors: new_tokens counts only as a non-boolean number whose
// truncation toward zero (Python int(), exact at any size) is ≥ 1; segment
// defaults to 0 when missing, and segments compare with Python == on the
// decoded JSON values (0 == 0.0 == -0.0 == false, [1] == [1.0], dict key
// order ignored, 0 != "0", null is its own value, NaN != NaN).
func ScoreEngineTPOT(doc trace.EngineTPOT) EngineTPOTResult {
	steps := make([]tpotStep, 0, len(doc.Outputs))
	var faults []Fault
	for i, o := range doc.Outputs {
		if kindOf(o.NewTokens) != jNumber {
			continue
		}
		n, ok := pyIntOf(o.NewTokens)
		if !ok {
			faults = append(faults, Fault{Path: "outputs[" + strconv.Itoa(i) + "].new_tokens", Reason: "int() of a non-finite number raises in the reference"})
			continue
		}
		if n.Sign() <= 0 {
			continue
		}
		seg, ok := segmentKey(o.Segment, true)
		if !ok { // a top-level NaN: NaN != NaN, so every NaN segment is its own
			seg = "nan:" + strconv.Itoa(i)
		}
		steps = append(steps, tpotStep{t: o.TMs, tokens: n, seg: seg})
	}
	res := engineTPOT(steps)
	res.Faults = append(faults, res.Faults...)
	return res
}

// segmentKey returns a string that is equal for two JSON values exactly
// when Python's == holds between them after json.loads. ok is false for a
// top-level NaN, which equals nothing; a nested NaN is json's one NaN
// constant, and containers compare identical elements as equal, so nested
// NaNs are equal.
func segmentKey(raw json.RawMessage, top bool) (string, bool) {
	switch kindOf(raw) {
	case jMissing:
		return "n:0", true
	case jNull:
		return "null", true
	case jBool:
		if trimWS(raw)[0] == 't' {
			return "n:1", true
		}
		return "n:0", true
	case jNumber:
		if v, ok := intLiteral(raw); ok {
			return "n:" + v.String(), true
		}
		f, ok := number(raw)
		if !ok {
			return "j:" + string(trimWS(raw)), true
		}
		switch {
		case math.IsNaN(f):
			return "n:nan", !top
		case math.IsInf(f, 0):
			return "n:" + strconv.FormatFloat(f, 'g', -1, 64), true
		case f == math.Trunc(f):
			v, _ := truncFloat(f) // integral floats equal the same int; -0.0 == 0
			return "n:" + v.String(), true
		}
		return "n:" + strconv.FormatFloat(f, 'g', -1, 64), true
	case jString:
		s, _ := str(raw)
		return "s:" + strconv.Quote(s), true
	case jArray:
		var b strings.Builder
		b.WriteByte('[')
		for i, e := range array(raw) {
			if i > 0 {
				b.WriteByte(',')
			}
			k, _ := segmentKey(e, false)
			b.WriteString(k)
		}
		b.WriteByte(']')
		return b.String(), true
	default:
		o := object(raw)
		keys := make([]string, 0, len(o))
		vals := map[string]string{}
		for _, m := range o { // a repeated key: the last value wins (dict)
			k := string(m.k)
			if _, seen := vals[k]; !seen {
				keys = append(keys, k)
			}
			vals[k], _ = segmentKey(m.v, false)
		}
		sort.Strings(keys)
		var b strings.Builder
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Quote(k))
			b.WriteByte(':')
			b.WriteString(vals[k])
		}
		b.WriteByte('}')
		return b.String(), true
	}
}

// MarshalJSON writes the `score` layout (see Object), strict JSON.
func (r EngineTPOTResult) MarshalJSON() ([]byte, error) { return r.Object().MarshalJSON() }

// Object returns the `score` layout {"kind": "engine_tpot", …}.
func (r EngineTPOTResult) Object() Object {
	itls := make([]any, len(r.ITLsMs))
	for i, v := range r.ITLsMs {
		itls[i] = v
	}
	return Object{
		{"kind", trace.KindEngineTPOT},
		{"num_tokens_out", r.Tokens},
		{"vllm_itls_ms", itls},
		{"vllm_tpot_ms", r.TPOTMs},
	}
}
