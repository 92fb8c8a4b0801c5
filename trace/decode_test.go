package trace_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/duplexscope/duplexscope/trace"
	"github.com/google/go-cmp/cmp"
)

func ptr[T any](v T) *T { return &v }

func TestDecode(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		in       string
		wantKind string
		wantErr  error // nil: success; errAny: some error
		check    func(t *testing.T, d trace.Document)
	}{
		{name: "missing kind is session, missing format ok",
			in: `{"session":{"sample_id":"5"},"events":[]}`, wantKind: trace.KindSession,
			check: func(t *testing.T, d trace.Document) {
				if got := d.Session.Session.ResolvedSessionID(); got == nil || *got != "5" {
					t.Errorf("session_id missing should default to sample_id, got %v", got)
				}
			}},
		{name: "session_id null stays null", in: `{"kind":"session","session":{"sample_id":"5","session_id":null}}`,
			wantKind: trace.KindSession,
			check: func(t *testing.T, d trace.Document) {
				m := d.Session.Session
				if m.ResolvedSessionID() != nil || !m.SessionIDNull {
					t.Errorf("got %+v", m)
				}
			}},
		{name: "stream_start_ms null is absent", in: `{"session":{"stream_start_ms":null,"split":null}}`, wantKind: trace.KindSession,
			check: func(t *testing.T, d trace.Document) {
				if m := d.Session.Session; m.StreamStartMs != nil || m.Split != nil || m.StreamStartS() != 0 {
					t.Errorf("got %+v", m)
				}
			}},
		{name: "events keep raw JSON; non-object events allowed",
			in:       `{"format":"duplex-trace/v1","events":[{"t_ms":1.5,"dir":"recv","event":{"type":"x"}},{"t_ms":2,"dir":"recv","event":[1]}]}`,
			wantKind: trace.KindSession,
			check: func(t *testing.T, d trace.Document) {
				ev := d.Session.Events
				if len(ev) != 2 || ev[0].TMs != 1.5 || string(ev[0].Event) != `{"type":"x"}` || string(ev[1].Event) != `[1]` {
					t.Errorf("got %+v", ev)
				}
			}},
		{name: "run with existing_report null is a merge",
			in:       `{"kind":"run","existing_report":null,"sessions":[{"kind":"session","skipped":true,"session":{"sample_id":"a"}}]}`,
			wantKind: trace.KindRun,
			check: func(t *testing.T, d trace.Document) {
				if !d.Run.HasExistingReport || string(d.Run.ExistingReport) != "null" || len(d.Run.Sessions) != 1 || !d.Run.Sessions[0].Skipped {
					t.Errorf("got %+v", d.Run)
				}
			}},
		{name: "run without existing_report is a build", in: `{"kind":"run","sessions":[]}`, wantKind: trace.KindRun,
			check: func(t *testing.T, d trace.Document) {
				if d.Run.HasExistingReport {
					t.Errorf("got %+v", d.Run)
				}
			}},
		{name: "engine_tpot keeps missing vs null segment",
			in:       `{"kind":"engine_tpot","outputs":[{"t_ms":1,"new_tokens":1},{"t_ms":2,"new_tokens":2,"segment":null}]}`,
			wantKind: trace.KindEngineTPOT,
			check: func(t *testing.T, d trace.Document) {
				o := d.EngineTPOT.Outputs
				if len(o) != 2 || o[0].Segment != nil || string(o[1].Segment) != "null" || string(o[1].NewTokens) != "2" {
					t.Errorf("got %+v", o)
				}
			}},
		{name: "unknown format", in: `{"format":"duplex-trace/v2"}`, wantErr: trace.ErrFormat},
		{name: "non-string format", in: `{"format":1}`, wantErr: trace.ErrFormat},
		{name: "unknown kind", in: `{"kind":"sessions"}`, wantErr: trace.ErrKind},
		{name: "run session of another kind", in: `{"kind":"run","sessions":[{"kind":"run"}]}`, wantErr: trace.ErrKind},
		{name: "not an object", in: `[1,2]`, wantErr: errAny},
		{name: "truncated", in: `{"events":[`, wantErr: errAny},
		{name: "t_ms not a number", in: `{"events":[{"t_ms":"5","dir":"recv","event":{}}]}`, wantErr: errAny},
		{name: "sample_id not a string", in: `{"session":{"sample_id":560}}`, wantErr: errAny},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			d, err := trace.Decode([]byte(tc.in))
			switch {
			case tc.wantErr == nil && err != nil:
				t.Fatalf("Decode: %v", err)
			case tc.wantErr == errAny && err == nil, tc.wantErr != nil && tc.wantErr != errAny && !errors.Is(err, tc.wantErr):
				t.Fatalf("Decode error = %v, want %v", err, tc.wantErr)
			case tc.wantErr != nil:
				return
			}
			if d.Kind != tc.wantKind {
				t.Fatalf("kind = %q, want %q", d.Kind, tc.wantKind)
			}
			tc.check(t, d)
		})
	}
}

