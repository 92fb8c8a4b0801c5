package session

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"syscall/js"
)

// errSocketWorker wraps why the socket worker could not start (no nested
// Workers here, its script did not load or threw): the socket then opens
// in this realm.
var errSocketWorker = errors.New("the socket worker could not start")

// viaSocketWorker is dialViaSocketWorker once UseSocketWorker has run.
// Only the session worker sets Config.SocketWorker; reached through this
// variable, none of this file's code is linked into the page's app.wasm.
var viaSocketWorker func(ctx context.Context, url, script string) (Conn, error)

// UseSocketWorker lets Config.SocketWorker take effect in this program
// (the session worker's main calls it before its first Dial).
func UseSocketWorker() { viaSocketWorker = dialViaSocketWorker }

// dialViaSocketWorker opens the browser transport's WebSocket in a
// dedicated worker running script (web/socket-worker.js), which stamps each
// message on arrival: a busy session worker (decoding a long audio delta,
// building a snapshot) delays its handling of a message, never its stamp.
// If the worker cannot start, the socket opens here, with a warning for
// the wire log.
func dialViaSocketWorker(ctx context.Context, url, script string) (Conn, error) {
	c, err := dialSocketWorker(ctx, url, script)
	if !errors.Is(err, errSocketWorker) {
		return c, err
	}
	conn, derr := dialBrowser(ctx, url, false)
	if derr != nil {
		return nil, derr
	}
	bc := conn.(*browserConn)
	bc.warning = err.Error() + "; the WebSocket ran in the session worker"
	return bc, nil
}

func dialSocketWorker(ctx context.Context, url, script string) (c *browserConn, err error) {
	ctor := js.Global().Get("Worker")
	if ctor.IsUndefined() {
		return nil, fmt.Errorf("%w: no Worker in this realm", errSocketWorker)
	}
	defer func() {
		if r := recover(); r != nil { // new Worker threw (a bad script URL)
			c, err = nil, fmt.Errorf("%w: %v", errSocketWorker, r)
		}
	}()
	c = &browserConn{perf: js.Global().Get("performance"), wake: make(chan struct{}, 1), open: make(chan struct{}), inWorker: true}
	w := ctor.New(script)
	c.ws = w
	var once sync.Once
	started := false // the worker's script ran: it answered
	offsetMs := 0.0  // socket worker's timeOrigin − this realm's
	onMsg := js.FuncOf(func(_ js.Value, args []js.Value) any {
		d := args[0].Get("data")
		switch d.Get("type").String() {
		case "message":
			c.enqueue(d.Get("data"), durFromMs(d.Get("at").Float()+offsetMs)+timelineOffset)
		case "open":
			started = true
			c.origin = d.Get("origin").Float()
			offsetMs = c.origin - js.Global().Get("performance").Get("timeOrigin").Float()
			once.Do(func() { close(c.open) })
		case "close":
			started = true
			c.onClose(&CloseError{Code: d.Get("code").Int(), Reason: d.Get("reason").String(), Opened: d.Get("opened").Bool()})
			once.Do(func() { close(c.open) })
		}
		return nil
	})
	onErr := js.FuncOf(func(_ js.Value, args []js.Value) any {
		msg := "script error"
		if len(args) > 0 && args[0].Get("message").Type() == js.TypeString {
			msg += ": " + args[0].Get("message").String()
		}
		if !started { // before any answer: the worker is unavailable
			c.onClose(fmt.Errorf("%w (%s): %s", errSocketWorker, script, msg))
			once.Do(func() { close(c.open) })
			return nil
		}
		// The socket's owner failed: the connection is gone with it.
		c.onClose(fmt.Errorf("the socket worker failed (%s): %w", msg, ErrTransportDropped))
		return nil
	})
	c.fns = append(c.fns, onMsg, onErr)
	w.Set("onmessage", onMsg)
	w.Set("onerror", onErr)
	w.Call("postMessage", map[string]any{"type": "open", "url": url})
	select {
	case <-c.open:
	case <-ctx.Done():
		c.release()
		return nil, fmt.Errorf("dial %s: %w", url, ctx.Err())
	}
	c.mu.Lock()
	err = c.closed
	c.mu.Unlock()
	switch {
	case errors.Is(err, errSocketWorker):
		c.release()
		return nil, err
	case err != nil:
		c.release()
		return nil, fmt.Errorf("dial %s: %w", url, err)
	}
	return c, nil
}
