//go:build !js

package apiclient_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/duplexscope/duplexscope/server/apiclient"
)

// seen is what the fake archive received.
type seen struct {
	method, path             string
	auth, key, ctype, runCap string
	body                     string
}

// recorder is an httptest server that records each request and answers
// with answer.
func recorder(t *testing.T, answer func(r *http.Request, n int) (int, string)) (*httptest.Server, func() []seen) {
	t.Helper()
	var mu sync.Mutex
	var got []seen
	count := map[string]int{}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, seen{method: r.Method, path: r.URL.RequestURI(), auth: r.Header.Get("Authorization"), key: r.Header.Get("Idempotency-Key"),
			ctype: r.Header.Get("Content-Type"), runCap: r.Header.Get("X-Duplexscope-Run-Cap"), body: string(b)})
		count[r.Method+" "+r.URL.Path]++
		n := count[r.Method+" "+r.URL.Path]
		mu.Unlock()
		code, body := answer(r, n)
		w.WriteHeader(code)
		_, _ = io.WriteString(w, body)
	}))
	t.Cleanup(ts.Close)
	return ts, func() []seen {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(got)
	}
}

// TestSend: one call's headers, its answer decoded, and every way an
// answer can fail, in words.
func TestSend(t *testing.T) {
	long := strings.Repeat("é", 600) // 1 200 bytes, two per rune
	tests := []struct {
		name      string
		client    apiclient.Client
		call      apiclient.Call
		code      int
		answer    string
		want      seen   // headers the server must see
		wantID    string // decoded from the answer
		wantErr   string // "" → no error
		wantCode  int    // an *Error with this code
		wantText  string // its Text
		maxTextLn int    // bound on len(Text) (0: unchecked)
	}{
		{name: "success with token, key and a header",
			client: apiclient.Client{Token: "tok", Header: http.Header{"X-Duplexscope-Run-Cap": {"cap-1"}}},
			call:   apiclient.Call{Method: "POST", Path: "/api/reports", Body: []byte(`{}`), ContentType: "application/json", Key: "run-1"},
			code:   201, answer: `{"id":"abc","url":"/r/abc"}`,
			want:   seen{method: "POST", path: "/api/reports", auth: "Bearer tok", key: "run-1", ctype: "application/json", runCap: "cap-1", body: `{}`},
			wantID: "abc"},
		{name: "no token, no key: no headers",
			call: apiclient.Call{Method: "GET", Path: "/api/loadruns/r?wait_s=2"}, code: 200, answer: `{"id":"x"}`,
			want: seen{method: "GET", path: "/api/loadruns/r?wait_s=2"}, wantID: "x"},
		{name: "4xx with the server's JSON error",
			call: apiclient.Call{Method: "POST", Path: "/api/reports"}, code: 400,
			answer:  `{"error":"run.model: required","errors":[{"path":"run.model","reason":"required"}]}`,
			want:    seen{method: "POST", path: "/api/reports"},
			wantErr: "POST /api/reports: 400 Bad Request: run.model: required", wantCode: 400, wantText: "run.model: required"},
		{name: "5xx with a plain body",
			call: apiclient.Call{Method: "PUT", Path: "/api/reports/a/attachments/w.json"}, code: 502, answer: "  <h1>bad gateway</h1>\n",
			want:    seen{method: "PUT", path: "/api/reports/a/attachments/w.json"},
			wantErr: "PUT /api/reports/a/attachments/w.json: 502 Bad Gateway: <h1>bad gateway</h1>", wantCode: 502, wantText: "<h1>bad gateway</h1>"},
		{name: "5xx with a long body: the text is cut on a rune",
			call: apiclient.Call{Method: "GET", Path: "/x"}, code: 503, answer: long,
			want: seen{method: "GET", path: "/x"}, wantErr: "503 Service Unavailable", wantCode: 503, wantText: strings.Repeat("é", 256) + "…", maxTextLn: 520},
		{name: "an answer over the bound is an error, not a cut document",
			client: apiclient.Client{MaxAnswer: 64},
			call:   apiclient.Call{Method: "GET", Path: "/big"}, code: 200, answer: `{"id":"` + strings.Repeat("x", 60) + `"}`,
			want: seen{method: "GET", path: "/big"}, wantErr: "GET /big: reading the answer: it is over 64 bytes"},
		{name: "an answer at the bound is read",
			client: apiclient.Client{MaxAnswer: 64},
			call:   apiclient.Call{Method: "GET", Path: "/big"}, code: 200, answer: `{"id":"` + strings.Repeat("x", 55) + `"}`,
			want: seen{method: "GET", path: "/big"}, wantID: strings.Repeat("x", 55)},
		{name: "a 2xx that is not JSON",
			call: apiclient.Call{Method: "GET", Path: "/api/reports/a"}, code: 200, answer: "ok",
			want: seen{method: "GET", path: "/api/reports/a"}, wantErr: "GET /api/reports/a: reading the answer"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ts, requests := recorder(t, func(*http.Request, int) (int, string) { return tc.code, tc.answer })
			c := tc.client
			c.Base = ts.URL + "/" // a trailing slash is ignored
			var out struct {
				ID string `json:"id"`
			}
			err := c.Send(context.Background(), tc.call, &out)
			got := requests()
			if len(got) != 1 || got[0] != tc.want {
				t.Errorf("server saw %+v, want %+v", got, tc.want)
			}
			if tc.wantErr == "" {
				if err != nil || out.ID != tc.wantID {
					t.Fatalf("err %v, id %q; want id %q", err, out.ID, tc.wantID)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("err %v, want one containing %q", err, tc.wantErr)
			}
			var he *apiclient.Error
			if tc.wantCode == 0 {
				if errors.As(err, &he) {
					t.Errorf("err %v is an *Error, want a reading error", err)
				}
				return
			}
			if !errors.As(err, &he) || he.Code != tc.wantCode || he.Text != tc.wantText {
				t.Fatalf("err %#v, want *Error code %d text %q", err, tc.wantCode, tc.wantText)
			}
			if tc.maxTextLn > 0 && len(he.Text) > tc.maxTextLn {
				t.Errorf("error text is %d bytes, want at most %d", len(he.Text), tc.maxTextLn)
			}
		})
	}
}

