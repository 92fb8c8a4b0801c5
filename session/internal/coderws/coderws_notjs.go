//go:build !js

package coderws

import (
	"context"

	"github.com/coder/websocket"
)

// The upstream types, so session's code is the same on both platforms.
type (
	Conn        = websocket.Conn
	CloseError  = websocket.CloseError
	StatusCode  = websocket.StatusCode
	MessageType = websocket.MessageType
)

// Message types.
const (
	MessageText   = websocket.MessageText
	MessageBinary = websocket.MessageBinary
)

// Dial is websocket.Dial with no options; the response is dropped.
func Dial(ctx context.Context, url string) (*Conn, error) {
	c, _, err := websocket.Dial(ctx, url, nil)
	return c, err
}

// CloseStatus is websocket.CloseStatus.
func CloseStatus(err error) StatusCode { return websocket.CloseStatus(err) }
