package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Limits bound what Decode and CheckJSON accept.
type Limits struct {
	MaxBytes  int // whole document
	MaxDepth  int // nesting of objects and arrays
	MaxArray  int // elements of any one array
	MaxString int // bytes of any one string (keys included)
	MaxRows   int // duplex_request_metrics rows
}

// DefaultLimits are the upload limits of the archive.
var DefaultLimits = Limits{
	MaxBytes:  32 << 20,
	MaxDepth:  32,
	MaxArray:  200_000,
	MaxString: 64 << 10,
	MaxRows:   100_000,
}

// FieldError is one validation problem: a JSON path ("run.model",
// "metrics.duplex_request_metrics[3].ttft_ms") and the reason.
type FieldError struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

func (e FieldError) Error() string {
	if e.Path == "" {
		return e.Reason
	}
	return e.Path + ": " + e.Reason
}

// ValidationError lists every problem found; it is what Decode returns for
// a document that parses but breaks the schema, or that cannot be parsed.
type ValidationError struct {
	Errors []FieldError `json:"errors"`
}

func (e *ValidationError) Error() string {
	var b strings.Builder
	b.WriteString("invalid report: ")
	for i, fe := range e.Errors {
		if i == 5 {
			fmt.Fprintf(&b, "; and %d more", len(e.Errors)-5)
			break
		}
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(fe.Error())
	}
	return b.String()
}

func invalid(path, reason string, args ...any) *ValidationError {
	return &ValidationError{Errors: []FieldError{{Path: path, Reason: fmt.Sprintf(reason, args...)}}}
}

// CheckJSON checks raw JSON against the limits before it is decoded: size,
// valid UTF-8, nesting depth, array length, string length, and numbers that
// would be non-finite as float64 (1e999). Go's decoder would silently
// replace invalid UTF-8 and accept 10 000 levels of nesting, so this runs
// first. The path in the error is approximate (the innermost key seen).
func CheckJSON(b []byte, lim Limits) error {
	if lim.MaxBytes > 0 && len(b) > lim.MaxBytes {
		return invalid("", "document is %d bytes, limit is %d", len(b), lim.MaxBytes)
	}
	if !utf8.Valid(b) {
		i := 0
		for i < len(b) {
			r, n := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && n <= 1 {
				break
			}
			i += n
		}
		return invalid("", "invalid UTF-8 at byte offset %d", i)
	}
	type frame struct {
		array bool
		count int
	}
	var stack []frame
	var lastKey string
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch c {
		case '"':
			start := i + 1
			i++
			for i < len(b) && b[i] != '"' {
				if b[i] == '\\' {
					i++
				}
				i++
			}
			if i >= len(b) {
				return invalid("", "unterminated string at byte offset %d", start-1)
			}
			if lim.MaxString > 0 && i-start > lim.MaxString {
				return invalid(lastKey, "string of %d bytes, limit is %d", i-start, lim.MaxString)
			}
			// A key: the next non-space byte is ':'.
			j := i + 1
			for j < len(b) && (b[j] == ' ' || b[j] == '\n' || b[j] == '\r' || b[j] == '\t') {
				j++
			}
			if j < len(b) && b[j] == ':' && i-start <= 256 {
				lastKey = string(b[start:i])
			}
		case '{', '[':
			if len(stack) > 0 && stack[len(stack)-1].array && stack[len(stack)-1].count == 0 {
				stack[len(stack)-1].count = 1
			}
			stack = append(stack, frame{array: c == '['})
			if lim.MaxDepth > 0 && len(stack) > lim.MaxDepth {
				return invalid(lastKey, "nesting deeper than %d levels", lim.MaxDepth)
			}
		case '}', ']':
			if len(stack) == 0 {
				return invalid("", "unbalanced %q at byte offset %d", c, i)
			}
			stack = stack[:len(stack)-1]
		case ',':
			if n := len(stack); n > 0 && stack[n-1].array {
				stack[n-1].count++
				if lim.MaxArray > 0 && stack[n-1].count > lim.MaxArray {
					return invalid(lastKey, "array longer than %d elements", lim.MaxArray)
				}
			}
		case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
			j := i
			for j < len(b) && strings.IndexByte("+-0123456789.eE", b[j]) >= 0 {
				j++
			}
			f, err := strconv.ParseFloat(string(b[i:j]), 64)
			if err != nil && !errors.Is(err, strconv.ErrRange) {
				return invalid(lastKey, "malformed number %q", b[i:j])
			}
			if math.IsInf(f, 0) {
				return invalid(lastKey, "number %q is out of float64 range (non-finite numbers are not allowed)", b[i:j])
			}
			i = j - 1
		case 'N', 'I':
			return invalid(lastKey, "NaN and Infinity are not JSON; non-finite numbers are not allowed")
		}
	}
	return nil
}