// TestJSON: a value is sent as JSON with its type; no value, no body.
func TestJSON(t *testing.T) {
	ts, requests := recorder(t, func(*http.Request, int) (int, string) { return 200, `{"level":3}` })
	c := apiclient.Client{Base: ts.URL}
	var out struct{ Level int }
	if err := c.JSON(context.Background(), "POST", "/api/loadruns/r/ready", map[string]int{"level": 3}, &out); err != nil || out.Level != 3 {
		t.Fatalf("err %v, out %+v", err, out)
	}
	if err := c.JSON(context.Background(), "GET", "/api/loadruns/r", nil, &out); err != nil {
		t.Fatal(err)
	}
	got := requests()
	want := []seen{{method: "POST", path: "/api/loadruns/r/ready", ctype: "application/json", body: `{"level":3}`}, {method: "GET", path: "/api/loadruns/r"}}
	if !slices.Equal(got, want) {
		t.Errorf("server saw %+v, want %+v", got, want)
	}
}

// TestUploadReport: the one partial-failure rule. The report comes first;
// nothing else is sent until it exists; once it does, every attachment is
// tried, a passing failure again, and what did not arrive is named next to
// the share URL.
func TestUploadReport(t *testing.T) {
	notDeclared := `{"error":"attachment b.wav is not declared by report r1"}`
	tests := []struct {
		name       string
		report     []string            // answers to POST /api/reports, in turn ("" = 201 with id r1)
		attach     map[string][]string // answers to each PUT, in turn ("" = 201)
		wantID     string
		wantStored []string
		wantFailed []string       // names the *PartialError gives
		wantErr    string         // in err.Error()
		wantTries  map[string]int // PUTs per attachment
		wantSleeps []time.Duration
	}{
		{name: "everything arrives", wantID: "r1", wantStored: []string{"a.json", "b.wav"},
			wantTries: map[string]int{"a.json": 1, "b.wav": 1}},
		{name: "409: already stored counts as arrived", attach: map[string][]string{"a.json": {"409"}},
			wantID: "r1", wantStored: []string{"a.json", "b.wav"}, wantTries: map[string]int{"a.json": 1, "b.wav": 1}},
		{name: "one attachment refused: the share URL and its name", attach: map[string][]string{"b.wav": {"403 " + notDeclared}},
			wantID: "r1", wantStored: []string{"a.json"}, wantFailed: []string{"b.wav"},
			wantErr:   "some attachments were not saved: b.wav: PUT /api/reports/r1/attachments/b.wav: 403 Forbidden: attachment b.wav is not declared by report r1",
			wantTries: map[string]int{"a.json": 1, "b.wav": 1}},
		{name: "a passing failure is tried again", attach: map[string][]string{"a.json": {"503", ""}},
			wantID: "r1", wantStored: []string{"a.json", "b.wav"},
			wantTries: map[string]int{"a.json": 2, "b.wav": 1}, wantSleeps: []time.Duration{time.Second}},
		{name: "a failure that does not pass is named after the tries", attach: map[string][]string{"a.json": {"503", "429", "500"}},
			wantID: "r1", wantStored: []string{"b.wav"}, wantFailed: []string{"a.json"}, wantErr: "a.json: PUT /api/reports/r1/attachments/a.json: 500",
			wantTries: map[string]int{"a.json": apiclient.AttachmentTries, "b.wav": 1}, wantSleeps: []time.Duration{time.Second, 2 * time.Second}},
		{name: "storage full is not tried again", attach: map[string][]string{"a.json": {`507 {"error":"the archive's attachment space is full"}`}, "b.wav": {"507"}},
			wantID: "r1", wantFailed: []string{"a.json", "b.wav"}, wantErr: "some attachments were not saved: a.json: PUT /api/reports/r1/attachments/a.json: 507 Insufficient Storage: the archive's attachment space is full; b.wav",
			wantTries: map[string]int{"a.json": 1, "b.wav": 1}},
		{name: "report refused: nothing else is sent", report: []string{`503 {"error":"archive unavailable"}`},
			wantErr: "POST /api/reports: 503 Service Unavailable: archive unavailable", wantTries: map[string]int{}},
		{name: "report answer without an id", report: []string{`201 {}`},
			wantErr: "without a report id", wantTries: map[string]int{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ts, requests := recorder(t, func(r *http.Request, n int) (int, string) {
				if r.Method == "POST" && r.URL.Path == "/api/reports" {
					return answer(tc.report, n, 201, `{"id":"r1","url":"/r/r1"}`)
				}
				name := r.URL.Path[strings.LastIndex(r.URL.Path, "/")+1:]
				return answer(tc.attach[name], n, 201, `{}`)
			})
			var sleeps []time.Duration
			c := apiclient.Client{Base: ts.URL, Token: "tok", Sleep: func(_ context.Context, d time.Duration) error { sleeps = append(sleeps, d); return nil }}
			up := apiclient.Upload{Key: "run-k", Report: []byte(`{"schema":"r"}`), Attachments: []apiclient.Attachment{
				{Name: "a.json", ContentType: "application/json", Body: []byte(`[1]`)},
				{Name: "b.wav", ContentType: "audio/wav", Read: func() ([]byte, error) { return []byte("RIFF"), nil }},
			}}
			res, err := c.UploadReport(context.Background(), up)
			if res.ID != tc.wantID || !slices.Equal(res.Stored, tc.wantStored) {
				t.Errorf("result %+v, want id %q stored %q", res, tc.wantID, tc.wantStored)
			}
			if tc.wantID != "" && res.URL != "/r/"+tc.wantID {
				t.Errorf("share URL %q", res.URL)
			}
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("err %v, want none", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("err %v, want one containing %q", err, tc.wantErr)
			}
			var pe *apiclient.PartialError
			if errors.As(err, &pe) != (len(tc.wantFailed) > 0) {
				t.Fatalf("err %v: a *PartialError is wanted exactly when the report is stored and some attachment is not", err)
			}
			if pe != nil {
				var names []string
				for _, f := range pe.Failed {
					names = append(names, f.Name)
				}
				if !slices.Equal(names, tc.wantFailed) || pe.ID != "r1" || pe.URL != "/r/r1" {
					t.Errorf("partial error names %q (%s %s), want %q", names, pe.ID, pe.URL, tc.wantFailed)
				}
				for _, f := range pe.Failed {
					if he := (*apiclient.Error)(nil); !errors.As(f.Err, &he) {
						t.Errorf("%s: %v is not the archive's answer (*Error)", f.Name, f.Err)
					}
				}
			}
			tries := map[string]int{}
			for _, s := range requests() {
				if s.method == "PUT" {
					tries[s.path[strings.LastIndex(s.path, "/")+1:]]++
				}
				if s.auth != "Bearer tok" || (s.method == "POST") != (s.key == "run-k") {
					t.Errorf("%s %s: auth %q key %q; want the token on every write, the key on the report", s.method, s.path, s.auth, s.key)
				}
				if s.method == "PUT" && s.path == "/api/reports/r1/attachments/b.wav" && (s.ctype != "audio/wav" || s.body != "RIFF") {
					t.Errorf("b.wav sent as %q %q", s.ctype, s.body)
				}
			}
			if len(tries) != len(tc.wantTries) {
				t.Errorf("PUTs %v, want %v", tries, tc.wantTries)
			}
			for name, n := range tc.wantTries {
				if tries[name] != n {
					t.Errorf("PUTs %v, want %v", tries, tc.wantTries)
				}
			}
			if !slices.Equal(sleeps, tc.wantSleeps) {
				t.Errorf("waits %v, want %v", sleeps, tc.wantSleeps)
			}
		})
	}
}

