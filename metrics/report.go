package metrics

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/duplexscope/duplexscope/trace"
)

// Report is the duplex_metrics.json payload of a run (docs/metrics.md#report-file): the
// request rows and session entries of every session, and the run-level
// values recomputed from them (docs/metrics.md#run-level). Requests and Sessions are generic
// ordered objects because rows kept from an earlier file are carried over
// as they were.
type Report struct {
	Requests   []Object    // duplex_request_metrics
	Sessions   []Object    // duplex_session_metrics
	StreamTTFT *Summary    // duplex_stream_ttft_ms (nil = absent)
	StreamTTFP *Summary    // duplex_stream_ttfp_ms
	StreamRTF  *Summary    // duplex_stream_rtf, 6 digits
	Flat       []FlatGroup // pooled per-response groups that have values, in FlatNames order
	// Faults are this run's values the reference cannot convert (written as
	// null, see Stage0Tokens.Faults), by row: for validity warnings.
	Faults []Fault
}

// FlatGroup is one group of four flattened keys: num_duplex_<Name>_samples,
// mean_duplex_<Name>, median_duplex_<Name>, p99_duplex_<Name>.
type FlatGroup struct {
	Name    string
	Summary Summary
}

// FlatNames maps row fields to flattened group names, in output order.
var FlatNames = []struct{ Field, Name string }{
	{"ttft_ms", "response_ttft_ms"},
	{"ttfp_ms", "response_ttfp_ms"},
	{"client_ttft_ms", "client_ttft_ms"},
	{"client_ttfp_ms", "client_ttfp_ms"},
}

// NewReport recomputes the run-level values from the two lists (never
// merging earlier summaries).
func NewReport(requests, sessions []Object) Report {
	r := Report{Requests: requests, Sessions: sessions}
	if r.Requests == nil {
		r.Requests = []Object{}
	}
	if r.Sessions == nil {
		r.Sessions = []Object{}
	}
	r.StreamTTFT = summarizeKey(r.Sessions, "stream_ttft_ms", 3)
	r.StreamTTFP = summarizeKey(r.Sessions, "stream_ttfp_ms", 3)
	r.StreamRTF = summarizeKey(r.Sessions, "stream_rtf", 6)
	for _, f := range FlatNames {
		if s := summarizeKey(r.Requests, f.Field, 3); s != nil {
			r.Flat = append(r.Flat, FlatGroup{Name: f.Name, Summary: *s})
		}
	}
	return r
}

// summarizeKey summarises the real, finite, ≥ 0 values of key over objs.
func summarizeKey(objs []Object, key string, digits int) *Summary {
	vals := make([]float64, 0, len(objs))
	for _, o := range objs {
		if v, ok := o.Get(key); ok {
			if f, ok := nonNegReal(v); ok {
				vals = append(vals, f)
			}
		}
	}
	return summarizeOwned(vals, digits)
}

// Objects returns the rows and session entry of results as report objects,
// in order.
func Objects(results []SessionResult) (requests, sessions []Object) {
	requests, sessions = []Object{}, make([]Object, 0, len(results))
	for _, res := range results {
		for _, row := range res.Rows {
			requests = append(requests, row.Object())
		}
		sessions = append(sessions, res.Summary.Object())
	}
	return requests, sessions
}

// BuildReport is the report of one run's sessions (no earlier file).
func BuildReport(results []SessionResult) Report {
	return MergeReport(nil, results)
}

// MergeReport merges this run's results into an existing report (nil = no
// file) by (split, sample_id), docs/metrics.md#merge-on-resume: for each list
// independently, existing entries whose key matches an incoming entry are
// dropped, the rest kept in order, then the incoming entries appended;
// entries without a key (split or sample_id not a non-empty string) are
// never matched. Run-level values are recomputed.
func MergeReport(existing *Report, results []SessionResult) Report {
	req, ses := Objects(results)
	r := Merge(existing, req, ses)
	for _, res := range results {
		for _, row := range res.Rows {
			if row.Stage0 == nil {
				continue
			}
			for _, f := range row.Stage0.Faults {
				sid := "null"
				if row.SessionID != nil {
					sid = strconv.Quote(*row.SessionID)
				}
				r.Faults = append(r.Faults, Fault{
					Path:   fmt.Sprintf("duplex_request_metrics[session_id=%s, response_id=%q].stage0_tokens.%s", sid, row.ResponseID, f.Field),
					Reason: f.Reason})
			}
		}
	}
	return r
}

