package apiclient_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"syscall/js"
	"testing"

	"github.com/duplexscope/duplexscope/server/apiclient"
)

// The wasm client sends through the global fetch (fetch_js.go). These tests
// (node, `make wasmtest`) replace fetch with a JS fake that answers with
// real Response objects; client_test.go's httptest archive is native only,
// as its listener is not one fetch can reach.

// fakeFetch makes fetch the function body src (arguments url and opt; it
// may call hook(), a Go func) for the test, and returns the calls array
// ({url, opt} each).
func fakeFetch(t *testing.T, src string, hook func()) js.Value {
	t.Helper()
	g := js.Global()
	calls := g.Get("Array").New()
	h := js.FuncOf(func(js.Value, []js.Value) any {
		if hook != nil {
			hook()
		}
		return nil
	})
	factory := g.Get("Function").New("calls", "hook", "return function(url, opt) { calls.push({url: url, opt: opt}); "+src+" };")
	old := g.Get("fetch")
	g.Set("fetch", factory.Invoke(calls, h))
	t.Cleanup(func() {
		g.Set("fetch", old)
		h.Release()
	})
	return calls
}

func TestFetchSendsTheCall(t *testing.T) {
	calls := fakeFetch(t, `return Promise.resolve(new Response('{"id":"r1"}', {status: 201, headers: {"Content-Type": "application/json"}}));`, nil)
	c := apiclient.Client{Base: "http://archive.test/x/", Token: "tok", Header: http.Header{"X-Cap": {"c1"}}}
	var out struct{ ID string }
	body := `{"a":1}`
	err := c.Send(context.Background(), apiclient.Call{Method: http.MethodPost, Path: "/api/reports", Body: []byte(body), ContentType: "application/json", Key: "k1"}, &out)
	if err != nil {
		t.Fatal(err)
	}
	if out.ID != "r1" {
		t.Errorf("answer decoded to %+v, want id r1", out)
	}
	if n := calls.Length(); n != 1 {
		t.Fatalf("fetch called %d times, want 1", n)
	}
	call := calls.Index(0)
	opt := call.Get("opt")
	got := map[string]string{
		"url":         call.Get("url").String(),
		"method":      opt.Get("method").String(),
		"credentials": opt.Get("credentials").String(),
	}
	for _, h := range []string{"authorization", "idempotency-key", "content-type", "x-cap"} {
		got[h] = opt.Get("headers").Call("get", h).String()
	}
	b := make([]byte, opt.Get("body").Get("length").Int())
	js.CopyBytesToGo(b, opt.Get("body"))
	got["body"] = string(b)
	want := map[string]string{
		"url":             "http://archive.test/x/api/reports",
		"method":          "POST",
		"credentials":     "same-origin",
		"authorization":   "Bearer tok",
		"idempotency-key": "k1",
		"content-type":    "application/json",
		"x-cap":           "c1",
		"body":            body,
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("fetch's %s = %q, want %q", k, got[k], w)
		}
	}
}

func TestFetchAnswers(t *testing.T) {
	tests := []struct {
		name, answer string
		maxAnswer    int64
		wantCode     int    // an *apiclient.Error with this code; 0: none
		wantText     string // in the error; "": no error
		wantRaw      string
	}{
		{name: "error answer", answer: `new Response('{"error":"disk full"}', {status: 507})`, wantCode: 507, wantText: "507 Insufficient Storage: disk full"},
		{name: "no body", answer: `new Response(null, {status: 204})`},
		{name: "bytes", answer: `new Response(new Uint8Array([0, 1, 255]), {status: 200})`, wantRaw: "\x00\x01\xff"},
		{name: "over the bound", answer: `new Response('12345678901', {status: 200})`, maxAnswer: 10, wantText: "over 10 bytes"},
		{name: "no answer", answer: `Promise.reject(new TypeError("Failed to fetch"))`, wantText: "fetch() failed: TypeError: Failed to fetch"},
		{name: "body fails", answer: `new Response(new ReadableStream({pull(c) { c.error(new Error("connection reset")); }}), {status: 200})`, wantText: "connection reset"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fakeFetch(t, "return Promise.resolve("+tc.answer+");", nil)
			c := apiclient.Client{Base: "http://archive.test", MaxAnswer: tc.maxAnswer}
			var raw []byte
			err := c.Send(context.Background(), apiclient.Call{Method: http.MethodGet, Path: "/api/x"}, &raw)
			if tc.wantText == "" {
				if err != nil || string(raw) != tc.wantRaw {
					t.Fatalf("got %q, %v; want %q", raw, err, tc.wantRaw)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantText) {
				t.Fatalf("error %v, want one with %q", err, tc.wantText)
			}
			code := 0
			if he, ok := errors.AsType[*apiclient.Error](err); ok {
				code = he.Code
			}
			if code != tc.wantCode {
				t.Errorf("an *apiclient.Error with code %d, want %d (0: none)", code, tc.wantCode)
			}
		})
	}
}

// A context that ends aborts the fetch, before the answer and while its
// body is read, and Send returns the context's error.
func TestFetchCancel(t *testing.T) {
	// As fetch does: fail at once when the signal is aborted already (hook
	// cancels the context from inside the call), else when it is; after 5 s
	// without an abort, fail with words that say so instead of hanging.
	const aborts = `var abort = function() { fail(new DOMException("The operation was aborted.", "AbortError")); }; if (opt.signal.aborted) { abort(); } else { opt.signal.addEventListener("abort", abort); } setTimeout(function() { fail(new Error("the signal was never aborted")); }, 5000);`
	tests := []struct{ name, src string }{
		{"waiting for the answer", `hook(); return new Promise(function(ok, fail) { ` + aborts + ` });`},
		{"reading the body", `var n = 0; return Promise.resolve(new Response(new ReadableStream({start(c) { var fail = function(e) { c.error(e); }; ` + aborts + ` }, pull(c) { if (n++ === 0) { c.enqueue(new Uint8Array([123])); } else { hook(); } }}), {status: 200}));`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			calls := fakeFetch(t, tc.src, cancel)
			c := apiclient.Client{Base: "http://archive.test"}
			err := c.Send(ctx, apiclient.Call{Method: http.MethodGet, Path: "/api/x"}, nil)
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("error %v, want context.Canceled", err)
			}
			if !calls.Index(0).Get("opt").Get("signal").Get("aborted").Bool() {
				t.Error("the fetch's signal was not aborted")
			}
		})
	}
}
