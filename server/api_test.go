//go:build !js

package server_test

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/duplexscope/duplexscope/dataset"
	"github.com/duplexscope/duplexscope/report"
	"github.com/duplexscope/duplexscope/server"
	"github.com/google/go-cmp/cmp"
)

func keys(t *testing.T, b []byte) []string {
	t.Helper()
	m := decode[map[string]json.RawMessage](t, b)
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func TestUploadGetList(t *testing.T) {
	e := newEnv(t, nil)
	body := fixture{model: "minicpm", n: 5, ttfp: 400}.json(t)
	code, hdr, b := e.do("POST", "/api/reports", body)
	if code != http.StatusCreated {
		t.Fatalf("POST /api/reports = %d %s", code, b)
	}
	if diff := cmp.Diff([]string{"id", "url"}, keys(t, b)); diff != "" {
		t.Errorf("upload response keys (-want +got):\n%s", diff)
	}
	up := decode[server.UploadResponse](t, b)
	if up.URL != "/r/"+up.ID || hdr.Get("Location") != up.URL || len(up.ID) != 32 {
		t.Errorf("upload = %+v, Location %q", up, hdr.Get("Location"))
	}

	code, hdr, b = e.do("GET", "/api/reports/"+up.ID, nil)
	if code != 200 || !strings.HasPrefix(hdr.Get("Content-Type"), "application/json") {
		t.Fatalf("GET report = %d %s", code, hdr.Get("Content-Type"))
	}
	got, err := report.Decode(b, report.DefaultLimits)
	if err != nil {
		t.Fatalf("stored report does not validate: %v", err)
	}
	if got.ID != up.ID || got.CreatedAt != "2026-12-02T12:00:00Z" || got.Run.Model != "minicpm" || len(got.Metrics.Requests) != 5 {
		t.Errorf("GET report: id %q created %q model %q rows %d", got.ID, got.CreatedAt, got.Run.Model, len(got.Metrics.Requests))
	}

	code, _, b = e.do("GET", "/api/reports", nil)
	if code != 200 {
		t.Fatalf("list = %d", code)
	}
	if diff := cmp.Diff([]string{"next", "reports"}, keys(t, b)); diff != "" {
		t.Errorf("list keys (-want +got):\n%s", diff)
	}
	list := decode[struct {
		Reports []map[string]any `json:"reports"`
		Next    *string          `json:"next"`
	}](t, b)
	if len(list.Reports) != 1 || list.Next != nil || !strings.Contains(string(b), `"next":null`) {
		t.Fatalf("list = %s", b)
	}
	item := list.Reports[0]
	if item["id"] != up.ID || item["model"] != "minicpm" || item["url"] != up.URL {
		t.Errorf("list item = %v", item)
	}
	if _, err := time.Parse(time.RFC3339, item["created_at"].(string)); err != nil {
		t.Errorf("created_at %v is not RFC 3339: %v", item["created_at"], err)
	}
}

func TestListFiltersAndCursor(t *testing.T) {
	e := newEnv(t, nil)
	var ids []string
	for i, model := range []string{"a", "b", "a", "b", "a"} {
		f := fixture{model: model, n: 1, ttfp: 300, seed: uint64(i)}
		if i == 2 {
			f.edit = func(r *report.Report) { r.Run.TargetURL = "wss://gpu-box.example/v1/realtime" }
		}
		code, _, b := e.do("POST", "/api/reports", f.json(t))
		if code != 201 {
			t.Fatalf("upload %d: %d %s", i, code, b)
		}
		ids = append([]string{decode[server.UploadResponse](t, b).ID}, ids...)
		e.clock.Advance(time.Minute)
	}
	type page struct {
		Reports []struct {
			ID string `json:"id"`
		} `json:"reports"`
		Next *string `json:"next"`
	}
	var got []string
	path := "/api/reports?limit=2"
	for i := 0; path != ""; i++ {
		if i > 5 {
			t.Fatal("cursor pagination does not end")
		}
		code, _, b := e.do("GET", path, nil)
		if code != 200 {
			t.Fatalf("GET %s = %d %s", path, code, b)
		}
		p := decode[page](t, b)
		for _, r := range p.Reports {
			got = append(got, r.ID)
		}
		path = ""
		if p.Next != nil {
			path = "/api/reports?limit=2&cursor=" + url.QueryEscape(*p.Next)
		}
	}
	if diff := cmp.Diff(ids, got); diff != "" {
		t.Errorf("paged ids (-want newest first +got):\n%s", diff)
	}
	cases := []struct {
		query string
		want  int
		code  int
	}{
		{"model=a", 3, 200},
		{"model=b", 2, 200},
		{"since=2026-12-02T12:03:00Z", 2, 200},
		{"since=2026-12-02", 5, 200},
		{"text=GPU-BOX", 1, 200},
		{"model=a&since=2026-12-02T12:01:00Z", 2, 200},
		{"since=yesterday", 0, 400},
		{"limit=0", 0, 400},
		{"limit=abc", 0, 400},
		{"cursor=bm90LWEtY3Vyc29y", 0, 400},
	}
	for _, tc := range cases {
		code, _, b := e.do("GET", "/api/reports?"+tc.query, nil)
		if code != tc.code {
			t.Errorf("%s: status %d, want %d (%s)", tc.query, code, tc.code, b)
			continue
		}
		if code == 200 {
			if n := len(decode[page](t, b).Reports); n != tc.want {
				t.Errorf("%s: %d reports, want %d", tc.query, n, tc.want)
			}
		} else if !strings.Contains(string(b), `"error"`) {
			t.Errorf("%s: error body %s", tc.query, b)
		}
	}
}

func TestIdempotency(t *testing.T) {
	e := newEnv(t, nil)
	body := fixture{model: "m", n: 2, ttfp: 300}.json(t)
	c1, _, b1 := e.do("POST", "/api/reports", body, "Idempotency-Key", "run-42")
	c2, h2, b2 := e.do("POST", "/api/reports", body, "Idempotency-Key", "run-42")
	if c1 != 201 || c2 != 201 || !bytes.Equal(b1, b2) || h2.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("retry: %d %s / %d %s replayed=%q", c1, b1, c2, b2, h2.Get("Idempotent-Replayed"))
	}
	other := fixture{model: "other", n: 2, ttfp: 300}.json(t)
	if c, _, b := e.do("POST", "/api/reports", other, "Idempotency-Key", "run-42"); c != http.StatusConflict {
		t.Errorf("same key, different report = %d %s, want 409", c, b)
	}
	if c, _, _ := e.do("POST", "/api/reports", body, "Idempotency-Key", "clé"); c != 400 {
		t.Errorf("non-ASCII key = %d, want 400", c)
	}
	_, _, b := e.do("GET", "/api/reports", nil)
	if n := strings.Count(string(b), `"url"`); n != 1 {
		t.Errorf("%d reports stored, want 1", n)
	}
}

