package session

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	websocket "github.com/duplexscope/duplexscope/session/internal/coderws"
)

// Message is one received text frame and its receive instant on the
// session's Clock.
type Message struct {
	Data   []byte
	At     time.Duration
	Binary bool // binary frames are ignored by the protocol (and logged as local notes)
}

// Conn is a websocket as the session needs it. Write may be called
// concurrently with Read; Writes are serialised by the session.
type Conn interface {
	Write(ctx context.Context, data []byte) error
	// Read returns the next message, stamped as close to its arrival as
	// the transport allows.
	Read(ctx context.Context) (Message, error)
	// Close performs the close handshake with code and reason.
	Close(code int, reason string) error
}

// Transports selectable with Config.Transport.
const (
	TransportCoder   = "coder"   // github.com/coder/websocket (native and wasm); stamp when Read returns
	TransportBrowser = "browser" // wasm only: the browser WebSocket via syscall/js; stamp performance.now() in onmessage
	// TransportBrowserEventTime is the browser WebSocket stamped with the
	// MessageEvent's own timeStamp (same timeline as performance.now(),
	// taken when the event was queued, so event-loop delay is excluded).
	TransportBrowserEventTime = "browser-event-time"
)

// maxMessage is the reference clients' maximum frame size (64 MiB).
const maxMessage = 64 << 20

// coderConn is the coder/websocket transport.
type coderConn struct {
	c     *websocket.Conn
	clock Clock
	buf   bytes.Buffer // read buffer, reused (Read is not called concurrently)
}

func dialCoder(ctx context.Context, url string, clock Clock) (Conn, error) {
	c, err := websocket.Dial(ctx, url)
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", url, err)
	}
	c.SetReadLimit(maxMessage)
	return &coderConn{c: c, clock: clock}, nil
}

func (c *coderConn) Write(ctx context.Context, data []byte) error {
	return c.c.Write(ctx, websocket.MessageText, data)
}

// Read reads one message into a reused buffer (no regrowth per audio
// delta), stamps it as soon as its last byte is in, then copies it out.
func (c *coderConn) Read(ctx context.Context) (Message, error) {
	typ, r, err := c.c.Reader(ctx)
	if err != nil {
		return Message{}, err
	}
	c.buf.Reset()
	if _, err := c.buf.ReadFrom(r); err != nil {
		return Message{}, err
	}
	at := c.clock.Now()
	return Message{Data: bytes.Clone(c.buf.Bytes()), At: at, Binary: typ == websocket.MessageBinary}, nil
}

func (c *coderConn) Close(code int, reason string) error {
	err := c.c.Close(websocket.StatusCode(code), reason)
	if _, ok := errors.AsType[websocket.CloseError](err); ok || errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// closeStatus extracts a websocket close code from a read error (-1 if none).
func closeStatus(err error) int {
	return int(websocket.CloseStatus(err))
}
