package session

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"syscall/js"
	"time"
)

// defaultTransport is the transport used when Config.Transport is empty.
const defaultTransport = TransportBrowser

func dial(ctx context.Context, name, url, socketWorker string, clock Clock) (Conn, error) {
	switch name {
	case "", TransportBrowser:
		if socketWorker != "" {
			if viaSocketWorker == nil {
				return nil, errors.New("dial: Config.SocketWorker is set but this program did not call session.UseSocketWorker")
			}
			return viaSocketWorker(ctx, url, socketWorker)
		}
		return dialBrowser(ctx, url, false)
	case TransportBrowserEventTime:
		return dialBrowser(ctx, url, true)
	case TransportCoder:
		return dialCoder(ctx, url, clock)
	default:
		return nil, fmt.Errorf("unknown transport %q (want %q, %q or %q)", name, TransportBrowser, TransportBrowserEventTime, TransportCoder)
	}
}

// browserConn wraps the page's WebSocket. onmessage stamps performance.now()
// (the same clock as SystemClock in wasm) before any Go code runs, and queues
// the message without blocking the JS event loop.
type browserConn struct {
	ws   js.Value
	perf js.Value
	fns  []js.Func

	releaseOnce sync.Once

	mu     sync.Mutex
	q      []Message
	closed error
	wake   chan struct{}
	open   chan struct{}

	// In a socket worker (socketworker_js.go): ws is that Worker, which
	// sends and closes on request; origin is its timeOrigin. warning says
	// why a socket asked to run in one runs here.
	inWorker bool
	origin   float64
	warning  string
}

func (c *browserConn) socketRealm() (float64, string) { return c.origin, c.warning }

func dialBrowser(ctx context.Context, url string, eventTime bool) (Conn, error) {
	ctor := js.Global().Get("WebSocket")
	if ctor.IsUndefined() {
		return nil, errors.New("dial: no WebSocket in this JavaScript environment (browser transport)")
	}
	c := &browserConn{perf: js.Global().Get("performance"), wake: make(chan struct{}, 1), open: make(chan struct{})}
	ws := ctor.New(url)
	ws.Set("binaryType", "arraybuffer")
	c.ws = ws
	var once sync.Once
	on := func(name string, f func(this js.Value, args []js.Value) any) {
		fn := js.FuncOf(f)
		c.fns = append(c.fns, fn)
		ws.Set(name, fn)
	}
	on("onmessage", func(_ js.Value, args []js.Value) any {
		at := durFromMs(c.perf.Call("now").Float())
		if eventTime {
			// MessageEvent.timeStamp: when the browser created the event,
			// on the performance.now() timeline, before any event-loop
			// queueing delay; 0 where a browser does not provide it.
			if ts := args[0].Get("timeStamp"); ts.Type() == js.TypeNumber && ts.Float() > 0 {
				at = durFromMs(ts.Float())
			}
		}
		at += timelineOffset
		c.enqueue(args[0].Get("data"), at)
		return nil
	})
	on("onopen", func(js.Value, []js.Value) any { once.Do(func() { close(c.open) }); return nil })
	on("onerror", func(js.Value, []js.Value) any { return nil }) // onclose follows with the details
	on("onclose", func(_ js.Value, args []js.Value) any {
		ev := args[0]
		opened := false
		select {
		case <-c.open:
			opened = true
		default:
		}
		c.onClose(&CloseError{Code: ev.Get("code").Int(), Reason: ev.Get("reason").String(), Opened: opened})
		once.Do(func() { close(c.open) })
		return nil
	})
	select {
	case <-c.open:
	case <-ctx.Done():
		c.release()
		ws.Call("close")
		return nil, fmt.Errorf("dial %s: %w", url, ctx.Err())
	}
	c.mu.Lock()
	err := c.closed
	c.mu.Unlock()
	if err != nil {
		c.release()
		return nil, fmt.Errorf("dial %s: %w", url, err)
	}
	return c, nil
}

// enqueue queues a received message (a string or an ArrayBuffer) stamped at.
func (c *browserConn) enqueue(d js.Value, at time.Duration) {
	var m Message
	if d.Type() == js.TypeString {
		m = Message{Data: []byte(d.String()), At: at}
	} else {
		u8 := js.Global().Get("Uint8Array").New(d)
		b := make([]byte, u8.Get("length").Int())
		js.CopyBytesToGo(b, u8)
		m = Message{Data: b, At: at, Binary: true}
	}
	c.mu.Lock()
	c.q = append(c.q, m)
	c.mu.Unlock()
	c.signal()
}

// onClose records why the socket closed (the first reason wins).
func (c *browserConn) onClose(err error) {
	c.mu.Lock()
	if c.closed == nil {
		c.closed = err
	}
	c.mu.Unlock()
	c.signal()
}

func (c *browserConn) signal() {
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

func (c *browserConn) Write(ctx context.Context, data []byte) error {
	c.mu.Lock()
	closed := c.closed
	c.mu.Unlock()
	if closed != nil {
		return closed
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if c.inWorker {
		c.ws.Call("postMessage", map[string]any{"type": "send", "data": string(data)})
		return nil
	}
	c.ws.Call("send", string(data))
	return nil
}

func (c *browserConn) Read(ctx context.Context) (Message, error) {
	for {
		c.mu.Lock()
		if len(c.q) > 0 {
			m := c.q[0]
			c.q = c.q[1:]
			c.mu.Unlock()
			return m, nil
		}
		closed := c.closed
		c.mu.Unlock()
		if closed != nil {
			c.releaseOnce.Do(c.release) // onclose has run: the callbacks are done
			return Message{}, closed
		}
		select {
		case <-c.wake:
		case <-ctx.Done():
			return Message{}, ctx.Err()
		}
	}
}

func (c *browserConn) Close(code int, reason string) (err error) {
	// A page's WebSocket may only send 1000 or 3000–4999 (1001 "going
	// away" throws) and a reason of at most 123 bytes; anything else would
	// panic the wasm, so it is sent as 1000 with the reason kept.
	if code != 1000 && (code < 3000 || code > 4999) {
		code = 1000
	}
	for len(reason) > 123 {
		reason = reason[:len(reason)-1]
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("closing the websocket: %v", r)
		}
	}()
	if c.inWorker {
		c.ws.Call("postMessage", map[string]any{"type": "close", "code": code, "reason": strings.ToValidUTF8(reason, "")})
		return nil
	}
	c.ws.Call("close", code, strings.ToValidUTF8(reason, ""))
	return nil
}

// release frees the JS callbacks (after the socket is closed) and ends
// the socket worker.
func (c *browserConn) release() {
	if c.inWorker {
		c.ws.Call("terminate")
	}
	for _, f := range c.fns {
		f.Release()
	}
	c.fns = nil
}