func TestWriteToken(t *testing.T) {
	e := newEnv(t, func(c *server.Config) { c.WriteToken = "s3cret" })
	body := fixture{model: "m", n: 1, ttfp: 300}.json(t)
	cases := []struct {
		name string
		auth string
		want int
	}{
		{"no token", "", 401},
		{"wrong token", "Bearer nope", 401},
		{"token", "Bearer s3cret", 201},
		{"old page capability", "Bearer cap1.1796388990.Sm9hbm90YXZhbGlkc2lnbmF0dXJl", 401},
		{"basic auth", "Basic czNjcmV0", 401},
	}
	for _, tc := range cases {
		code, hdr, b := e.do("POST", "/api/reports", body, "Authorization", tc.auth)
		if code != tc.want {
			t.Errorf("%s: upload = %d %s, want %d", tc.name, code, b, tc.want)
		}
		if code == 401 && (hdr.Get("WWW-Authenticate") == "" || !strings.Contains(string(b), "/signin")) {
			t.Errorf("%s: 401 without WWW-Authenticate or the way to sign in: %s", tc.name, b)
		}
	}
	_, _, b := e.do("POST", "/api/reports", body, "Authorization", "Bearer s3cret")
	id := decode[server.UploadResponse](t, b).ID
	if c, _, _ := e.do("DELETE", "/api/reports/"+id, nil); c != 401 {
		t.Errorf("delete without token = %d, want 401", c)
	}
	// Reads need only the id.
	if c, _, _ := e.do("GET", "/r/"+id, nil); c != 200 {
		t.Errorf("share page without token = %d", c)
	}
	// An anonymous page carries no write capability at all.
	withApp := newEnv(t, func(c *server.Config) {
		c.WriteToken = "s3cret"
		c.App = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Write([]byte("<!doctype html><html><head><title>app</title></head><body>page</body></html>"))
		})
	})
	if _, _, page := withApp.do("GET", "/", nil); strings.Contains(string(page), "duplexscope-upload-capability") || strings.Contains(string(page), "cap1.") {
		t.Errorf("anonymous page carries a capability:\n%s", page)
	}
}

