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
	"unicode"
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

// CheckJSON checks raw JSON against the limits before it is decoded: size,
// valid UTF-8, nesting depth, array length, string length, and numbers that
// would be non-finite as float64 (1e999). Go's decoder would silently
// replace invalid UTF-8 and accept 10 000 levels of nesting, so this runs
// first. It also refuses what parsers read differently (a parser
// differential lets a report mean one thing to the archive and another to
// a script reading it): duplicate keys in one object, also after case
// folding (Go matches "Model" and "\u017fchema" to the same field, last one
// wins; JavaScript keeps the last exact key, Python too), and lone UTF-16
// surrogate escapes ("\ud800", which Go turns into U+FFFD) in keys and in
// duplexscope's own fields. Wire data keeps the metrics' lone-surrogate
// rule and is never refused for it: the vLLM payload under "metrics", the
// imported file's extra keys under "imported", and values of the keys that
// copy wire text (session_id, response_id, active_response_id, transcript,
// error). The path in the error is the innermost key seen.
func CheckJSON(b []byte, lim Limits) error {
	if lim.Stored {
		return checkJSON(b, lim, nil)
	}
	return checkJSON(b, lim, reportExempt)
}

// wireKeys name values that copy text from the wire (ids the server chose,
// its transcripts and error texts).
var wireKeys = map[string]bool{"session_id": true, "response_id": true, "active_response_id": true, "transcript": true, "error": true}

// reportExempt says which string values of a report may hold lone
// surrogates: top is the top-level key the value is under, key its own key.
func reportExempt(depth int, top, key string) bool {
	return top == "metrics" || top == "imported" || wireKeys[key]
}

// importExempt: an imported vLLM file is wire data except the top-level
// model name the archive lists it under.
func importExempt(depth int, top, key string) bool {
	return !(depth == 1 && (key == "model_id" || key == "model"))
}