// Merge is MergeReport on report objects.
func Merge(existing *Report, requests, sessions []Object) Report {
	var oldReq, oldSes []Object
	if existing != nil {
		oldReq, oldSes = existing.Requests, existing.Sessions
	}
	return NewReport(mergeList(oldReq, requests), mergeList(oldSes, sessions))
}

type mergeKey struct{ split, sample string }

func keyOf(o Object) (mergeKey, bool) {
	sp, _ := o.Get("split")
	id, _ := o.Get("sample_id")
	s, ok1 := sp.(string)
	i, ok2 := id.(string)
	if !ok1 || !ok2 || s == "" || i == "" {
		return mergeKey{}, false
	}
	return mergeKey{s, i}, true
}

func mergeList(old, incoming []Object) []Object {
	keys := make(map[mergeKey]bool, len(incoming))
	for _, o := range incoming {
		if k, ok := keyOf(o); ok {
			keys[k] = true
		}
	}
	out := make([]Object, 0, len(old)+len(incoming))
	for _, o := range old {
		if k, ok := keyOf(o); ok && keys[k] {
			continue
		}
		out = append(out, o)
	}
	return append(out, incoming...)
}

// ParseReport reads an existing duplex_metrics.json with the reference's
// checks (docs/metrics.md#merge-on-resume): invalid JSON, a top level that is not an
// object, a list field that is not a list or holds a non-object are errors;
// an absent or null list is empty. Other keys are dropped and the run-level
// values recomputed.
func ParseReport(data []byte) (*Report, error) {
	v, err := ParseValue(data)
	if err != nil {
		return nil, fmt.Errorf("duplex_metrics.json: %w", err)
	}
	top, ok := v.(Object)
	if !ok {
		return nil, errors.New("duplex_metrics.json must contain a JSON object")
	}
	lists := [2][]Object{}
	for i, field := range []string{"duplex_request_metrics", "duplex_session_metrics"} {
		raw, _ := top.Get(field)
		if raw == nil {
			continue
		}
		arr, ok := raw.([]any)
		if !ok {
			return nil, fmt.Errorf("%s must be a JSON list", field)
		}
		for _, e := range arr {
			o, ok := e.(Object)
			if !ok {
				return nil, fmt.Errorf("%s entries must be JSON objects", field)
			}
			lists[i] = append(lists[i], o)
		}
	}
	r := NewReport(lists[0], lists[1])
	return &r, nil
}

// Object returns the report in docs/metrics.md#report-file key order.
func (r Report) Object() Object {
	req := make([]any, len(r.Requests))
	for i, o := range r.Requests {
		req[i] = o
	}
	ses := make([]any, len(r.Sessions))
	for i, o := range r.Sessions {
		ses[i] = o
	}
	o := Object{{"duplex_request_metrics", req}, {"duplex_session_metrics", ses}}
	for _, kv := range []struct {
		k string
		v *Summary
	}{{"duplex_stream_ttft_ms", r.StreamTTFT}, {"duplex_stream_ttfp_ms", r.StreamTTFP}, {"duplex_stream_rtf", r.StreamRTF}} {
		if kv.v != nil {
			o = append(o, Member{kv.k, kv.v.Object()})
		}
	}
	for _, g := range r.Flat {
		o = append(o,
			Member{"num_duplex_" + g.Name + "_samples", g.Summary.Count},
			Member{"mean_duplex_" + g.Name, g.Summary.Mean},
			Member{"median_duplex_" + g.Name, g.Summary.P50},
			Member{"p99_duplex_" + g.Name, g.Summary.P99})
	}
	return o
}

