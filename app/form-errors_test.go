package app

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/duplexscope/duplexscope/session"
)

// TestParseSettingsRejectsUnknownValues: every value the page would not
// run as given is an error naming the parameter, the value and what is
// accepted, and the setting keeps its default (never a silent substitute).
func TestParseSettingsRejectsUnknownValues(t *testing.T) {
	t.Parallel()
	def := DefaultSettings("127.0.0.1:8080", false)
	tests := []struct {
		query string
		want  []string // substrings of the one error
	}{
		{"profile=nope", []string{"profile=", `"nope"`, "minicpmo, periodic, personaplex, test"}},
		{"source=dataset:../etc", []string{"source=", `"dataset:../etc"`, "mic or dataset:NAME"}},
		{"source=microphone", []string{"source=", `"microphone"`, "builtin"}},
		{"frame_ms=abc", []string{"frame_ms=", `"abc"`, "80, 200, 1000 ms"}},
		{"frame_ms=0", []string{"frame_ms=", `"0"`, "1 to 10000"}},
		{"view=graphs", []string{"view=", `"graphs"`, "live, timeline, log, plain"}},
		{"proxy=yes", []string{"proxy=", `"yes"`, "1 or 0"}},
		{"autostart=on", []string{"autostart=", `"on"`, "1 or 0"}},
		{"audible=2", []string{"audible=", `"2"`, "1 or 0"}},
		{"url=ftp%3A%2F%2Fh%2F", []string{"url=", `"ftp://h/"`, "ws://"}},
		{"duration_s=-1", []string{"duration_s=", `"-1"`, "0 or more"}},
		{"transport=udp", []string{"transport=", `"udp"`, "browser or coder"}},
		{"video=screen", []string{"video=", `"screen"`, "camera or off"}},
		{"behavior=sings", []string{"behavior=", `"sings"`, "yields"}},
		{"session_thread=gpu", []string{"session_thread=", `"gpu"`, "worker or main"}},
		{"stall_ms=9000&stall_every_ms=10000", []string{"stall_ms=", `"9000"`, "0 to 5000"}},
		{"stall_ms=10&stall_every_ms=20", []string{"stall_every_ms=", `"20"`, "50 to 60000"}},
		{"stall_ms=500&stall_every_ms=400", []string{"stall_ms=", `"500"`, "less than stall_every_ms"}},
		{"stall_ms=250", []string{"stall_ms=", `"250"`, "needs stall_every_ms"}},
		{"stall_every_ms=1000", []string{"stall_every_ms=", `"1000"`, "needs stall_ms"}},
	}
	for _, tc := range tests {
		t.Run(tc.query, func(t *testing.T) {
			t.Parallel()
			got, errs := parseQuery(t, tc.query, def)
			if len(errs) != 1 {
				t.Fatalf("%d errors %v, want 1", len(errs), errs)
			}
			for _, w := range tc.want {
				if !strings.Contains(errs[0].Error(), w) {
					t.Errorf("error %q does not say %q", errs[0], w)
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(def) {
				t.Errorf("settings changed to %+v by a refused value, want the defaults", got)
			}
		})
	}
}

// TestFormShowsWhatRuns: a valid value outside the form's usual choices
// is shown as given and sent as given (frame_ms=123, a profile with
// another model, a served dataset the panel does not list).
func TestFormShowsWhatRuns(t *testing.T) {
	t.Parallel()
	def := DefaultSettings("127.0.0.1:8080", false)
	s, errs := parseQuery(t, "frame_ms=123&profile=personaplex&source=dataset:mine", def)
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	if s.FrameMs != 123 {
		t.Errorf("FrameMs %d, want 123", s.FrameMs)
	}
	choices := frameChoices(s.FrameMs)
	if fmt.Sprint(choices) != "[80 123 200 1000]" {
		t.Errorf("frame choices %v, want 123 among them, in order", choices)
	}
	if fmt.Sprint(frameChoices(200)) != "[80 200 1000]" {
		t.Errorf("a standard frame adds no choice: %v", frameChoices(200))
	}
	if got := s.Query().Get("frame_ms"); got != "123" {
		t.Errorf("link sends frame_ms=%s, want 123", got)
	}
	u, err := s.TargetURL()
	if err != nil || !strings.Contains(u, "sim_profile=personaplex") {
		t.Errorf("target %q (%v), want sim_profile=personaplex", u, err)
	}
	if matchingPreset(s) != -1 || presetNone(s) != "— custom (see the fields) —" {
		t.Errorf("profile personaplex with model sim shows preset %d %q, want custom", matchingPreset(s), presetNone(s))
	}
	p := Presets[1]
	if matchingPreset(Settings{Model: p.Model, Profile: p.Profile, FrameMs: p.FrameMs}) != 1 {
		t.Errorf("the preset's own values do not select it")
	}
	if !otherDataset(s.Source) || otherDataset("dataset:builtin") || otherDataset(SourceMic) {
		t.Errorf("otherDataset: dataset:mine must be shown as an extra option, bundled ones not")
	}
}

// TestUnknownParams: a misspelt parameter is reported with its value.
func TestUnknownParams(t *testing.T) {
	t.Parallel()
	q, _ := url.ParseQuery("frame=123&autostart=1&demo=3&zz=1")
	errs := UnknownParams(q, SettingsParams, []string{"demo"})
	if len(errs) != 2 || !strings.HasPrefix(errs[0].Error(), `frame="123": unknown parameter`) || !strings.HasPrefix(errs[1].Error(), `zz="1"`) {
		t.Errorf("errors %v, want frame and zz reported, in order", errs)
	}
	q, _ = url.ParseQuery("session_thread=main&stall_ms=250&stall_every_ms=1000")
	if errs := UnknownParams(q, SettingsParams, []string{"demo"}); len(errs) != 0 {
		t.Errorf("session_thread / stall parameters reported as unknown on /: %v", errs)
	}
	q, _ = url.ParseQuery("levels=1,2&run_id=x&source=dataset:builtin&stall_ms=250&stall_every_ms=1000")
	if errs := UnknownParams(q, SettingsParams, LoadParams); len(errs) != 0 {
		t.Errorf("load parameters reported as unknown: %v", errs)
	}
}

// TestClassifyDial: each cause of a failed connection gets its words and
// kind, from injected close events and probe results (no network).
func TestClassifyDial(t *testing.T) {
	t.Parallel()
	const target = "ws://127.0.0.1:9/v1/realtime?sim_profile=test"
	wrap := func(ce *session.CloseError) error {
		return &session.HandshakeError{Err: fmt.Errorf("dial %s: %w", target, ce)}
	}
	tests := []struct {
		name     string
		err      error
		proxy    bool
		probe    probeResult
		kind     string
		want     []string
		needProb bool
	}{
		{"dead port, direct", wrap(&session.CloseError{Code: 1006}), false, probeNetError, failRefused, []string{"Connection refused", "127.0.0.1:9/v1/realtime", "running"}, true},
		{"wrong path, direct", wrap(&session.CloseError{Code: 1006}), false, probeAnswered, failWrongPath, []string{"Wrong path", "not as a websocket", "/v1/realtime"}, true},
		{"dead port, proxy", wrap(&session.CloseError{Code: 4502, Reason: "proxy: connection refused at 127.0.0.1:9: nothing listens there", Opened: true}), true, probeNone, failRefused, []string{"Connection refused", "through this server's proxy", "nothing listens there"}, false},
		{"wrong path, proxy", wrap(&session.CloseError{Code: 4404, Reason: "proxy: 404 Not Found at 127.0.0.1:9/nope: not a websocket endpoint", Opened: true}), true, probeNone, failWrongPath, []string{"Wrong path", "HTTP 404", "404 Not Found at 127.0.0.1:9/nope"}, false},
		{"proxy timeout", wrap(&session.CloseError{Code: 4504, Reason: "proxy: no answer from h:1 within 10 s", Opened: true}), true, probeNone, failTimeout, []string{"No answer", "within 10 s"}, false},
		{"upstream's own 4404 through the proxy", wrap(&session.CloseError{Code: 4404, Reason: "no such voice", Opened: true}), true, probeNone, failClosed, []string{"code 4404", "no such voice", "through this server's proxy"}, false},
		{"server close", wrap(&session.CloseError{Code: 1008, Reason: "model not served", Opened: true}), false, probeNone, failClosed, []string{"code 1008", "model not served", "policy"}, false},
		{"server close, no reason", wrap(&session.CloseError{Code: 4001, Opened: true}), false, probeNone, failClosed, []string{"code 4001", "no reason given"}, false},
		{"dropped after open", wrap(&session.CloseError{Code: 1006, Opened: true}), false, probeNone, failClosed, []string{"dropped", "1006"}, false},
		{"not probed", wrap(&session.CloseError{Code: 1006}), false, probeNone, failRefused, []string{"1006 before it opened", "/v1/realtime"}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if needsProbe(tc.err) != tc.needProb {
				t.Errorf("needsProbe = %v, want %v", !tc.needProb, tc.needProb)
			}
			got := classifyDial(tc.err, target, tc.proxy, tc.probe)
			var ae *actionError
			if !errors.As(got, &ae) {
				t.Fatalf("%v: not an actionError", got)
			}
			if ae.Kind != tc.kind {
				t.Errorf("kind %q, want %q", ae.Kind, tc.kind)
			}
			words := errorWords(got)
			for _, w := range tc.want {
				if !strings.Contains(words, w) {
					t.Errorf("%q does not say %q", words, w)
				}
			}
			if !errors.Is(got, tc.err) {
				t.Errorf("the cause is lost from the chain")
			}
		})
	}
	other := errors.New("no WebSocket here")
	if got := classifyDial(other, target, false, probeNone); got != other {
		t.Errorf("an error without a close event changed: %v", got)
	}
	if u, ok := probeURL("wss://h:1/v1/realtime?x=1"); !ok || u != "https://h:1/v1/realtime" {
		t.Errorf("probeURL = %q %v", u, ok)
	}
}

// TestClassifyMic: a refused or unavailable microphone says what to do.
func TestClassifyMic(t *testing.T) {
	t.Parallel()
	tests := []struct {
		err    error
		secure bool
		kind   string
		want   string
	}{
		{errors.New("microphone: NotAllowedError: Permission denied"), true, failMicDenied, "bundled clips"},
		{errors.New("no microphone access here"), false, failInsecure, "https"},
		{errors.New("microphone: NotFoundError: Requested device not found"), true, failMicDenied, "No usable microphone"},
	}
	for _, tc := range tests {
		got := classifyMic(tc.err, tc.secure)
		var ae *actionError
		if !errors.As(got, &ae) || ae.Kind != tc.kind || !strings.Contains(got.Error(), tc.want) {
			t.Errorf("classifyMic(%v, %v) = %v, want kind %s saying %q", tc.err, tc.secure, got, tc.kind, tc.want)
		}
	}
	if other := errors.New("microphone: AbortError"); classifyMic(other, true) != other {
		t.Errorf("an unknown mic error changed")
	}
	if !strings.Contains(classifyMic(errors.New("x"), false).Error(), "localhost") {
		t.Errorf("the insecure message does not name localhost")
	}
}

// TestRetryUpload: a failed upload is retried with backoff until
// delivered; each step is in words without request internals.
func TestRetryUpload(t *testing.T) {
	t.Parallel()
	fails := 2
	calls := 0
	attempt := func(context.Context) (shareInfo, error) {
		calls++
		if calls <= fails {
			return shareInfo{}, fmt.Errorf("uploading the report: %w", &uploadHTTPError{Method: "POST", Path: "/api/reports", Status: "503 Service Unavailable", Text: "archive unavailable"})
		}
		return shareInfo{ID: "abc", URL: "/r/abc"}, nil
	}
	var slept []time.Duration
	sleep := func(_ context.Context, d time.Duration) error { slept = append(slept, d); return nil }
	var steps []uploadProgress
	last := retryUpload(context.Background(), attempt, sleep, func(p uploadProgress) { steps = append(steps, p) })
	if !last.Delivered || last.Info.URL != "/r/abc" || last.Attempt != 4 {
		t.Fatalf("last step %+v, want delivered on attempt 4", last)
	}
	if fmt.Sprint(slept) != "[2s 4s 8s]" {
		t.Errorf("waits %v, want 2s 4s 8s", slept)
	}
	if len(steps) != 3 || !strings.Contains(steps[0].Words, "attempt 2 of 8 failed: the archive answered 503 Service Unavailable (archive unavailable)") ||
		!strings.Contains(steps[0].Words, "Trying again in 4 s") || !strings.Contains(steps[2].Words, "saved on attempt 4") {
		t.Errorf("steps %+v", steps)
	}
	for _, s := range steps {
		if strings.Contains(s.Words, "POST") || strings.Contains(s.Words, "/api/") {
			t.Errorf("words show request internals: %q", s.Words)
		}
	}
	// Never delivered: gives up after maxUploadAttempts, the run kept.
	calls, fails = 0, 100
	last = retryUpload(context.Background(), attempt, sleep, func(uploadProgress) {})
	if last.Delivered || !last.GaveUp || calls != maxUploadAttempts-1 || !strings.Contains(last.Words, "kept in this browser") {
		t.Errorf("never delivered: %+v after %d calls", last, calls)
	}
	// Sign-in needed: no more retries (a person must act).
	calls = 0
	last = retryUpload(context.Background(), func(context.Context) (shareInfo, error) { calls++; return shareInfo{}, errSignIn }, sleep, func(uploadProgress) {})
	if calls != 1 || !last.SignIn || !last.GaveUp {
		t.Errorf("sign-in: %+v after %d calls, want one attempt", last, calls)
	}
	if w := uploadWords(errors.New(`Post "http://x/api/reports": net/http: fetch() failed: TypeError`)); strings.Contains(w, "net/http") {
		t.Errorf("network error words %q show Go internals", w)
	}
	if uploadDelay(30) != time.Minute {
		t.Errorf("delay is not capped at a minute: %v", uploadDelay(30))
	}
}

// TestErrorWordsDroppedMidSession: a drop after the session opened keeps
// the session's words and says what it means.
func TestErrorWordsDroppedMidSession(t *testing.T) {
	t.Parallel()
	err := fmt.Errorf("%w: %w", session.ErrTransportDropped, &session.CloseError{Code: 1006, Opened: true})
	w := errorWords(err)
	if !strings.Contains(w, "transport dropped without session.closed") || !strings.Contains(w, "dropped without a close code") {
		t.Errorf("words %q", w)
	}
	closed := errorWords(fmt.Errorf("%w: %w", session.ErrTransportDropped, &session.CloseError{Code: 1011, Reason: "engine crashed", Opened: true}))
	if !strings.Contains(closed, "code 1011: engine crashed") || !strings.Contains(closed, "internal error") {
		t.Errorf("server close mid-session: %q", closed)
	}
}
