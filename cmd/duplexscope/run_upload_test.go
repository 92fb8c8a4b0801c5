//go:build !js

package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// TestUploadToRule: --upload follows apiclient's one partial-failure rule.
// A stored report is shared (its URL printed) even when a wire log did not
// arrive; the run then fails naming that wire log and where the results
// are. A report the archive refused prints no URL.
func TestUploadToRule(t *testing.T) {
	const declared = `{"attachments":[{"name":"a.trace.json","kind":"wire_log","content_type":"application/json"},` +
		`{"name":"in.wav","kind":"input_audio","content_type":"audio/wav"}]}`
	tests := []struct {
		name     string
		report   int    // POST /api/reports status
		put      int    // PUT status
		noTrace  bool   // OUT/traces/a.trace.json missing
		wantURL  bool   // "run: uploaded → URL" printed and in the summary
		wantErr  string // "" → none
		wantPuts int
	}{
		{name: "delivered", report: 201, put: 201, wantURL: true, wantPuts: 1},
		{name: "wire log refused: shared, and named", report: 201, put: 403, wantURL: true, wantPuts: 1,
			wantErr: "some attachments were not saved: a.trace.json: PUT /api/reports/abc/attachments/a.trace.json: 403 Forbidden: not declared"},
		{name: "wire log missing on disk: shared, and named", report: 201, put: 201, noTrace: true, wantURL: true, wantPuts: 0,
			wantErr: "a.trace.json: open "},
		{name: "report refused: no URL", report: 413, put: 201, wantPuts: 0,
			wantErr: "POST /api/reports: 413 Request Entity Too Large: too big"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var puts atomic.Int32
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Header.Get("Authorization") != "Bearer tok" {
					t.Errorf("%s %s without the write token", r.Method, r.URL.Path)
				}
				switch {
				case r.Method == http.MethodPost && r.URL.Path == "/api/reports":
					w.WriteHeader(tc.report)
					if tc.report == 201 {
						_, _ = w.Write([]byte(`{"id":"abc","url":"/r/abc"}`))
					} else {
						_, _ = w.Write([]byte(`{"error":"too big"}`))
					}
				case r.Method == http.MethodPut && r.URL.Path == "/api/reports/abc/attachments/a.trace.json":
					puts.Add(1)
					w.WriteHeader(tc.put)
					_, _ = w.Write([]byte(`{"error":"not declared"}`))
				default:
					t.Errorf("unexpected %s %s (only the wire log is sent)", r.Method, r.URL.Path)
					w.WriteHeader(http.StatusNotFound)
				}
			}))
			defer ts.Close()
			t.Setenv("DUPLEXSCOPE_WRITE_TOKEN", "tok")
			out := t.TempDir()
			if !tc.noTrace {
				if err := os.MkdirAll(filepath.Join(out, dirTraces), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(out, dirTraces, "a.trace.json"), []byte(`{}`), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			sum := &runSummary{}
			var so bytes.Buffer
			err := uploadTo(context.Background(), &runOptions{Upload: ts.URL + "/", Out: out}, []byte(declared), sum, &so)
			url := ts.URL + "/r/abc"
			if printed := strings.Contains(so.String(), "run: uploaded → "+url+"\n"); printed != tc.wantURL || (sum.ShareURL == url) != tc.wantURL {
				t.Errorf("stdout %q, summary URL %q; want the share URL %v", so.String(), sum.ShareURL, tc.wantURL)
			}
			switch {
			case tc.wantErr == "" && err != nil:
				t.Errorf("err %v, want none", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), "results are in "+out)):
				t.Errorf("err %v, want %q and where the results are", err, tc.wantErr)
			}
			if n := int(puts.Load()); n != tc.wantPuts {
				t.Errorf("%d PUTs of the wire log, want %d", n, tc.wantPuts)
			}
		})
	}
}