// MarshalJSON writes the report compactly in the file's key order. A non-finite
// value (possible only from a bad server value) is written as null, so the
// output is always JSON; NonFinite names those values for a warning.
func (r Report) MarshalJSON() ([]byte, error) {
	return r.finiteObject().MarshalJSON()
}

// finiteObject is r.Object() with non-finite values as null; copied only
// when there is one.
func (r Report) finiteObject() Object {
	o := r.Object()
	if allFinite(o) {
		return o
	}
	v, _ := Finite(o)
	return v.(Object)
}

// NonFinite returns the JSON paths (in the duplex_metrics.json layout) of
// the values MarshalJSON and File write as null because they are NaN or
// ±Inf.
func (r Report) NonFinite() []string {
	o := r.Object()
	if allFinite(o) {
		return nil
	}
	_, paths := Finite(o)
	return paths
}

// File returns the exact bytes of duplex_metrics.json: Python
// json.dumps(report, ensure_ascii=False, indent=2), no trailing newline.
// Like MarshalJSON it writes non-finite values as null (NonFinite).
func (r Report) File() []byte {
	b, err := appendValue(make([]byte, 0, 4096+3072*len(r.Requests)+2048*len(r.Sessions)), r.finiteObject(), true, 0)
	if err != nil { // unreachable: Finite leaves only encodable values
		panic(err)
	}
	return b
}

// Faults returns the values of results the reference raises on (see
// SessionResult.Faults), each path prefixed with its session's position
// ("sessions[1].request_metrics[0].stage0_tokens.tpot_ms").
func Faults(results []SessionResult) []Fault {
	var out []Fault
	for i, r := range results {
		for _, f := range r.Faults {
			out = append(out, Fault{Path: "sessions[" + strconv.Itoa(i) + "]." + f.Path, Reason: f.Reason})
		}
	}
	return out
}

// ScoreRun scores a kind "run" trace: every non-skipped session in order,
// merged into the trace's existing_report when present (null = no file).
func ScoreRun(run trace.Run) (Report, error) {
	results := make([]SessionResult, 0, len(run.Sessions))
	var faults []Fault
	for i, s := range run.Sessions {
		if s.Skipped {
			continue
		}
		res := ScoreSession(s)
		for _, f := range res.Faults {
			faults = append(faults, Fault{Path: "sessions[" + strconv.Itoa(i) + "]." + f.Path, Reason: f.Reason})
		}
		results = append(results, res)
	}
	if err := faultsErr(faults); err != nil {
		return Report{}, err
	}
	var existing *Report
	if run.HasExistingReport && kindOf(run.ExistingReport) != jNull && len(run.ExistingReport) > 0 {
		var err error
		if existing, err = ParseReport(run.ExistingReport); err != nil {
			return Report{}, fmt.Errorf("existing_report: %w", err)
		}
	}
	return MergeReport(existing, results), nil
}

// RunObject returns the `score` layout of a run: the report with "kind":
// "run" first.
func (r Report) RunObject() Object {
	return append(Object{{"kind", trace.KindRun}}, r.Object()...)
}

// File names of the Omni-DuplexEval metrics file and of the side file that
// keeps this run's metrics when the existing file is corrupt (P15).
const (
	FileName        = "duplex_metrics.json"
	PartialFileName = "duplex_metrics.partial.json"
)

// MergeFile is the resume writer's logic without the I/O: existing is the
// content of the current duplex_metrics.json (nil when the file is
// missing). It returns the bytes to write to FileName. When existing is
// corrupt it returns the merge-on-resume error and, in partial, this run's own report
// for PartialFileName, so the run's metrics are not lost.
func MergeFile(existing []byte, results []SessionResult) (file, partial []byte, err error) {
	var old *Report
	if existing != nil {
		if old, err = ParseReport(existing); err != nil {
			return nil, BuildReport(results).File(), err
		}
	}
	return MergeReport(old, results).File(), nil, nil
}
