//go:build !js

package server_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/duplexscope/duplexscope/report"
	"github.com/duplexscope/duplexscope/server"
)

// TestHostileInput sends hostile bodies and paths to every endpoint that
// takes input: each gets a clear 4xx with an error message, and nothing is
// stored.
func TestHostileInput(t *testing.T) {
	lim := report.Limits{MaxBytes: 256 << 10, MaxDepth: 32, MaxArray: 1000, MaxString: 16 << 10, MaxRows: 500}
	e := newEnv(t, func(c *server.Config) { c.Limits = lim; c.MaxAttachment = 64 << 10 })
	valid := string(fixture{model: "m", n: 2, ttfp: 300}.json(t))
	vllm := string(readFile(t, "duplex_metrics.example.json"))
	inject := func(doc, v string) string {
		return `{"hostile": ` + v + `, ` + strings.TrimPrefix(strings.TrimSpace(doc), "{")
	}
	deep := strings.Repeat("[", 100) + strings.Repeat("]", 100)
	manyRows := `{"duplex_request_metrics":[` + strings.TrimSuffix(strings.Repeat(`{"response_id":"r","request_index":0,"session_id":"s"},`, 600), ",") + `],"duplex_session_metrics":[]}`
	type hostileCase struct {
		name, body, want string
		code             int
	}
	common := func(doc string) []hostileCase {
		return []hostileCase{
			{"empty", "", "", 400},
			{"not JSON", "hello", "", 400},
			{"null", "null", "", 400},
			{"array", "[]", "", 400},
			{"truncated", doc[:len(doc)/2], "", 400},
			{"trailing garbage", doc + "garbage", "", 400},
			{"oversize", doc + strings.Repeat(" ", 300<<10), "exceeds", 413},
			{"deep nesting", inject(doc, deep), "nesting deeper than 32", 400},
			{"NaN", inject(doc, "NaN"), "NaN", 400},
			{"Infinity", inject(doc, "Infinity"), "Infinity", 400},
			{"-Infinity", inject(doc, "-Infinity"), "malformed number", 400},
			{"1e999", inject(doc, "1e999"), "out of float64 range", 400},
			{"invalid UTF-8", inject(doc, "\"m\xc3\x28\""), "invalid UTF-8", 400},
			{"huge array", inject(doc, "["+strings.TrimSuffix(strings.Repeat("1,", 2000), ",")+"]"), "array longer than 1000", 400},
			{"long string", inject(doc, `"`+strings.Repeat("m", 20<<10)+`"`), "string of", 400},
		}
	}
	// Each case must fail for its own reason: the unmodified documents are accepted.
	probe := newEnv(t, func(c *server.Config) { c.Limits = lim })
	if c, _, b := probe.do("POST", "/api/reports", []byte(valid)); c != 201 {
		t.Fatalf("valid report rejected: %d %s", c, b)
	}
	if c, _, b := probe.do("POST", "/api/import", []byte(vllm)); c != 201 {
		t.Fatalf("valid import rejected: %d %s", c, b)
	}
	endpoints := map[string][]hostileCase{
		"/api/reports": append(common(valid),
			hostileCase{"NUL in model", strings.Replace(valid, `"model": "m"`, `"model": "m\u0000"`, 1), "NUL", 400},
			hostileCase{"unknown field", strings.Replace(valid, `"complete"`, `"__proto__": {}, "complete"`, 1), "unknown field", 400},
			hostileCase{"attachment path trick", strings.Replace(valid, `"complete"`, `"attachments":[{"name":"../../etc/passwd","kind":"other"}],"complete"`, 1), "attachments[0].name", 400},
		),
		"/api/import": append(common(vllm),
			hostileCase{"too many rows", manyRows, "600 rows, limit is 500", 400},
			hostileCase{"rows not a list", `{"duplex_request_metrics": "x"}`, "must be a JSON list", 400},
		),
	}
	for ep, cases := range endpoints {
		for _, tc := range cases {
			t.Run(ep+"/"+tc.name, func(t *testing.T) {
				code, hdr, b := e.do("POST", ep, []byte(tc.body))
				if code != tc.code || !strings.HasPrefix(hdr.Get("Content-Type"), "application/json") || !bytes.Contains(b, []byte(`"error":`)) || !bytes.Contains(b, []byte(tc.want)) {
					t.Errorf("status %d (want %d, error containing %q), body %.300s", code, tc.code, tc.want, b)
				}
			})
		}
	}
	id := upload(t, e, []byte(valid))
	paths := []struct {
		method, path string
	}{
		{"GET", "/api/reports/..%2F..%2Fetc%2Fpasswd"},
		{"GET", "/api/reports/%00"},
		{"GET", "/api/reports/" + strings.ToUpper(id)},
		{"GET", "/api/reports/" + id[:31]},
		{"GET", "/api/reports/" + id + "x"},
		{"DELETE", "/api/reports/..%2F" + id[3:]},
		{"GET", "/api/reports/" + id + "/export?format=../../x"},
		{"GET", "/api/reports/" + id + "/attachments/..%2F..%2Fx"},
		{"PUT", "/api/reports/" + id + "/attachments/%2e%2e"},
		{"PUT", "/api/reports/" + id + "/attachments/" + strings.Repeat("a", 200)},
		{"GET", "/r/..%2F" + id[3:]},
		{"GET", "/r/" + id + "%00"},
		{"GET", "/compare?ids=" + id + ",../x"},
		{"GET", "/runs/..%2Fetc"},
		{"GET", "/api/runs/%2e%2e"},
		{"GET", "/api/reports?since=%00"},
		{"GET", "/api/reports?model=" + strings.Repeat("m", 600)},
		{"GET", "/history?cursor=%ff%fe"},
		{"GET", "/proxy?target=%00"},
	}
	for _, p := range paths {
		code, _, b := e.do(p.method, p.path, []byte("x"))
		if code < 400 || code >= 500 {
			t.Errorf("%s %s = %d %.200s, want 4xx", p.method, p.path, code, b)
		}
	}
	// Nothing but the one valid upload was stored.
	_, _, b := e.do("GET", "/api/reports", nil)
	if n := strings.Count(string(b), `"url"`); n != 1 {
		t.Errorf("%d reports stored, want 1", n)
	}
	if c, _, _ := e.do("GET", "/api/reports/"+id+"/attachments/"+strings.Repeat("a", 200), nil); c != 400 {
		t.Errorf("long attachment name: %d", c)
	}
}