// answer is the n-th (1-based) of answers "CODE BODY" ("" or past the
// end: code and body).
func answer(answers []string, n, code int, body string) (int, string) {
	if n > len(answers) || answers[n-1] == "" {
		return code, body
	}
	c, b, _ := strings.Cut(answers[n-1], " ")
	var k int
	for _, d := range c {
		k = k*10 + int(d-'0')
	}
	return k, b
}

// TestUploadCapability: the page's way: a capability minted under the
// upload's key writes the report and its attachments, and comes back.
func TestUploadCapability(t *testing.T) {
	ts, requests := recorder(t, func(r *http.Request, _ int) (int, string) {
		switch r.URL.Path {
		case "/api/capabilities":
			return 200, `{"id":"r9","capability":"cap.r9","expires_at":"2026-12-06T00:00:00Z"}`
		case "/api/reports":
			return 201, `{"id":"r9","url":"/r/r9"}`
		}
		return 201, `{}`
	})
	c := apiclient.Client{Base: ts.URL}
	res, err := c.UploadReport(context.Background(), apiclient.Upload{Key: "ds-1", Report: []byte(`{}`), Capability: true,
		Attachments: []apiclient.Attachment{{Name: "wire-log.json", ContentType: "application/json", Body: []byte(`{}`)}}})
	if err != nil || res.Capability != "cap.r9" || res.ID != "r9" {
		t.Fatalf("result %+v, err %v", res, err)
	}
	want := []seen{
		{method: "POST", path: "/api/capabilities", key: "ds-1", ctype: "application/json"},
		{method: "POST", path: "/api/reports", key: "ds-1", auth: "Bearer cap.r9", ctype: "application/json", body: `{}`},
		{method: "PUT", path: "/api/reports/r9/attachments/wire-log.json", auth: "Bearer cap.r9", ctype: "application/json", body: `{}`},
	}
	if got := requests(); !slices.Equal(got, want) {
		t.Errorf("requests\n%+v\nwant\n%+v", got, want)
	}
}

