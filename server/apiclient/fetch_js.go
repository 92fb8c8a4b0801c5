package apiclient

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"syscall/js"
)

// defaultDo sends req with the browser's fetch when Client.HTTP is nil.
//
// Not http.DefaultClient: in a browser it calls fetch as well, but its
// Client links net/http's whole native transport (HTTP/2, TLS, x509 and
// the crypto behind them) for the runtimes without fetch: 30 % of
// app.wasm's code, which the page never ran but downloaded and validated
// at every start.
//
// It asks what net/http's js transport asks (credentials "same-origin",
// redirects followed), streams the answer's body (Client.MaxAnswer bounds
// what is read of it), and aborts the request when req's context ends,
// also while the body is being read.
func defaultDo(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	var body []byte
	if req.Body != nil {
		b, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		body = b
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	global := js.Global()
	abort := global.Get("AbortController").New()
	opt := global.Get("Object").New()
	opt.Set("method", req.Method)
	opt.Set("credentials", "same-origin")
	opt.Set("signal", abort.Get("signal"))
	headers := global.Get("Headers").New()
	for k, vs := range req.Header {
		for _, v := range vs {
			headers.Call("append", k, v)
		}
	}
	opt.Set("headers", headers)
	if len(body) > 0 {
		buf := global.Get("Uint8Array").New(len(body))
		js.CopyBytesToJS(buf, body)
		opt.Set("body", buf)
	}
	stop := context.AfterFunc(ctx, func() { abort.Call("abort") })
	res, err := await(global.Call("fetch", req.URL.String(), opt))
	if err != nil {
		stop()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("fetch() failed: %w", err)
	}
	code := res.Get("status").Int()
	r := &http.Response{
		Status:        fmt.Sprintf("%d %s", code, http.StatusText(code)),
		StatusCode:    code,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        http.Header{},
		ContentLength: -1,
		Request:       req,
	}
	it := res.Get("headers").Call("entries")
	for n := it.Call("next"); !n.Get("done").Bool(); n = it.Call("next") {
		kv := n.Get("value")
		r.Header.Add(kv.Index(0).String(), kv.Index(1).String())
	}
	fb := &fetchBody{ctx: ctx, stop: stop}
	if b := res.Get("body"); b.Truthy() {
		fb.reader = b.Call("getReader")
	}
	r.Body = fb
	return r, nil
}

// fetchBody reads a fetch answer's ReadableStream a chunk at a time.
type fetchBody struct {
	ctx     context.Context
	stop    func() bool // stops the abort-on-cancel
	reader  js.Value    // undefined: no body (e.g. 204)
	pending []byte
	err     error // sticky
}

func (b *fetchBody) Read(p []byte) (int, error) {
	for len(b.pending) == 0 {
		if b.err != nil {
			return 0, b.err
		}
		if !b.reader.Truthy() {
			b.err = io.EOF
			continue
		}
		chunk, err := await(b.reader.Call("read"))
		switch {
		case err != nil && b.ctx.Err() != nil:
			b.err = b.ctx.Err()
		case err != nil:
			b.err = fmt.Errorf("reading the answer: %w", err)
		case chunk.Get("done").Bool():
			b.err = io.EOF
		default:
			v := chunk.Get("value")
			b.pending = make([]byte, v.Get("byteLength").Int())
			js.CopyBytesToGo(b.pending, v)
		}
	}
	n := copy(p, b.pending)
	b.pending = b.pending[n:]
	return n, nil
}

// Close stops the download (the stream's cancel; its promise is caught so
// an already failed stream does not report an unhandled rejection).
func (b *fetchBody) Close() error {
	b.stop()
	if b.reader.Truthy() && b.err != io.EOF {
		b.reader.Call("cancel").Call("catch", ignore)
	}
	if b.err == nil || b.err == io.EOF {
		b.err = errors.New("read of a closed answer")
	}
	return nil
}

// ignore is a rejection handler that drops the reason; package-wide, as a
// handler's promise may settle after its caller is gone.
var ignore = js.FuncOf(func(js.Value, []js.Value) any { return nil })

// await waits for promise: its value, or an error with the text of what
// it rejected with.
func await(promise js.Value) (js.Value, error) {
	type result struct {
		v   js.Value
		err error
	}
	ch := make(chan result, 1)
	var ok, fail js.Func
	ok = js.FuncOf(func(_ js.Value, args []js.Value) any {
		ch <- result{v: args[0]}
		return nil
	})
	fail = js.FuncOf(func(_ js.Value, args []js.Value) any {
		ch <- result{err: errors.New(jsErrorText(args[0]))}
		return nil
	})
	promise.Call("then", ok, fail)
	r := <-ch
	ok.Release()
	fail.Release()
	return r.v, r.err
}

// jsErrorText is a rejection reason as text: "TypeError: Failed to
// fetch", with its cause when it has one (node's fetch puts the socket's
// error there).
func jsErrorText(v js.Value) string {
	if v.Type() != js.TypeObject {
		return js.Global().Get("String").Invoke(v).String()
	}
	s := v.Call("toString").String()
	if c := v.Get("cause"); c.Truthy() {
		s += ": " + js.Global().Get("String").Invoke(c).String()
	}
	return s
}