// Decode parses and validates an uploaded report (CheckJSON, strict
// decoding of our own objects, then Validate). Errors are *ValidationError.
func Decode(b []byte, lim Limits) (*Report, error) {
	if err := CheckJSON(b, lim); err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var r Report
	if err := dec.Decode(&r); err != nil {
		return nil, jsonError(err)
	}
	if dec.More() {
		return nil, invalid("", "trailing data after the report object")
	}
	if err := Validate(&r, lim); err != nil {
		return nil, err
	}
	return &r, nil
}

// jsonError turns a decoder error into a ValidationError with a path.
func jsonError(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return invalid(te.Field, "want %s, got JSON %s", te.Type, te.Value)
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return invalid("", "malformed JSON at byte offset %d: %v", se.Offset, se)
	}
	msg := err.Error()
	if rest, ok := strings.CutPrefix(msg, "json: unknown field "); ok {
		return invalid(strings.Trim(rest, `"`), "unknown field (schema %s)", Schema)
	}
	return invalid("", "malformed JSON: %v", err)
}

type checker struct {
	errs []FieldError
}

func (c *checker) add(path, reason string, args ...any) {
	if len(c.errs) < 100 {
		c.errs = append(c.errs, FieldError{Path: path, Reason: fmt.Sprintf(reason, args...)})
	}
}

func (c *checker) str(path, s string, max int, required bool) {
	if required && strings.TrimSpace(s) == "" {
		c.add(path, "required")
	}
	if len(s) > max {
		c.add(path, "longer than %d bytes", max)
	}
	if strings.ContainsRune(s, 0) {
		c.add(path, "contains a NUL character")
	}
}

func (c *checker) enum(path, s string, allowed ...string) {
	for _, a := range allowed {
		if s == a {
			return
		}
	}
	c.add(path, "%q is not one of %s", s, strings.Join(allowed, ", "))
}

func (c *checker) num(path string, v *float64, nonneg bool) {
	if v == nil {
		return
	}
	if math.IsNaN(*v) || math.IsInf(*v, 0) {
		c.add(path, "not a finite number")
	} else if nonneg && *v < 0 {
		c.add(path, "negative")
	}
}

func (c *checker) summary(path string, s *Summary) {
	if s == nil {
		return
	}
	if s.Count < 0 {
		c.add(path+".count", "negative")
	}
	for _, f := range []struct {
		n string
		v float64
	}{{"mean", s.Mean}, {"p50", s.P50}, {"p99", s.P99}} {
		v := f.v
		c.num(path+"."+f.n, &v, false)
	}
}