// TestKeys: a rebuilt body keeps its key (the CLI's retry lands on the
// same report); a fresh key is new each time (the page's).
func TestKeys(t *testing.T) {
	body := []byte(`{"schema":"duplexscope.report/v1"}`)
	k := apiclient.KeyFor(body)
	if k != apiclient.KeyFor(slices.Clone(body)) || !strings.HasPrefix(k, "run-") || len(k) != 4+32 {
		t.Errorf("KeyFor: %q, not stable or not run-+32 hex", k)
	}
	if k == apiclient.KeyFor(append(slices.Clone(body), ' ')) {
		t.Error("KeyFor: another body, the same key")
	}
	a, b := apiclient.NewKey(), apiclient.NewKey()
	if a == b || !strings.HasPrefix(a, "ds-") || len(a) != 3+32 {
		t.Errorf("NewKey: %q %q", a, b)
	}
}

// TestCancelStopsTries: a caller that gives up ends the tries at once;
// the report stays stored and the attachment is named.
func TestCancelStopsTries(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	ts, requests := recorder(t, func(r *http.Request, _ int) (int, string) {
		if r.Method == "POST" {
			return 201, `{"id":"r1","url":"/r/r1"}`
		}
		cancel() // the attachment fails while the caller gives up
		return 503, `{"error":"busy"}`
	})
	c := apiclient.Client{Base: ts.URL} // the real Wait: it must end with ctx
	done := make(chan struct{})
	var res apiclient.Result
	var err error
	go func() {
		res, err = c.UploadReport(ctx, apiclient.Upload{Key: "k", Report: []byte(`{}`), Attachments: []apiclient.Attachment{{Name: "a"}}})
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("the tries did not end with the context")
	}
	var pe *apiclient.PartialError
	if res.ID != "r1" || !errors.As(err, &pe) || len(pe.Failed) != 1 || pe.Failed[0].Name != "a" {
		t.Errorf("result %+v, err %v; want the stored report and attachment a named", res, err)
	}
	if n := len(requests()); n != 2 {
		t.Errorf("%d requests, want 2: no attachment try after the caller gave up", n)
	}
}
