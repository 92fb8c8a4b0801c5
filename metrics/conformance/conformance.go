// Package conformance compares a metrics output with a golden vector's
// expected JSON using exactly the tolerance rule of the vectors' README
// ("Tolerance and comparison"): numbers match when |a−e| ≤ 1e-6·max(|a|,|e|)
// or |a−e| ≤ 1e-9 (200 equals 200.0); booleans, strings and null must be
// identical; objects must have the same key set (null and absent differ);
// arrays the same length and order. Key order and whitespace are ignored.
package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
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
	dec := json.NewDecoder(bytes.NewReader(data))
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
func NumbersMatch(a, e float64) bool {
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
		ef, err1 := strconv.ParseFloat(string(ev), 64)
		af, err2 := strconv.ParseFloat(string(an), 64)
		if err1 != nil || err2 != nil || !NumbersMatch(af, ef) {
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