func TestDelete(t *testing.T) {
	e := newEnv(t, func(c *server.Config) { c.WriteToken = "tok" })
	_, _, b := e.do("POST", "/api/reports", fixture{model: "m", n: 1, ttfp: 300}.json(t), "Authorization", "Bearer tok")
	id := decode[server.UploadResponse](t, b).ID
	e.do("PUT", "/api/reports/"+id+"/attachments/a.bin", []byte("x"), "Authorization", "Bearer tok")
	if c, _, b := e.do("DELETE", "/api/reports/"+id, nil, "Authorization", "Bearer tok"); c != 204 {
		t.Fatalf("delete = %d %s", c, b)
	}
	for _, p := range []string{"/api/reports/" + id, "/r/" + id, "/api/reports/" + id + "/attachments/a.bin"} {
		if c, _, _ := e.do("GET", p, nil); c != 404 {
			t.Errorf("GET %s after delete = %d, want 404", p, c)
		}
	}
	if c, _, _ := e.do("DELETE", "/api/reports/"+id, nil, "Authorization", "Bearer tok"); c != 404 {
		t.Errorf("second delete = %d", c)
	}
	if c, _, _ := e.do("DELETE", "/api/reports/not-an-id", nil, "Authorization", "Bearer tok"); c != 400 {
		t.Errorf("delete of a bad id = %d", c)
	}
}

func TestImport(t *testing.T) {
	e := newEnv(t, nil)
	cases := []struct {
		file, query, format string
		rows, sessions      int
	}{
		{"duplex_metrics.example.json", "?model=minicpm-o-4.5&dataset=Omni-DuplexEval", report.FormatDuplexMetrics, 2, 1},
		{"omniinteract_result.example.json", "?model=minicpm-o-4.5", report.FormatSaveResult, 0, 2},
	}
	for _, tc := range cases {
		t.Run(tc.file, func(t *testing.T) {
			in := readFile(t, tc.file)
			code, _, b := e.do("POST", "/api/import"+tc.query, in)
			if code != 201 {
				t.Fatalf("import = %d %s", code, b)
			}
			if diff := cmp.Diff([]string{"id", "url"}, keys(t, b)); diff != "" {
				t.Errorf("import response keys (-want +got):\n%s", diff)
			}
			id := decode[server.UploadResponse](t, b).ID
			_, _, rb := e.do("GET", "/api/reports/"+id, nil)
			r, err := report.Decode(rb, report.DefaultLimits)
			if err != nil {
				t.Fatal(err)
			}
			if r.Imported == nil || r.Imported.Format != tc.format || r.Run.Model != "minicpm-o-4.5" || len(r.Metrics.Requests) != tc.rows || len(r.Metrics.Sessions) != tc.sessions {
				t.Errorf("imported report: %+v model %q rows %d sessions %d", r.Imported, r.Run.Model, len(r.Metrics.Requests), len(r.Metrics.Sessions))
			}
			// The vLLM export gives back what was imported (duplex parts).
			_, hdr, vb := e.do("GET", "/api/reports/"+id+"/export?format=vllm", nil)
			if !strings.Contains(hdr.Get("Content-Disposition"), "duplex_metrics.json") {
				t.Errorf("vllm export disposition %q", hdr.Get("Content-Disposition"))
			}
			var want, got map[string]any
			json.Unmarshal(in, &want)
			json.Unmarshal(vb, &got)
			for k, v := range want {
				if !strings.HasPrefix(k, "duplex_") {
					continue
				}
				if diff := cmp.Diff(v, got[k]); diff != "" {
					t.Errorf("export %s differs from the import (-in +out):\n%s", k, diff)
				}
			}
			if c, _, _ := e.do("GET", "/r/"+id, nil); c != 200 {
				t.Errorf("share page of the import = %d", c)
			}
		})
	}
	for _, bad := range []string{`{"results":[]}`, `[]`, `{"duplex_request_metrics": 5}`, `not json`} {
		if c, _, b := e.do("POST", "/api/import", []byte(bad)); c != 400 || !strings.Contains(string(b), `"error"`) {
			t.Errorf("import %s = %d %s, want 400", bad, c, b)
		}
	}
}

