package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Marshal writes the report as compact JSON without HTML escaping (rows
// keep their key order and number spelling).
func Marshal(r *Report) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		return nil, fmt.Errorf("encode report: %w", err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// MarshalIndent writes the report as indented JSON without HTML escaping.
func MarshalIndent(r *Report) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(r); err != nil {
		return nil, fmt.Errorf("encode report: %w", err)
	}
	return buf.Bytes(), nil
}

// VLLM writes the duplex_metrics.json of the report in vLLM's own layout
// (docs/metrics.md#report-file: key order, Python json.dumps(indent=2,
// ensure_ascii=False), Python float repr, no trailing newline), using the
// metrics package's writer.
func VLLM(r *Report) ([]byte, error) {
	mr, err := metricsReport(r.Metrics.Requests, r.Metrics.Sessions)
	if err != nil {
		return nil, fmt.Errorf("export vllm: %w", err)
	}
	return mr.File(), nil
}

// CSVColumns are the columns of the CSV export, one row per response.
var CSVColumns = []string{
	"session_id", "sample_id", "split", "request_index", "response_id", "source",
	"ttft_ms", "ttfp_ms", "tpot_ms", "rtf", "audio_generation_ms", "audio_duration_ms",
	"client_ttft_ms", "client_ttfp_ms", "heard_ttfp_ms", "output_token_count",
	"ttft_origin", "ttfp_origin", "speech_end_to_heard_ms",
}

// CSV writes one row per response with CSVColumns as the header. Empty
// cells are nulls. Text cells that a spreadsheet would run as a formula
// (leading = + - @ tab CR) are prefixed with a single quote.
func CSV(w io.Writer, r *Report) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(CSVColumns); err != nil {
		return err
	}
	heard := map[[2]string]*float64{}
	speech := map[[2]string]*float64{}
	for _, x := range r.Responses {
		heard[[2]string{x.SessionID, x.ResponseID}] = x.HeardTTFPMs
		speech[[2]string{x.SessionID, x.ResponseID}] = x.SpeechEndToHeardMs
	}
	num := func(v *float64) string {
		if v == nil {
			return ""
		}
		return strconv.FormatFloat(*v, 'f', -1, 64)
	}
	str := func(p *string) string {
		if p == nil {
			return ""
		}
		return csvText(*p)
	}
	for _, row := range r.Metrics.Requests {
		var tokens, to, po string
		if row.Stage0 != nil {
			tokens = row.Stage0.OutputTokenCount.String()
		}
		if row.MeasurementOrigin != nil {
			to, po = csvText(row.MeasurementOrigin.TTFT), csvText(row.MeasurementOrigin.TTFP)
		}
		rec := []string{
			str(row.SessionID), str(row.SampleID), str(row.Split), strconv.Itoa(row.RequestIndex), str(row.ResponseID), csvText(row.Source),
			num(row.TTFTMs), num(row.TTFPMs), num(row.TPOTMs), num(row.RTF), num(row.AudioGenerationMs), num(row.AudioDurationMs),
			num(row.ClientTTFTMs), num(row.ClientTTFPMs), num(heard[[2]string{deref(row.SessionID), deref(row.ResponseID)}]), tokens,
			to, po, num(speech[[2]string{deref(row.SessionID), deref(row.ResponseID)}]),
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func csvText(s string) string {
	if s == "" {
		return s
	}
	if r, _ := utf8.DecodeRuneInString(s); strings.ContainsRune("=+-@\t\r", r) {
		return "'" + s
	}
	return s
}
