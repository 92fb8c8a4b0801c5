//go:build !js

package apiclient_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/duplexscope/duplexscope/report"
	"github.com/duplexscope/duplexscope/server"
	"github.com/duplexscope/duplexscope/server/apiclient"
	"github.com/duplexscope/duplexscope/server/archive"
)

// TestUploadAgainstArchive: the rule against the server's own guarantees.
// A lost answer to the report, then an attachment the archive refuses
// (bytes that do not match the declared sha256), then the same upload again:
// one report, the share URL each time the report exists, and the second
// send adds only what was missing.
func TestUploadAgainstArchive(t *testing.T) {
	store := archive.NewMemory()
	srv, err := server.New(server.Config{Store: store, UploadRate: -1, WriteToken: "s3cret"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	var loseReport atomic.Bool
	var puts atomic.Int32
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPut {
			puts.Add(1)
		}
		if r.Method == http.MethodPost && r.URL.Path == "/api/reports" && loseReport.Load() {
			srv.ServeHTTP(httptest.NewRecorder(), r) // stored; the answer is lost
			http.Error(w, `{"error":"gateway lost the answer"}`, http.StatusBadGateway)
			return
		}
		srv.ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)

	wire, audio := []byte(`{"events":[]}`), []byte("RIFF....WAVE")
	body := reportDeclaring(t, map[string][]byte{"wire-log.json": wire, "input.wav": audio})
	ctx := context.Background()
	c := apiclient.Client{Base: front.URL, Token: "s3cret", Sleep: func(context.Context, time.Duration) error { return nil }}
	up := apiclient.Upload{Key: apiclient.KeyFor(body), Report: body, Attachments: []apiclient.Attachment{
		{Name: "wire-log.json", ContentType: "application/json", Body: wire},
		{Name: "input.wav", ContentType: "audio/wav", Body: []byte("not the declared bytes")},
	}}

	// 1. Without the token the archive refuses: nothing stored, a 401 in words.
	if res, err := (&apiclient.Client{Base: front.URL}).UploadReport(ctx, up); res.ID != "" || !isCode(err, http.StatusUnauthorized) {
		t.Fatalf("no token: %+v, %v; want a 401 and no report", res, err)
	}
	// 2. The report is stored but its answer lost: no id, so nothing else is sent.
	loseReport.Store(true)
	if res, err := c.UploadReport(ctx, up); res.ID != "" || !isCode(err, http.StatusBadGateway) || puts.Load() != 0 {
		t.Fatalf("lost answer: %+v, %v, %d PUTs; want the 502 and no attachment sent", res, err, puts.Load())
	}
	loseReport.Store(false)
	// 3. Sent again: the same report; input.wav is refused (400, not tried again).
	res, err := c.UploadReport(ctx, up)
	var pe *apiclient.PartialError
	if !errors.As(err, &pe) || len(pe.Failed) != 1 || pe.Failed[0].Name != "input.wav" || !isCode(pe.Failed[0].Err, http.StatusBadRequest) {
		t.Fatalf("refused attachment: %v; want a *PartialError naming input.wav with the 400", err)
	}
	if res.ID == "" || res.URL != "/r/"+res.ID || len(res.Stored) != 1 || res.Stored[0] != "wire-log.json" {
		t.Fatalf("refused attachment: result %+v, want the share URL and wire-log.json stored", res)
	}
	if n := count(t, store); n != 1 {
		t.Fatalf("archive holds %d reports, want 1", n)
	}
	// 4. Once more with the right bytes: the wire log is already there (409),
	// the missing attachment arrives, still one report.
	up.Attachments[1].Body = audio
	again, err := c.UploadReport(ctx, up)
	if err != nil || again.ID != res.ID || len(again.Stored) != 2 {
		t.Fatalf("re-send: %+v, %v; want report %s with both attachments", again, err, res.ID)
	}
	if n := count(t, store); n != 1 {
		t.Errorf("archive holds %d reports after the re-send, want 1", n)
	}
	for name, want := range map[string][]byte{"wire-log.json": wire, "input.wav": audio} {
		got, err := http.Get(front.URL + "/api/reports/" + res.ID + "/attachments/" + name)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(got.Body)
		got.Body.Close()
		if string(b) != string(want) {
			t.Errorf("%s: stored %q, want %q", name, b, want)
		}
	}
}

func isCode(err error, code int) bool {
	var he *apiclient.Error
	return errors.As(err, &he) && he.Code == code
}

func count(t *testing.T, store archive.Store) int {
	t.Helper()
	page, err := store.List(context.Background(), archive.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	return len(page.Items)
}

// reportDeclaring is a valid report JSON declaring the attachments with
// their size and sha256, as the page and the CLI declare them.
func reportDeclaring(t *testing.T, atts map[string][]byte) []byte {
	t.Helper()
	r, err := report.New(report.Run{TargetURL: "ws://127.0.0.1:1/v1/realtime", Model: "sim", FrameMs: 200, Version: "test",
		Client: report.ClientCLI, Source: report.Source{Kind: report.SourceDataset, Dataset: "builtin"}},
		[]byte(`{"duplex_request_metrics":[],"duplex_session_metrics":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"wire-log.json", "input.wav"} {
		sum := sha256.Sum256(atts[name])
		r.Attachments = append(r.Attachments, report.Attachment{Name: name, Kind: report.AttachOther, ContentType: "application/octet-stream",
			SizeBytes: int64(len(atts[name])), SHA256: hex.EncodeToString(sum[:])})
	}
	report.Finish(r)
	b, err := report.MarshalIndent(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