var errAny = errors.New("any error")

// TestSessionRoundTrip: what the session package writes reads back equal.
func TestSessionRoundTrip(t *testing.T) {
	t.Parallel()
	in := trace.Session{
		Format: trace.Format, Kind: trace.KindSession,
		Session: trace.SessionMeta{SampleID: ptr("560"), Split: ptr("RTD_OCR"), SessionIDNull: true,
			StreamStartMs: ptr(5000.0), InputAudioDurationMs: ptr(8000.0), Extra: json.RawMessage(`{"frame_ms":200}`)},
		Events: []trace.Event{{TMs: 5000, Dir: trace.DirSend, Event: json.RawMessage(`{"type":"input_audio_buffer.append","audio":"AAAA"}`)},
			{TMs: 5100, Dir: trace.DirLocal, Event: json.RawMessage(`{"type":"duplexscope.pacing"}`)}},
	}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	out, err := trace.DecodeSession(b)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(in, out); diff != "" {
		t.Errorf("round trip (-want +got):\n%s\n%s", diff, b)
	}
	want := `{"format":"duplex-trace/v1","kind":"session","session":{"sample_id":"560","split":"RTD_OCR","session_id":null,"input_audio_duration_ms":8000,"stream_start_ms":5000,"duplexscope":{"frame_ms":200}},"events":[{"t_ms":5000,"dir":"send","event":{"type":"input_audio_buffer.append","audio":"AAAA"}},{"t_ms":5100,"dir":"local","event":{"type":"duplexscope.pacing"}}]}`
	if string(b) != want {
		t.Errorf("encoding\n got %s\nwant %s", b, want)
	}
}