// checkJSON is CheckJSON with exempt deciding where string values may hold
// lone surrogates (keys never may); nil exempt skips the parser-differential
// checks (Limits.Stored).
func checkJSON(b []byte, lim Limits, exempt func(depth int, top, key string) bool) error {
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
		count int             // array elements so far
		key   string          // object: the key whose value comes next
		keys  [][]byte        // object: the first keys seen (compared by bytes.EqualFold)
		set   map[string]bool // object: folded keys, past 16 of them
	}
	var stack []frame
	var lastKey string
	// path is the JSON path of the current value ("run.model",
	// "metrics.duplex_request_metrics[3].ttft_ms"), for errors.
	path := func() string {
		var p strings.Builder
		for _, f := range stack {
			if f.array {
				fmt.Fprintf(&p, "[%d]", max(0, f.count-1))
				continue
			}
			if f.key == "" {
				break
			}
			if p.Len() > 0 {
				p.WriteByte('.')
			}
			p.WriteString(f.key)
		}
		return p.String()
	}
	// element counts a value starting inside an array.
	element := func() error {
		if n := len(stack); n > 0 && stack[n-1].array && !lim.Stored {
			stack[n-1].count++
			if lim.MaxArray > 0 && stack[n-1].count > lim.MaxArray {
				return invalid(path(), "array longer than %d elements", lim.MaxArray)
			}
		}
		return nil
	}
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch c {
		case '"':
			start := i + 1
			escaped := false
			i++
			for i < len(b) && b[i] != '"' {
				if b[i] == '\\' {
					escaped = true
					i++
				}
				i++
			}
			if i >= len(b) {
				return invalid("", "unterminated string at byte offset %d", start-1)
			}
			raw := b[start:i]
			if lim.MaxString > 0 && len(raw) > lim.MaxString {
				return invalid(lastKey, "string of %d bytes, limit is %d", len(raw), lim.MaxString)
			}
			// A key: the next non-space byte is ':'.
			j := i + 1
			for j < len(b) && (b[j] == ' ' || b[j] == '\n' || b[j] == '\r' || b[j] == '\t') {
				j++
			}
			n := len(stack)
			if j < len(b) && b[j] == ':' && n > 0 && !stack[n-1].array && exempt == nil {
				if len(raw) <= 256 {
					lastKey = string(raw)
				}
				continue
			}
			if j < len(b) && b[j] == ':' && n > 0 && !stack[n-1].array {
				keyb := raw
				if escaped {
					if loneSurrogate(raw) {
						return invalid(path(), "key with a lone UTF-16 surrogate escape (\\ud800–\\udfff not in a pair)")
					}
					var s string
					if json.Unmarshal(b[start-1:i+1], &s) != nil {
						return invalid(lastKey, "malformed key at byte offset %d", start-1)
					}
					keyb = []byte(s)
				}
				key := string(keyb)
				if len(key) <= 256 {
					lastKey = key
				}
				f := &stack[n-1]
				dup := false
				if f.set != nil {
					dup = f.set[foldKey(key)]
				} else {
					for _, k := range f.keys {
						if bytes.EqualFold(k, keyb) {
							dup = true
							break
						}
					}
				}
				if dup {
					f.key = key
					return invalid(path(), "duplicate key %q in one object (keys must differ, also ignoring case)", key)
				}
				if f.set == nil && len(f.keys) < 16 {
					f.keys = append(f.keys, keyb)
				} else {
					if f.set == nil {
						f.set = make(map[string]bool, 32)
						for _, k := range f.keys {
							f.set[foldKey(string(k))] = true
						}
						f.keys = nil
					}
					f.set[foldKey(key)] = true
				}
				f.key = key
				continue
			}
			if err := element(); err != nil {
				return err
			}
			if escaped && exempt != nil && loneSurrogate(raw) {
				top, key := "", ""
				if n > 0 {
					top = stack[0].key
					if !stack[n-1].array {
						key = stack[n-1].key
					} else if n > 1 && !stack[n-2].array {
						key = stack[n-2].key
					}
				}
				if n == 0 || !exempt(n, top, key) {
					return invalid(path(), "lone UTF-16 surrogate escape (\\ud800–\\udfff not in a pair); send valid Unicode")
				}
			}
		case '{', '[':
			if err := element(); err != nil {
				return err
			}
			// Reuse the popped frame's key buffer at this depth: one
			// allocation per depth, not one per object.
			if n := len(stack); n < cap(stack) {
				stack = stack[:n+1]
				stack[n] = frame{array: c == '[', keys: stack[n].keys[:0]}
			} else {
				stack = append(stack, frame{array: c == '['})
			}
			if lim.MaxDepth > 0 && len(stack) > lim.MaxDepth {
				return invalid(lastKey, "nesting deeper than %d levels", lim.MaxDepth)
			}
		case '}', ']':
			if len(stack) == 0 {
				return invalid("", "unbalanced %q at byte offset %d", c, i)
			}
			stack = stack[:len(stack)-1]
		case 't', 'f', 'n':
			if err := element(); err != nil {
				return err
			}
			for i+1 < len(b) && b[i+1] >= 'a' && b[i+1] <= 'z' {
				i++
			}
		case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
			if err := element(); err != nil {
				return err
			}
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

// loneSurrogate reports whether a raw JSON string body holds a \uD800–\uDFFF
// escape that is not a high surrogate followed by a low one.
func loneSurrogate(raw []byte) bool {
	hex4 := func(i int) (rune, bool) {
		if i+6 > len(raw) || raw[i] != '\\' || raw[i+1] != 'u' {
			return 0, false
		}
		v, err := strconv.ParseUint(string(raw[i+2:i+6]), 16, 16)
		return rune(v), err == nil
	}
	for i := 0; i < len(raw); i++ {
		if raw[i] != '\\' {
			continue
		}
		r, ok := hex4(i)
		if !ok {
			i++ // skip the escaped byte
			continue
		}
		switch {
		case r >= 0xD800 && r <= 0xDBFF:
			lo, ok := hex4(i + 6)
			if !ok || lo < 0xDC00 || lo > 0xDFFF {
				return true
			}
			i += 11
		case r >= 0xDC00 && r <= 0xDFFF:
			return true
		default:
			i += 5
		}
	}
	return false
}

// foldKey maps a key to one representative of its case-folding class, as
// Go's decoder matches field names (Unicode simple folding: "K", "k" and
// U+212A KELVIN SIGN are one key), the classes bytes.EqualFold compares.
func foldKey(k string) string {
	ascii := true
	for i := 0; i < len(k); i++ {
		if k[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return strings.ToUpper(k)
	}
	var b strings.Builder
	for _, r := range k {
		m := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			m = min(m, f)
		}
		b.WriteRune(m)
	}
	return b.String()
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
	run := r.Run
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
