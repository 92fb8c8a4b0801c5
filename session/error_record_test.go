package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
)

// TestErrorRecordRoundTrip: an error that crosses from the worker to the
// page through JSON keeps its words and every kind the page tests for.
func TestErrorRecordRoundTrip(t *testing.T) {
	cases := []struct {
		name string
		err  error
	}{
		{"refused dial", &HandshakeError{Err: fmt.Errorf("dial ws://x: %w", &CloseError{Code: 1006})}},
		{"handshake server error", &HandshakeError{Code: "model_not_found", Err: &ServerError{Code: "model_not_found", Type: "invalid_request_error", Message: "no"}}},
		{"server error", &ServerError{Code: "internal", Type: "server_error", Message: "boom"}},
		{"dropped with close", dropped(&CloseError{Code: 4502, Reason: "refused", Opened: true})},
		{"unexpected close", &UnexpectedCloseError{Type: "session.closed", Reason: "server_shutdown"}},
		{"response failed", &ResponseFailedError{ResponseID: "r1"}},
		{"completion timeout", fmt.Errorf("wait: %w", ErrCompletionTimeout)},
		{"canceled", fmt.Errorf("stream: %w", context.Canceled)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b, err := json.Marshal(RecordError(c.err))
			if err != nil {
				t.Fatal(err)
			}
			var rec ErrorRecord
			if err := json.Unmarshal(b, &rec); err != nil {
				t.Fatal(err)
			}
			got := rec.Err()
			if got.Error() != c.err.Error() {
				t.Errorf("text %q, want %q", got.Error(), c.err.Error())
			}
			same := func(name string, want, have bool) {
				if want != have {
					t.Errorf("%s: errors.As on the original %v, on the rebuilt %v", name, want, have)
				}
			}
			var he1, he2 *HandshakeError
			same("HandshakeError", errors.As(c.err, &he1), errors.As(got, &he2))
			if he1 != nil && he2 != nil && he1.Code != he2.Code {
				t.Errorf("handshake code %q, want %q", he2.Code, he1.Code)
			}
			var se1, se2 *ServerError
			same("ServerError", errors.As(c.err, &se1), errors.As(got, &se2))
			if se1 != nil && se2 != nil && *se1 != *se2 {
				t.Errorf("server error %+v, want %+v", *se2, *se1)
			}
			var ce1, ce2 *CloseError
			same("CloseError", errors.As(c.err, &ce1), errors.As(got, &ce2))
			if ce1 != nil && ce2 != nil && *ce1 != *ce2 {
				t.Errorf("close %+v, want %+v", *ce2, *ce1)
			}
			var ue1, ue2 *UnexpectedCloseError
			same("UnexpectedCloseError", errors.As(c.err, &ue1), errors.As(got, &ue2))
			var rf1, rf2 *ResponseFailedError
			same("ResponseFailedError", errors.As(c.err, &rf1), errors.As(got, &rf2))
			same("ErrTransportDropped", errors.Is(c.err, ErrTransportDropped), errors.Is(got, ErrTransportDropped))
			same("ErrCompletionTimeout", errors.Is(c.err, ErrCompletionTimeout), errors.Is(got, ErrCompletionTimeout))
			same("context.Canceled", errors.Is(c.err, context.Canceled), errors.Is(got, context.Canceled))
		})
	}
	if RecordError(nil) != nil || (*ErrorRecord)(nil).Err() != nil {
		t.Error("nil must stay nil")
	}
}