// TestVectorsDecode decodes every vector copied into testdata/vectors.
func TestVectorsDecode(t *testing.T) {
	t.Parallel()
	files, _ := filepath.Glob(filepath.Join("..", "metrics", "testdata", "vectors", "*.trace.json"))
	local, _ := filepath.Glob(filepath.Join("testdata", "fuzz", "FuzzDecode", "*"))
	if len(files) == 0 || len(local) == 0 {
		t.Fatalf("no vectors (%d) or seed corpus (%d)", len(files), len(local))
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		_, err = trace.Decode(data)
		if strings.HasPrefix(filepath.Base(f), "must_refuse_kind_null") {
			if !errors.Is(err, trace.ErrKind) || !strings.Contains(err.Error(), "kind") {
				t.Errorf("%s: got %v, want an unknown-kind error naming kind", f, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

// FuzzDecode: Decode never panics, and a decoded session re-encodes to a
// document that decodes to the same value.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"format":"duplex-trace/v1","kind":"session","session":{"sample_id":"1","session_id":null},"events":[{"t_ms":1,"dir":"recv","event":{"type":"response.created","response":{"id":"r"}}}]}`))
	f.Add([]byte(`{"kind":"run","existing_report":null,"sessions":[{"skipped":true}]}`))
	f.Add([]byte(`{"kind":"engine_tpot","outputs":[{"t_ms":1,"new_tokens":2.7,"segment":"0"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := trace.Decode(data)
		if err != nil {
			return
		}
		if d.Session == nil {
			return
		}
		b, err := json.Marshal(d.Session)
		if err != nil {
			t.Fatalf("re-encode: %v", err)
		}
		again, err := trace.DecodeSession(b)
		if err != nil {
			t.Fatalf("re-decode %s: %v", b, err)
		}
		b2, err := json.Marshal(again)
		if err != nil || string(b) != string(b2) {
			t.Fatalf("not stable:\n%s\n%s", b, b2)
		}
	})
}

func TestPythonJSON(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{`{"a": NaN, "b": [Infinity, -Infinity], "s": "NaN Infinity \" NaN"}`,
			`{"a": ` + trace.NaNLiteral + `, "b": [` + trace.InfLiteral + `, ` + trace.NegInfLiteral + `], "s": "NaN Infinity \" NaN"}`},
		{`{"plain": 1}`, `{"plain": 1}`},
		{`["a\\", NaN]`, `["a\\", ` + trace.NaNLiteral + `]`},
	}
	for _, tc := range tests {
		if got := string(trace.PythonJSON([]byte(tc.in))); got != tc.want {
			t.Errorf("PythonJSON(%s) = %s, want %s", tc.in, got, tc.want)
		}
	}
	d, err := trace.Decode([]byte(`{"events":[{"t_ms":1,"dir":"recv","event":{"x":NaN}}]}`))
	if err != nil || len(d.Session.Events) != 1 {
		t.Fatalf("Decode with NaN: %v", err)
	}
}

func TestSessionMarshalEmptyEvents(t *testing.T) {
	t.Parallel()
	b, err := json.Marshal(trace.Session{Kind: trace.KindSession})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"kind":"session","session":{},"events":[]}`; string(b) != want {
		t.Errorf("got %s, want %s", b, want)
	}
}

// TestWrapperTypes: a trace outside the documented wrapper types (README
// "Trace format") is an error naming the field, never a guess.
func TestWrapperTypes(t *testing.T) {
	t.Parallel()
	ev := func(entry string) string { return `{"events":[` + entry + `]}` }
	tests := []struct {
		name, doc, wantErr string
	}{
		{"kind null", `{"kind":null,"events":[]}`, "kind is null"},
		{"kind number", `{"kind":1}`, "unknown kind"},
		{"format null", `{"format":null}`, "unknown format"},
		{"t_ms string", ev(`{"t_ms":"1","dir":"recv","event":{}}`), "events[0]: t_ms must be a finite number"},
		{"t_ms missing", ev(`{"dir":"recv","event":{}}`), "t_ms must be a finite number"},
		{"t_ms null", ev(`{"t_ms":null,"dir":"recv","event":{}}`), "t_ms must be a finite number"},
		{"t_ms bool", ev(`{"t_ms":true,"dir":"recv","event":{}}`), "t_ms must be a finite number"},
		{"t_ms NaN", ev(`{"t_ms":NaN,"dir":"recv","event":{}}`), "t_ms must be a finite number, got NaN"},
		{"t_ms Infinity", ev(`{"t_ms":Infinity,"dir":"recv","event":{}}`), "got Infinity"},
		{"t_ms 1e999", ev(`{"t_ms":1e999,"dir":"recv","event":{}}`), "t_ms must be a finite number"},
		{"dir missing", ev(`{"t_ms":1,"event":{}}`), "dir must be a string"},
		{"dir number", ev(`{"t_ms":1,"dir":2,"event":{}}`), "dir must be a string"},
		{"entry not an object", ev(`[1,"recv",{}]`), "events[0]: an entry must be a JSON object"},
		{"events not a list", `{"events":{}}`, "events must be a list"},
		{"sample_id number", `{"session":{"sample_id":5}}`, "session.sample_id must be a string or null"},
		{"split bool", `{"session":{"split":true}}`, "session.split must be a string or null"},
		{"session_id list", `{"session":{"session_id":[]}}`, "session.session_id must be a string or null"},
		{"stream_start_ms string", `{"session":{"stream_start_ms":"5"}}`, "stream_start_ms must be a finite number or null"},
		{"stream_start_ms Infinity", `{"session":{"stream_start_ms":Infinity}}`, "stream_start_ms must be a finite number or null, got Infinity"},
		{"engine t_ms missing", `{"kind":"engine_tpot","outputs":[{"new_tokens":1}]}`, "t_ms must be a finite number"},
		{"engine t_ms NaN", `{"kind":"engine_tpot","outputs":[{"t_ms":NaN,"new_tokens":1}]}`, "t_ms must be a finite number"},
	}
	for _, tc := range tests {
		_, err := trace.Decode([]byte(tc.doc))
		if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
			t.Errorf("%s: Decode(%s) = %v, want an error containing %q", tc.name, tc.doc, err, tc.wantErr)
		}
	}
	ok := []string{
		ev(`{"t_ms":1,"dir":"recv","event":{}}`),
		ev(`{"t_ms":-5.5,"dir":"anything","event":"not an object"}`),
		ev(`{"t_ms":1,"dir":"send"}`),
		`{"session":{"sample_id":null,"split":null,"session_id":null,"stream_start_ms":null}}`,
		`{"session":null}`,
		`{"kind":"engine_tpot","outputs":[{"t_ms":0,"new_tokens":"x","segment":{"a":[1]}}]}`,
	}
	for _, doc := range ok {
		if _, err := trace.Decode([]byte(doc)); err != nil {
			t.Errorf("Decode(%s): %v", doc, err)
		}
	}
}
