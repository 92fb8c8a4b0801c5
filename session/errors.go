package session

import (
	"errors"
	"fmt"
)

// HandshakeError: the session never opened (dial failed, an error event came
// instead of session.created, or session.created did not come in time).
type HandshakeError struct {
	Code string // server error code when an error event ended the handshake
	Err  error
}

func (e *HandshakeError) Error() string {
	if e.Code != "" {
		return fmt.Sprintf("handshake failed (server error %s): %v", e.Code, e.Err)
	}
	return fmt.Sprintf("handshake failed: %v", e.Err)
}
func (e *HandshakeError) Unwrap() error { return e.Err }

// ServerError is a server `error` event that fails the session (any code but
// the tolerated playback_ack_too_late / playback_item_not_found).
type ServerError struct {
	Code, Type, Message string
}

func (e *ServerError) Error() string {
	return fmt.Sprintf("server error %s (%s): %s", e.Code, e.Type, e.Message)
}

// UnexpectedCloseError: the server ended the session on its own
// (session.closed we did not ask for, or session.expired).
type UnexpectedCloseError struct {
	Type, Reason string
}

func (e *UnexpectedCloseError) Error() string {
	return fmt.Sprintf("unexpected %s: %s", e.Type, e.Reason)
}

// ResponseFailedError: a response.done reported status "failed".
type ResponseFailedError struct{ ResponseID string }

func (e *ResponseFailedError) Error() string {
	return fmt.Sprintf("response %s failed", e.ResponseID)
}

// CloseError is a browser WebSocket's close event: the code and reason
// the peer sent (1006 when none came: the browser hides why an upgrade
// failed) and whether the socket had opened first. The page reads it to
// say what failed.
type CloseError struct {
	Code   int
	Reason string
	Opened bool
}

func (e *CloseError) Error() string { return fmt.Sprintf("websocket closed: %d %s", e.Code, e.Reason) }

// ErrTransportDropped is wrapped when the socket ended without session.closed.
var ErrTransportDropped = errors.New("transport dropped without session.closed")

// dropped wraps a read error as ErrTransportDropped (same text as
// "%w: %v"), keeping a CloseError in the chain so the page can read the
// close code and reason; nothing else of err is unwrapped.
func dropped(err error) error { return droppedError{err} }

type droppedError struct{ err error }

func (e droppedError) Error() string { return ErrTransportDropped.Error() + ": " + e.err.Error() }
func (e droppedError) Unwrap() []error {
	if ce, ok := errors.AsType[*CloseError](e.err); ok {
		return []error{ErrTransportDropped, ce}
	}
	return []error{ErrTransportDropped}
}

// ErrCompletionTimeout is wrapped when the completion rule was not met in time.
var ErrCompletionTimeout = errors.New("completion rule not met before the timeout")

// tolerated reports whether a server error code is a harmless race that
// benchmarks record without failing (docs/protocol.md#errors).
func tolerated(code string) bool {
	return code == "playback_ack_too_late" || code == "playback_item_not_found"
}
