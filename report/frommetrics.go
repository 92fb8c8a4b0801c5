package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/duplexscope/duplexscope/metrics"
)

// Building a report from the metrics package's values without writing and
// re-reading JSON. The result is exactly what New builds from the JSON of
// the same metrics.Report (frommetrics_test.go's oracle proves it over
// the golden and edge vectors): typed fields as encoding/json would decode them, each
// row's JSON as the metrics writer spells it, values the writer nulls
// (issue 16) null.

// FromMetrics builds a report for run from the metrics package's run report
// (docs/metrics.md#report-file), as New does from its JSON. The caller adds
// extras, warnings and attachments, then calls Finish.
func FromMetrics(run Run, dm metrics.Report) (*Report, error) {
	return fromMetrics(run, dm, false)
}

// FromMetricsHTML is FromMetrics with the rows' JSON HTML-escaped (<, >,
// & and U+2028/U+2029 as \u003c …), as json.Marshal writes them: the
// page's reports have always been built from json.Marshal(dm).
func FromMetricsHTML(run Run, dm metrics.Report) (*Report, error) {
	return fromMetrics(run, dm, true)
}

func fromMetrics(run Run, dm metrics.Report, html bool) (*Report, error) {
	m := Metrics{Requests: make([]Row, len(dm.Requests)), Sessions: make([]SessionEntry, len(dm.Sessions)), RunKeys: runKeysOf(dm)}
	for i, o := range dm.Requests {
		c, raw, err := entry(o, html, "duplex_request_metrics", &m.Requests[i])
		if err != nil {
			return nil, err
		}
		m.Requests[i].obj, m.Requests[i].raw = c, raw
	}
	for i, o := range dm.Sessions {
		c, raw, err := entry(o, html, "duplex_session_metrics", &m.Sessions[i])
		if err != nil {
			return nil, err
		}
		m.Sessions[i].obj, m.Sessions[i].raw = c, raw
	}
	return &Report{Schema: Schema, Complete: true, Run: run, Metrics: m}, nil
}

// entry fills *dst (a Row or SessionEntry) from one metrics object and
// returns the object to keep (nil when its JSON would not read back as the
// same strings) and the JSON to keep (nil: written from the object when
// needed). What the typed reader does not mirror exactly (entries carried
// over from an earlier file with other types) is decoded from its JSON, as
// before; a decode error is New's error for the same JSON.
func entry(o metrics.Object, html bool, list string, dst json.Unmarshaler) (metrics.Object, []byte, error) {
	v, _ := metrics.Finite(o) // issue 16: what the writer nulls is null
	c := v.(metrics.Object)
	valid, escape := scanText(c)
	escape = escape && html
	if valid {
		t := typedReader{ok: true}
		if t.fill(reflect.ValueOf(dst).Elem(), c); t.ok {
			if escape {
				return c, htmlEscape(c), nil
			}
			return c, nil, nil // its JSON is written from c when needed
		}
	}
	var raw []byte
	if escape {
		raw = htmlEscape(c)
	} else {
		raw, _ = c.MarshalJSON() // never fails: Finite leaves only encodable values
	}
	if err := dst.UnmarshalJSON(raw); err != nil {
		return nil, nil, decodeError(list, raw)
	}
	if !valid {
		c = nil
	}
	return c, raw, nil
}

// decodeError is ParseMetrics's error for a list holding raw: the same
// decoder on the same list, so the message names the same field.
func decodeError(list string, raw []byte) error {
	b := append([]byte(`{"`+list+`":[`), raw...)
	if _, err := ParseMetrics(append(b, "]}"...)); err != nil {
		return err
	}
	return errEntry // unreachable: the entry alone failed
}

var errEntry = errors.New("parse duplex metrics: an entry is unreadable")

// htmlEscape is c's JSON as json.Marshal writes it.
func htmlEscape(c metrics.Object) []byte {
	raw, _ := c.MarshalJSON()
	var b bytes.Buffer
	json.HTMLEscape(&b, raw)
	return b.Bytes()
}

// scanText reports whether every key and string in v is valid UTF-8 (a lone
// surrogate or a stray byte is written as an escape that reads back as
// U+FFFD) and whether one holds a character json.Marshal escapes for HTML.
func scanText(v any) (valid, html bool) {
	valid = true
	switch v := v.(type) {
	case string:
		return utf8.ValidString(v), strings.ContainsAny(v, "<>&\u2028\u2029")
	case []any:
		for _, e := range v {
			ok, h := scanText(e)
			valid, html = valid && ok, html || h
		}
	case metrics.Object:
		for _, m := range v {
			okKey, hKey := scanText(m.Key)
			ok, h := scanText(m.Value)
			valid, html = valid && okKey && ok, html || hKey || h
		}
	}
	return valid, html
}

