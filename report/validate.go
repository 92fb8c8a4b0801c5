package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/url"
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
	// Stored relaxes the rules added after reports were first archived
	// (duplicate keys, lone surrogates, array length, target_url scheme),
	// for re-reading what an archive already holds: a report stored by an
	// older version stays readable. Never set it for uploads.
	Stored bool
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
	if te, ok := errors.AsType[*json.UnmarshalTypeError](err); ok {
		return invalid(te.Field, "want %s, got JSON %s", te.Type, te.Value)
	}
	if se, ok := errors.AsType[*json.SyntaxError](err); ok {
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
	if !utf8.ValidString(s) {
		c.add(path, "not valid UTF-8")
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

// targetSchemes are the schemes a run's target_url may have: the
// websocket it measured (ws, wss) or an http(s) base (imports, proxies).
var targetSchemes = map[string]bool{"ws": true, "wss": true, "http": true, "https": true}

// Validate checks a decoded report against schema v1.
func Validate(r *Report, lim Limits) error {
	var c checker
	if r.Schema != Schema {
		c.add("schema", "must be %q, got %q", Schema, r.Schema)
	}
	c.str("id", r.ID, 64, false)
	c.run(r.Run, lim)
	c.metrics(r.Metrics, lim)
	c.warnings(r.Warnings)
	c.attachments(r.Attachments)
	c.responses(r)
	c.sessions(r.Sessions)
	if r.Imported != nil {
		c.enum("imported.format", r.Imported.Format, FormatDuplexMetrics, FormatSaveResult)
	}
	c.beyond(r)
	if len(c.errs) > 0 {
		return &ValidationError{Errors: c.errs}
	}
	return nil
}

// run checks the run object.
func (c *checker) run(run Run, lim Limits) {
	c.str("run.model", run.Model, 256, true)
	c.str("run.target_url", run.TargetURL, 2048, false)
	if run.TargetURL != "" {
		if u, err := url.Parse(run.TargetURL); err != nil || u.Scheme == "" {
			c.add("run.target_url", "not an absolute URL")
		} else if !targetSchemes[u.Scheme] && !lim.Stored {
			c.add("run.target_url", "scheme %q is not allowed: want ws, wss, http or https", u.Scheme)
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
	for _, fe := range CheckLabels(run.Name, run.Notes, run.Tags) {
		c.add(fe.Path, "%s", fe.Reason)
	}
}

// metrics checks the vLLM payload's rows and session entries.
func (c *checker) metrics(m Metrics, lim Limits) {
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
}

// warnings checks the warnings: known codes, bounded messages.
func (c *checker) warnings(ws []Warning) {
	for i, w := range ws {
		p := fmt.Sprintf("warnings[%d]", i)
		if _, ok := WarningCodes[w.Code]; !ok {
			c.add(p+".code", "unknown warning code %q", w.Code)
		}
		c.str(p+".message", w.Message, 2048, false)
	}
}

// attachments checks the attachment list: safe, distinct names.
func (c *checker) attachments(as []Attachment) {
	seen := map[string]bool{}
	for i, a := range as {
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
}

// responses checks the per-response extras and the speech-end summary,
// which must count exactly the responses that carry the value.
func (c *checker) responses(r *Report) {
	speechEnd := 0
	for i, x := range r.Responses {
		p := fmt.Sprintf("responses[%d]", i)
		c.num(p+".heard_ttfp_ms", x.HeardTTFPMs, false)
		c.num(p+".speech_end_to_heard_ms", x.SpeechEndToHeardMs, true)
		if x.SpeechEndToHeardMs != nil {
			speechEnd++
		}
		if x.Underruns < 0 {
			c.add(p+".underruns", "negative")
		}
		c.str(p+".transcript", x.Transcript, 16<<10, false)
	}
	if s := r.SpeechEndToHeard; s != nil {
		c.summary("speech_end_to_heard_ms", &s.Summary)
		c.enum("speech_end_to_heard_ms.playback", s.Playback, PlaybackReal, PlaybackSimulated)
		if s.Count != speechEnd {
			c.add("speech_end_to_heard_ms.count", "is %d but %d responses have speech_end_to_heard_ms", s.Count, speechEnd)
		}
		if s.Playback == PlaybackReal && r.Run.Client == ClientCLI {
			c.add("speech_end_to_heard_ms.playback", "a cli run's playback is simulated, not real")
		}
	} else if speechEnd > 0 {
		c.add("speech_end_to_heard_ms", "required when responses carry speech_end_to_heard_ms (%d do)", speechEnd)
	}
}

// sessions checks duplexscope's per-session extras.
func (c *checker) sessions(ss []SessionExtra) {
	for i, s := range ss {
		p := fmt.Sprintf("sessions[%d]", i)
		c.str(p+".error", s.Error, 4096, false)
		c.num(p+".pacing_lag_p99_ms", s.PacingLagP99, false)
		c.num(p+".pacing_lag_max_ms", s.PacingLagMax, false)
		if s.VideoFramesSent < 0 {
			c.add(p+".video_frames_sent", "negative")
		}
	}
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