func TestExport(t *testing.T) {
	e := newEnv(t, nil)
	_, _, b := e.do("POST", "/api/reports", fixture{model: "m", n: 4, ttfp: 300}.json(t))
	id := decode[server.UploadResponse](t, b).ID
	_, _, stored := e.do("GET", "/api/reports/"+id, nil)
	cases := []struct {
		format, ctype string
		check         func(t *testing.T, body []byte)
	}{
		{"json", "application/json", func(t *testing.T, body []byte) {
			if !bytes.Equal(body, stored) {
				t.Error("json export differs from GET /api/reports/{id}")
			}
		}},
		{"vllm", "application/json", func(t *testing.T, body []byte) {
			m := decode[map[string]json.RawMessage](t, body)
			if m["duplex_request_metrics"] == nil || m["num_duplex_response_ttfp_ms_samples"] == nil || m["schema"] != nil {
				t.Errorf("vllm export keys: %v", keys(t, body))
			}
			if !bytes.HasPrefix(body, []byte("{\n  \"duplex_request_metrics\": [")) {
				t.Errorf("vllm export is not in vLLM's layout:\n%.200s", body)
			}
		}},
		{"csv", "text/csv", func(t *testing.T, body []byte) {
			lines := strings.Split(strings.TrimSpace(string(body)), "\n")
			if len(lines) != 5 || lines[0] != strings.Join(report.CSVColumns, ",") {
				t.Errorf("csv: %d lines, header %q", len(lines), lines[0])
			}
		}},
	}
	for _, tc := range cases {
		code, hdr, body := e.do("GET", "/api/reports/"+id+"/export?format="+tc.format, nil)
		if code != 200 || !strings.HasPrefix(hdr.Get("Content-Type"), tc.ctype) || !strings.HasPrefix(hdr.Get("Content-Disposition"), "attachment") {
			t.Errorf("%s: %d %q %q", tc.format, code, hdr.Get("Content-Type"), hdr.Get("Content-Disposition"))
			continue
		}
		tc.check(t, body)
	}
	if c, _, _ := e.do("GET", "/api/reports/"+id+"/export?format=xml", nil); c != 400 {
		t.Errorf("format=xml = %d, want 400", c)
	}
	// The saved file's name is part of each format's interface.
	for format, want := range map[string]string{
		"":            `attachment; filename="duplexscope-` + id + `.json"`,
		"json":        `attachment; filename="duplexscope-` + id + `.json"`,
		"vllm":        `attachment; filename="duplex_metrics.json"`,
		"vllm-result": `attachment; filename="vllm-result-` + id + `.json"`,
		"csv":         `attachment; filename="duplexscope-` + id + `.csv"`,
	} {
		if _, hdr, _ := e.do("GET", "/api/reports/"+id+"/export?format="+format, nil); hdr.Get("Content-Disposition") != want {
			t.Errorf("format=%s: Content-Disposition %q, want %q", format, hdr.Get("Content-Disposition"), want)
		}
	}
}

func TestAttachments(t *testing.T) {
	e := newEnv(t, func(c *server.Config) { c.MaxAttachment = 1000 })
	wav := append([]byte("RIFF"), make([]byte, 100)...)
	evil := []byte("<script>alert(1)</script>")
	_, _, b := e.do("POST", "/api/reports", fixture{model: "m", n: 1, ttfp: 300, edit: declare(
		att{"input.wav", "audio/wav", wav}, att{"evil.html", "text/html", evil}, att{"big.bin", "", make([]byte, 1001)})}.json(t))
	id := decode[server.UploadResponse](t, b).ID
	base := "/api/reports/" + id + "/attachments/"
	code, _, b := e.do("PUT", base+"input.wav", wav, "Content-Type", "audio/wav")
	if code != 201 {
		t.Fatalf("PUT attachment = %d %s", code, b)
	}
	if diff := cmp.Diff([]string{"name", "sha256", "size_bytes", "url"}, keys(t, b)); diff != "" {
		t.Errorf("attachment response keys (-want +got):\n%s", diff)
	}
	code, hdr, got := e.do("GET", base+"input.wav", nil)
	if code != 200 || !bytes.Equal(got, wav) || hdr.Get("Content-Type") != "audio/wav" || !strings.Contains(hdr.Get("Content-Security-Policy"), "sandbox") {
		t.Errorf("GET attachment = %d %q csp %q", code, hdr.Get("Content-Type"), hdr.Get("Content-Security-Policy"))
	}
	// HTML is never served as HTML.
	e.do("PUT", base+"evil.html", evil, "Content-Type", "text/html")
	if _, hdr, _ := e.do("GET", base+"evil.html", nil); hdr.Get("Content-Type") != "application/octet-stream" {
		t.Errorf("text/html attachment served as %q", hdr.Get("Content-Type"))
	}
	cases := []struct {
		name, path string
		body       []byte
		want       int
	}{
		{"too large", base + "big.bin", make([]byte, 1001), 413},
		{"missing report", "/api/reports/" + strings.Repeat("b", 32) + "/attachments/x.bin", []byte("x"), 404},
		{"dot name", base + ".hidden", []byte("x"), 400},
		{"encoded slash", base + "a%2Fb", []byte("x"), 400},
		{"bad id", "/api/reports/..%2F..%2Fetc/attachments/x", []byte("x"), 400},
	}
	for _, tc := range cases {
		if c, _, b := e.do("PUT", tc.path, tc.body); c != tc.want {
			t.Errorf("%s: PUT = %d %s, want %d", tc.name, c, b, tc.want)
		}
	}
	if c, _, _ := e.do("GET", base+"nope.bin", nil); c != 404 {
		t.Errorf("GET missing attachment = %d", c)
	}
}