// Validate checks a decoded report against schema v1.
func Validate(r *Report, lim Limits) error {
	var c checker
	if r.Schema != Schema {
		c.add("schema", "must be %q, got %q", Schema, r.Schema)
	}
	c.str("id", r.ID, 64, false)
	run := r.Run
	c.str("run.model", run.Model, 256, true)
	c.str("run.target_url", run.TargetURL, 2048, false)
	if run.TargetURL != "" {
		if u, err := url.Parse(run.TargetURL); err != nil || u.Scheme == "" {
			c.add("run.target_url", "not an absolute URL")
		}
	}
	c.str("run.profile", run.Profile, 256, false)
	c.str("run.duplexscope_version", run.Version, 128, false)
	if run.FrameMs < 0 || run.FrameMs > 10_000 {
		c.add("run.frame_ms", "must be within 0…10000, got %d", run.FrameMs)
	}
	if run.Concurrency < 0 || run.Concurrency > 100_000 {
		c.add("run.concurrency", "must be within 0…100000")
	}
	c.enum("run.client", run.Client, ClientBrowser, ClientCLI, ClientImport)
	c.enum("run.source.kind", run.Source.Kind, SourceMic, SourceDataset, SourceImport)
	c.str("run.source.dataset", run.Source.Dataset, 256, run.Source.Kind == SourceDataset)
	c.str("run.source.split", run.Source.Split, 256, false)
	for _, f := range []struct{ p, v string }{
		{"run.machine.os", run.Machine.OS}, {"run.machine.arch", run.Machine.Arch},
		{"run.machine.hostname", run.Machine.Hostname}, {"run.machine.user_agent", run.Machine.UserAgent},
		{"run.machine.go_version", run.Machine.GoVersion}, {"run.started_at", run.StartedAt}, {"run.ended_at", run.EndedAt},
	} {
		c.str(f.p, f.v, 1024, false)
	}
	c.str("run.run_id", run.RunID, 128, false)
	if run.RunID != "" && !validName(run.RunID) {
		c.add("run.run_id", "may hold only letters, digits, '.', '_' and '-'")
	}
	if s := run.Shard; s != nil {
		if run.RunID == "" {
			c.add("run.shard", "needs run.run_id")
		}
		if s.Count < 1 || s.Count > 1024 {
			c.add("run.shard.count", "must be within 1…1024, got %d", s.Count)
		}
		if s.Index < 1 || s.Index > s.Count {
			c.add("run.shard.index", "must be within 1…count (%d), got %d", s.Count, s.Index)
		}
	}
	m := r.Metrics
	if lim.MaxRows > 0 && len(m.Requests) > lim.MaxRows {
		c.add("metrics.duplex_request_metrics", "%d rows, limit is %d", len(m.Requests), lim.MaxRows)
	}
	for i, row := range m.Requests {
		p := fmt.Sprintf("metrics.duplex_request_metrics[%d]", i)
		if row.ResponseID == nil {
			c.add(p+".response_id", "required")
		}
		if row.RequestIndex < 0 {
			c.add(p+".request_index", "negative")
		}
		if row.Source != "" {
			c.enum(p+".source", row.Source, SourceServer, SourceClient)
		}
		for _, name := range []string{"ttft_ms", "ttfp_ms", "rtf", "tpot_ms", "client_ttft_ms", "client_ttfp_ms"} {
			c.num(p+"."+name, row.Metric(name), false)
		}
		c.num(p+".audio_generation_ms", row.AudioGenerationMs, true)
		c.num(p+".audio_duration_ms", row.AudioDurationMs, true)
	}
	for i, s := range m.Sessions {
		p := fmt.Sprintf("metrics.duplex_session_metrics[%d]", i)
		if s.AudioTurnCount < 0 {
			c.add(p+".audio_turn_count", "negative")
		}
		c.summary(p+".ttft_ms", s.TTFTMs)
		c.summary(p+".ttfp_ms", s.TTFPMs)
		c.summary(p+".rtf", s.RTF)
	}
	for i, w := range r.Warnings {
		p := fmt.Sprintf("warnings[%d]", i)
		if _, ok := WarningCodes[w.Code]; !ok {
			c.add(p+".code", "unknown warning code %q", w.Code)
		}
		c.str(p+".message", w.Message, 2048, false)
	}
	seen := map[string]bool{}
	for i, a := range r.Attachments {
		p := fmt.Sprintf("attachments[%d]", i)
		if err := CheckAttachmentName(a.Name); err != nil {
			c.add(p+".name", "%v", err)
		}
		if seen[a.Name] {
			c.add(p+".name", "duplicate attachment %q", a.Name)
		}
		seen[a.Name] = true
		c.enum(p+".kind", a.Kind, AttachWireLog, AttachInputAudio, AttachOutputAudio, AttachOther)
		if a.SizeBytes < 0 {
			c.add(p+".size_bytes", "negative")
		}
		c.str(p+".content_type", a.ContentType, 128, false)
	}
	for i, x := range r.Responses {
		p := fmt.Sprintf("responses[%d]", i)
		c.num(p+".heard_ttfp_ms", x.HeardTTFPMs, false)
		if x.Underruns < 0 {
			c.add(p+".underruns", "negative")
		}
		c.str(p+".transcript", x.Transcript, 16<<10, false)
	}
	for i, s := range r.Sessions {
		p := fmt.Sprintf("sessions[%d]", i)
		c.str(p+".error", s.Error, 4096, false)
		c.num(p+".pacing_lag_p99_ms", s.PacingLagP99, false)
		c.num(p+".pacing_lag_max_ms", s.PacingLagMax, false)
		if s.VideoFramesSent < 0 {
			c.add(p+".video_frames_sent", "negative")
		}
	}
	if r.Imported != nil {
		c.enum("imported.format", r.Imported.Format, FormatDuplexMetrics, FormatSaveResult)
	}
	c.beyond(r)
	if len(c.errs) > 0 {
		return &ValidationError{Errors: c.errs}
	}
	return nil
}

// validName reports whether s is a safe identifier: 1–128 of [A-Za-z0-9._-],
// not starting with '.'.
func validName(s string) bool {
	if s == "" || len(s) > 128 || s[0] == '.' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// CheckAttachmentName returns an error unless name is a safe attachment name
// (1–128 of [A-Za-z0-9._-], not starting with '.', so no paths).
func CheckAttachmentName(name string) error {
	if !validName(name) {
		return fmt.Errorf("attachment name %q must be 1–128 of [A-Za-z0-9._-], not starting with '.'", name)
	}
	return nil
}

// ValidRunID reports whether id is an acceptable run id.
func ValidRunID(id string) bool { return validName(id) }