// runKeysOf is the run-level keys of mr as its JSON decodes into RunKeys: a
// non-finite value (which the writer nulls) is 0 in a summary and absent
// as a flat key.
func runKeysOf(mr metrics.Report) RunKeys {
	k := RunKeys{StreamTTFT: finiteSummary(mr.StreamTTFT), StreamTTFP: finiteSummary(mr.StreamTTFP), StreamRTF: finiteSummary(mr.StreamRTF)}
	for _, g := range mr.Flat {
		n, mean, p50, p99 := &g.Summary.Count, finitePtr(g.Summary.Mean), finitePtr(g.Summary.P50), finitePtr(g.Summary.P99)
		switch g.Name {
		case "response_ttft_ms":
			k.NumResponseTTFT, k.MeanResponseTTFT, k.MedianResponseTTFT, k.P99ResponseTTFT = n, mean, p50, p99
		case "response_ttfp_ms":
			k.NumResponseTTFP, k.MeanResponseTTFP, k.MedianResponseTTFP, k.P99ResponseTTFP = n, mean, p50, p99
		case "client_ttft_ms":
			k.NumClientTTFT, k.MeanClientTTFT, k.MedianClientTTFT, k.P99ClientTTFT = n, mean, p50, p99
		case "client_ttfp_ms":
			k.NumClientTTFP, k.MeanClientTTFP, k.MedianClientTTFP, k.P99ClientTTFP = n, mean, p50, p99
		}
	}
	return k
}

func finitePtr(f float64) *float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil
	}
	return &f
}

// finiteOr0 is f, or 0 for NaN and ±Inf (metrics.Finite's null, decoded).
func finiteOr0(f float64) float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0
	}
	return f
}

func finiteSummary(s *Summary) *Summary {
	if s == nil {
		return nil
	}
	return &Summary{Count: s.Count, Mean: finiteOr0(s.Mean), P50: finiteOr0(s.P50), P99: finiteOr0(s.P99)}
}

// typedReader sets Go fields from metrics values the way encoding/json
// decodes their JSON; ok turns false at any value it does not mirror
// exactly (the caller then decodes the JSON).
type typedReader struct{ ok bool }

var numberType = reflect.TypeFor[json.Number]()

// fill sets the zero struct v from o (a metrics object repeats no key).
func (t *typedReader) fill(v reflect.Value, o metrics.Object) {
	names := jsonNames(v.Type())
	for _, m := range o {
		if i := slices.Index(names, m.Key); i >= 0 && m.Key != "" {
			t.set(v.Field(i), m.Value)
			continue
		}
		// encoding/json ignores a key that is no field's name but fills a
		// field whose name it matches case-insensitively.
		for _, name := range names {
			if name != "" && strings.EqualFold(m.Key, name) {
				t.ok = false
			}
		}
	}
}

func (t *typedReader) set(f reflect.Value, v any) {
	if v == nil {
		return // f is new, so null leaves it nil or zero, as encoding/json does
	}
	switch f.Kind() {
	case reflect.Pointer:
		p := reflect.New(f.Type().Elem())
		t.set(p.Elem(), v)
		f.Set(p)
	case reflect.String:
		t.setString(f, v)
	case reflect.Int:
		if n, ok := intOf(v); ok {
			f.SetInt(n)
			return
		}
		t.ok = false
	case reflect.Float64:
		switch v := v.(type) {
		case float64:
			f.SetFloat(v)
		case int: // rounded to nearest, as strconv.ParseFloat reads the decimal
			f.SetFloat(float64(v))
		case int64:
			f.SetFloat(float64(v))
		default:
			t.ok = false
		}
	case reflect.Slice:
		a, ok := v.([]any)
		if !ok {
			t.ok = false
			return
		}
		s := reflect.MakeSlice(f.Type(), len(a), len(a))
		for i, e := range a {
			t.set(s.Index(i), e)
		}
		f.Set(s)
	case reflect.Struct:
		o, ok := v.(metrics.Object)
		if !ok {
			t.ok = false
			return
		}
		t.fill(f, o)
	default:
		t.ok = false
	}
}

// setString sets a string field, or a json.Number to the literal written.
func (t *typedReader) setString(f reflect.Value, v any) {
	if f.Type() == numberType {
		if n, ok := intOf(v); ok {
			f.SetString(strconv.FormatInt(n, 10))
		} else if x, ok := v.(metrics.Int); ok {
			f.SetString(x.String())
		} else {
			t.ok = false
		}
		return
	}
	if s, ok := v.(string); ok {
		f.SetString(s)
		return
	}
	t.ok = false
}

// intOf is an integer value that fits an int64.
func intOf(v any) (int64, bool) {
	switch v := v.(type) {
	case int:
		return int64(v), true
	case int64:
		return v, true
	case metrics.Int:
		n, err := strconv.ParseInt(v.String(), 10, 64)
		return n, err == nil
	}
	return 0, false
}

var namesCache sync.Map // reflect.Type → []string

// jsonNames are the JSON names of t's fields by index ("" for none).
func jsonNames(t reflect.Type) []string {
	if names, ok := namesCache.Load(t); ok {
		return names.([]string)
	}
	names := make([]string, t.NumField())
	for i := range names {
		if f := t.Field(i); f.IsExported() {
			names[i], _, _ = strings.Cut(f.Tag.Get("json"), ",")
		}
	}
	namesCache.Store(t, names)
	return names
}