func TestWasmAndPage(t *testing.T) {
	e := newEnv(t, nil)
	cases := []struct {
		accept, wantEnc, wantBody string
	}{
		{"gzip, deflate, br", "br", "brotli-bytes"},
		{"gzip", "gzip", "gzip-bytes"},
		{"br;q=0, gzip", "gzip", "gzip-bytes"},
		{"", "", "\x00asm-raw"},
		{"identity", "", "\x00asm-raw"},
	}
	for _, tc := range cases {
		req, _ := http.NewRequest("GET", e.http.URL+"/web/app.wasm", nil)
		if tc.accept != "" {
			req.Header.Set("Accept-Encoding", tc.accept)
		}
		tr := &http.Transport{DisableCompression: true}
		resp, err := (&http.Client{Transport: tr}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		buf.ReadFrom(resp.Body)
		resp.Body.Close()
		tr.CloseIdleConnections()
		if resp.Header.Get("Content-Encoding") != tc.wantEnc || buf.String() != tc.wantBody ||
			resp.Header.Get("Content-Type") != "application/wasm" || resp.Header.Get("Vary") != "Accept-Encoding" {
			t.Errorf("Accept-Encoding %q: encoding %q body %q type %q vary %q", tc.accept, resp.Header.Get("Content-Encoding"), buf.String(), resp.Header.Get("Content-Type"), resp.Header.Get("Vary"))
		}
	}
	if c, _, b := e.do("GET", "/web/echarts.min.js", nil); c != 200 || string(b) != "/* echarts */" {
		t.Errorf("echarts = %d %q", c, b)
	}
	if c, _, _ := e.do("GET", "/web/../server.go", nil); c == 200 {
		t.Error("path traversal under /web/ answered 200")
	}

	// A clean clone: no wasm at all.
	bare := newEnv(t, func(c *server.Config) { c.Web = fstest.MapFS{"app.css": {Data: []byte("x")}} })
	if c, _, b := bare.do("GET", "/web/app.wasm", nil); c != 404 || !strings.Contains(string(b), "wasm build is missing") {
		t.Errorf("missing wasm = %d %s", c, b)
	}
	if c, _, b := bare.do("GET", "/", nil); c != 200 || !strings.Contains(string(b), "wasm build is missing") {
		t.Errorf("page without wasm = %d %s", c, b)
	}

}

func TestRateLimit(t *testing.T) {
	e := newEnv(t, func(c *server.Config) { c.UploadRate, c.UploadBurst = 1, 2 })
	body := fixture{model: "m", n: 1, ttfp: 300}.json(t)
	want := []int{201, 201, 429}
	for i, w := range want {
		c, hdr, b := e.do("POST", "/api/reports", body)
		if c != w {
			t.Errorf("upload %d = %d %s, want %d", i, c, b, w)
		}
		if c == 429 && hdr.Get("Retry-After") == "" {
			t.Error("429 without Retry-After")
		}
	}
	e.clock.Advance(time.Second)
	if c, _, _ := e.do("POST", "/api/reports", body); c != 201 {
		t.Errorf("after a second = %d, want 201", c)
	}
	// Reads are not limited.
	for i := 0; i < 5; i++ {
		if c, _, _ := e.do("GET", "/api/reports", nil); c != 200 {
			t.Errorf("read %d limited: %d", i, c)
		}
	}
}

func TestHealthAndMetrics(t *testing.T) {
	e := newEnv(t, nil)
	code, _, b := e.do("GET", "/healthz", nil)
	if code != 200 || decode[server.Health](t, b).Status != "ok" {
		t.Errorf("healthz = %d %s", code, b)
	}
	e.do("POST", "/api/reports", fixture{model: "m", n: 1, ttfp: 300}.json(t))
	e.do("POST", "/api/reports", []byte("{"))
	_, _, m := e.do("GET", "/metrics", nil)
	for _, want := range []string{
		`duplexscope_uploads_total{kind="report",result="created"} 1`,
		`duplexscope_uploads_total{kind="report",result="invalid"} 1`,
		`duplexscope_http_requests_total{code="201",route="POST /api/reports"} 1`,
		`duplexscope_http_request_duration_seconds_count{route="GET /healthz"} 1`,
		`go_goroutines`,
	} {
		if !strings.Contains(string(m), want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
}

// TestDatasetsTurnTakingLabels: a clip entry carries its manifest record's
// "turntaking" member byte for byte (the page scores the labels the CLI
// scores); a record without one has no such key. Served from the bundled
// labelled set as `serve` configures it (dataset.Bundled).
func TestDatasetsTurnTakingLabels(t *testing.T) {
	e := newEnv(t, func(c *server.Config) { c.Datasets = dataset.Bundled() })
	man, err := fs.ReadFile(dataset.TurnTakingFS, "manifest.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{} // sample_id → raw "turntaking" member
	for _, line := range bytes.Split(bytes.TrimSpace(man), []byte("\n")) {
		var rec struct {
			SampleID   string          `json:"sample_id"`
			TurnTaking json.RawMessage `json:"turntaking"`
		}
		if err := json.Unmarshal(line, &rec); err != nil || len(rec.TurnTaking) == 0 {
			t.Fatalf("manifest line %s: %v (no labels?)", line, err)
		}
		want[rec.SampleID] = string(rec.TurnTaking)
	}
	code, _, b := e.do("GET", "/api/datasets/turntaking", nil)
	if code != 200 {
		t.Fatalf("GET /api/datasets/turntaking = %d %s", code, b)
	}
	got := map[string]string{}
	for _, c := range decode[server.DatasetResponse](t, b).Clips {
		got[c.SampleID] = string(c.TurnTaking)
		if cc, h, _ := e.do("GET", c.URL, nil); cc != 200 || h.Get("Content-Type") != "audio/wav" {
			t.Errorf("GET %s = %d %q", c.URL, cc, h.Get("Content-Type"))
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("turntaking members (-manifest +served):\n%s", diff)
	}
	_, _, b = e.do("GET", "/api/datasets/builtin", nil)
	if bytes.Contains(b, []byte(`"turntaking"`)) {
		t.Errorf("builtin clips have no labels, but the listing has a turntaking key: %s", b)
	}
}

func TestDatasets(t *testing.T) {
	clip := append([]byte("RIFF"), make([]byte, 40)...)
	e := newEnv(t, func(c *server.Config) {
		c.Datasets = map[string]fs.FS{"builtin": fstest.MapFS{
			"manifest.jsonl": {Data: []byte(`{"sample_id":"greeting","split":"builtin","audio":"greeting.wav","text":"Hello <b>there</b>"}` + "\n" + `{"sample_id":"evil","split":"x","audio":"../../etc/passwd"}` + "\n")},
			"greeting.wav":   {Data: clip},
		}}
	})
	code, _, b := e.do("GET", "/api/datasets/builtin", nil)
	if code != 200 {
		t.Fatalf("dataset = %d", code)
	}
	want := server.DatasetResponse{Name: "builtin", Clips: []server.DatasetClip{{SampleID: "greeting", Split: "builtin", Text: "Hello <b>there</b>", URL: "/api/datasets/builtin/greeting.wav"}}}
	if diff := cmp.Diff(want, decode[server.DatasetResponse](t, b)); diff != "" {
		t.Errorf("dataset (-want +got):\n%s", diff)
	}
	if c, h, b := e.do("GET", "/api/datasets/builtin/greeting.wav", nil); c != 200 || !bytes.Equal(b, clip) || h.Get("Content-Type") != "audio/wav" {
		t.Errorf("clip = %d %q", c, h.Get("Content-Type"))
	}
	for _, p := range []string{"/api/datasets/builtin/evil.wav", "/api/datasets/other", "/api/datasets/builtin/nope.wav", "/api/datasets/%2e%2e/x.wav"} {
		if c, _, _ := e.do("GET", p, nil); c != 404 {
			t.Errorf("GET %s = %d, want 404", p, c)
		}
	}
}
