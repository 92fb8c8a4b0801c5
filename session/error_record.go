package session

import (
	"context"
	"errors"
)

// ErrorRecord is a session error flattened to JSON, so an error that
// happened in a Worker reaches the page with its words and its kinds: the
// page tells a refused dial from a server close by errors.As, and that must
// not depend on which thread ran the session.
type ErrorRecord struct {
	Text              string                `json:"text"`
	Handshake         *HandshakeError       `json:"handshake,omitempty"` // Err is not kept (see Err)
	Server            *ServerError          `json:"server,omitempty"`
	Close             *CloseError           `json:"close,omitempty"`
	Unexpected        *UnexpectedCloseError `json:"unexpected,omitempty"`
	ResponseFailed    *ResponseFailedError  `json:"response_failed,omitempty"`
	Dropped           bool                  `json:"dropped,omitempty"`
	CompletionTimeout bool                  `json:"completion_timeout,omitempty"`
	Canceled          bool                  `json:"canceled,omitempty"`
}

// RecordError flattens err (nil for nil).
func RecordError(err error) *ErrorRecord {
	if err == nil {
		return nil
	}
	r := &ErrorRecord{Text: err.Error()}
	if he, ok := errors.AsType[*HandshakeError](err); ok {
		r.Handshake = &HandshakeError{Code: he.Code}
	}
	r.Server, _ = errors.AsType[*ServerError](err)
	r.Close, _ = errors.AsType[*CloseError](err)
	r.Unexpected, _ = errors.AsType[*UnexpectedCloseError](err)
	r.ResponseFailed, _ = errors.AsType[*ResponseFailedError](err)
	r.Dropped = errors.Is(err, ErrTransportDropped)
	r.CompletionTimeout = errors.Is(err, ErrCompletionTimeout)
	r.Canceled = errors.Is(err, context.Canceled)
	return r
}

// Err rebuilds the error: the same text, and errors.As / errors.Is find
// the same kinds (a HandshakeError wraps the rest, as Dial's do).
func (r *ErrorRecord) Err() error {
	if r == nil {
		return nil
	}
	var parts []error
	add := func(ok bool, e error) {
		if ok {
			parts = append(parts, e)
		}
	}
	add(r.Server != nil, r.Server)
	add(r.Close != nil, r.Close)
	add(r.Unexpected != nil, r.Unexpected)
	add(r.ResponseFailed != nil, r.ResponseFailed)
	add(r.Dropped, ErrTransportDropped)
	add(r.CompletionTimeout, ErrCompletionTimeout)
	add(r.Canceled, context.Canceled)
	var err error = recordedError{text: r.Text, parts: parts}
	if r.Handshake != nil {
		err = &HandshakeError{Code: r.Handshake.Code, Err: err}
		return recordedError{text: r.Text, parts: []error{err}}
	}
	return err
}

// recordedError keeps the original words and unwraps to the typed parts.
type recordedError struct {
	text  string
	parts []error
}

func (e recordedError) Error() string   { return e.text }
func (e recordedError) Unwrap() []error { return e.parts }
