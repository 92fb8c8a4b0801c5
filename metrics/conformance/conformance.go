// Package conformance compares a metrics output with a golden vector's
// expected JSON using exactly the tolerance rule of the vectors' README
// ("Tolerance and comparison"): numbers match when |a−e| ≤ 1e-6·max(|a|,|e|)
// or |a−e| ≤ 1e-9 (200 equals 200.0); booleans, strings and null must be
// identical; objects must have the same key set (null and absent differ);
// arrays the same length and order. Key order and whitespace are ignored.
// Python's bare NaN/Infinity tokens are read (a NaN matches only a NaN).
package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"

	"github.com/duplexscope/duplexscope/trace"
)

// Compare returns nil when actual matches expected, else an error naming
// the first differing JSON path.
func Compare(expected, actual []byte) error {
	e, err := decode(expected)
	if err != nil {
		return fmt.Errorf("conformance: expected: %w", err)
	}
	a, err := decode(actual)
	if err != nil {
		return fmt.Errorf("conformance: actual: %w", err)
	}
	return Values("$", e, a)
}

func decode(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(trace.PythonJSON(data)))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("trailing data")
	}
	return v, nil
}

// NumbersMatch is the README's numeric rule.
// A NaN matches only a NaN and an infinity only the same infinity (the
// bare tokens Python writes are compared as tokens).
func NumbersMatch(a, e float64) bool {
	if a == e || math.IsNaN(a) && math.IsNaN(e) {
		return true
	}
	if math.IsInf(a, 0) || math.IsInf(e, 0) || math.IsNaN(a) || math.IsNaN(e) {
		return false
	}
	d := math.Abs(a - e)
	return d <= 1e-6*math.Max(math.Abs(a), math.Abs(e)) || d <= 1e-9
}

// Values compares two values decoded with json.Decoder.UseNumber.
func Values(path string, e, a any) error {
	switch ev := e.(type) {
	case nil:
		if a != nil {
			return fmt.Errorf("%s: expected null, got %s", path, show(a))
		}
	case bool, string:
		if a != e {
			return fmt.Errorf("%s: expected %s, got %s", path, show(e), show(a))
		}
	case json.Number:
		an, ok := a.(json.Number)
		if !ok {
			return fmt.Errorf("%s: expected number %s, got %s", path, ev, show(a))
		}
		ef, ok1 := parseNum(ev)
		af, ok2 := parseNum(an)
		if !ok1 || !ok2 || !NumbersMatch(af, ef) {
			return fmt.Errorf("%s: expected %s, got %s", path, ev, an)
		}
	case []any:
		aa, ok := a.([]any)
		if !ok {
			return fmt.Errorf("%s: expected array, got %s", path, show(a))
		}
		if len(aa) != len(ev) {
			return fmt.Errorf("%s: expected %d elements, got %d", path, len(ev), len(aa))
		}
		for i := range ev {
			if err := Values(fmt.Sprintf("%s[%d]", path, i), ev[i], aa[i]); err != nil {
				return err
			}
		}
	case map[string]any:
		ao, ok := a.(map[string]any)
		if !ok {
			return fmt.Errorf("%s: expected object, got %s", path, show(a))
		}
		keys := make([]string, 0, len(ev)+len(ao))
		for k := range ev {
			keys = append(keys, k)
		}
		for k := range ao {
			if _, ok := ev[k]; !ok {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			evk, inE := ev[k]
			avk, inA := ao[k]
			switch {
			case !inA:
				return fmt.Errorf("%s: key %q missing (expected %s)", path, k, show(evk))
			case !inE:
				return fmt.Errorf("%s: unexpected key %q (= %s)", path, k, show(avk))
			}
			if err := Values(path+"."+k, evk, avk); err != nil {
				return err
			}
		}
	default:
		return fmt.Errorf("%s: unsupported expected value %T", path, e)
	}
	return nil
}

func parseNum(n json.Number) (float64, bool) {
	if string(n) == trace.NaNLiteral {
		return math.NaN(), true
	}
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil {
		ne, ok := err.(*strconv.NumError)
		return f, ok && ne.Err == strconv.ErrRange
	}
	return f, true
}

func show(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%v", v)
	}
	if len(b) > 80 {
		return string(b[:80]) + "…"
	}
	return string(b)
}

// StrictJSON returns nil when b is one standard JSON value that every JSON
// reader accepts as written: encoding/json decodes it (so no bare NaN,
// Infinity or -Infinity token), nothing trails it, and every number with a
// fraction or exponent is a finite float64 (no 1e999 standing in for an
// infinity). Integers may have any size: Python ints are exact. It is the
// check for "duplexscope never writes a non-finite number".
func StrictJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return fmt.Errorf("strict JSON: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("strict JSON: trailing data")
	}
	return finiteNumbers("$", v)
}

func finiteNumbers(path string, v any) error {
	switch v := v.(type) {
	case json.Number:
		s := string(v)
		if bytes.ContainsAny([]byte(s), ".eE") {
			if f, err := strconv.ParseFloat(s, 64); err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
				return fmt.Errorf("strict JSON: %s = %s is not a finite number", path, s)
			}
		}
	case []any:
		for i, e := range v {
			if err := finiteNumbers(fmt.Sprintf("%s[%d]", path, i), e); err != nil {
				return err
			}
		}
	case map[string]any:
		for k, e := range v {
			if err := finiteNumbers(path+"."+k, e); err != nil {
				return err
			}
		}
	}
	return nil
}
