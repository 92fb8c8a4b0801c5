package report

import (
	"errors"
	"fmt"
	"strings"

	"github.com/duplexscope/duplexscope/metrics"
	"github.com/duplexscope/duplexscope/trace"
)

// Non-finite server values (issue 16). The reference raises on them and
// `score` refuses, but a run, a replay, the page and /api/import must not be
// lost over one bad value: it is written as null and named in a validity
// warning (WarnInvalidValue), one per value up to maxValueWarnings.

// maxValueWarnings bounds the warnings one report gets for invalid values
// (a server that sends NaN everywhere would otherwise make thousands).
const maxValueWarnings = 20

// ValueWarnings returns the warnings for the values dm writes as null: the
// NaN/±Inf ones (metrics.Report.NonFinite) and the ones the reference
// cannot convert (metrics.Report.Faults).
func ValueWarnings(dm metrics.Report) []Warning {
	var items []string
	for _, p := range dm.NonFinite() {
		items = append(items, p+" was not a finite number")
	}
	for _, f := range dm.Faults {
		items = append(items, f.Path+": "+f.Reason)
	}
	return valueWarnings(items)
}

func valueWarnings(items []string) []Warning {
	var out []Warning
	for i, it := range items {
		if i == maxValueWarnings-1 && len(items) > maxValueWarnings {
			out = append(out, Warning{Code: WarnInvalidValue, Message: fmt.Sprintf("%d more invalid server values were written as null.", len(items)-i)})
			break
		}
		out = append(out, Warning{Code: WarnInvalidValue, Message: clipMessage("metrics." + it + "; written as null.")})
	}
	return out
}

func clipMessage(s string) string {
	const limit = 1024 // Validate allows 2048 bytes
	if len(s) <= limit {
		return s
	}
	return s[:limit] + "…"
}

// nullNonFinite rewrites a vLLM file whose only defect is non-finite numbers
// (Python's json.dump writes NaN and Infinity, or a literal beyond float64
// such as 1e999) in its metric values — the rows, the session entries and
// the run-level keys (recomputed anyway) — into strict JSON with null
// there, returning the JSON paths it replaced. ok is false when the file
// has none, has one anywhere else (an unknown key is no server value: the
// document stays refused), or is not JSON: the caller then uses the
// original bytes unchanged.
func nullNonFinite(b []byte) (out []byte, paths []string, ok bool) {
	v, err := metrics.ParseValue(trace.PythonJSON(b))
	if err != nil {
		return nil, nil, false
	}
	clean, paths := metrics.Finite(v)
	if len(paths) == 0 {
		return nil, nil, false
	}
	for _, p := range paths {
		if !metricsValuePath(p) {
			return nil, nil, false // not a server value: the document stays refused
		}
	}
	o, isObj := clean.(metrics.Object)
	if !isObj {
		return nil, nil, false
	}
	out, err = o.MarshalJSON()
	if err != nil {
		return nil, nil, false
	}
	return out, paths, true
}

// importNonFinite is Import's first step: a file CheckJSON rejects only for
// non-finite numbers is rewritten by nullNonFinite, and the warnings naming
// the replaced values are returned for the report.
func importNonFinite(b []byte, lim Limits) ([]byte, []Warning) {
	if _, ok := errors.AsType[*ValidationError](CheckJSON(b, lim)); !ok {
		return b, nil
	}
	fixed, paths, ok := nullNonFinite(b)
	if !ok || CheckJSON(fixed, lim) != nil {
		return b, nil // the original error stands
	}
	items := make([]string, len(paths))
	for i, p := range paths {
		items[i] = p + " was NaN or ±Infinity in the file"
	}
	return fixed, valueWarnings(items)
}

// metricsValuePath reports a Finite path inside the metric lists or a
// run-level key.
func metricsValuePath(p string) bool {
	if strings.HasPrefix(p, "duplex_request_metrics[") || strings.HasPrefix(p, "duplex_session_metrics[") {
		return true
	}
	key, _, _ := strings.Cut(p, ".")
	return isRunKey(key)
}
