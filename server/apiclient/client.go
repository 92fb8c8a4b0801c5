package apiclient

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// DefaultMaxAnswer is how much of an answer a Client reads when
// Client.MaxAnswer is 0: the archive's answers are small JSON documents.
const DefaultMaxAnswer = 1 << 20

// Doer sends one HTTP request; *http.Client is one.
type Doer interface {
	Do(*http.Request) (*http.Response, error)
}

// Client talks to one duplexscope server.
type Client struct {
	// Base is the server's URL, e.g. http://127.0.0.1:8080 (a trailing "/"
	// is ignored; a path prefix is kept).
	Base string
	// Token is sent as Authorization: Bearer (the write token, or a report
	// capability); "" sends none (an open archive, or the page's sign-in
	// cookie, which the browser adds itself).
	Token string
	// Header is sent with every request (a load run's capability); its
	// keys are canonical (http.CanonicalHeaderKey).
	Header http.Header
	// HTTP sends the requests; nil is http.DefaultClient natively and the
	// browser's fetch in wasm (fetch_js.go).
	HTTP Doer
	// MaxAnswer bounds the bytes read of one answer (0: DefaultMaxAnswer);
	// a 2xx answer over it is an error, not a truncated document.
	MaxAnswer int64
	// Sleep waits between the tries of an attachment (nil: a timer); tests
	// inject one.
	Sleep func(context.Context, time.Duration) error
}

// Call is one request to the API.
type Call struct {
	Method string
	Path   string // from the server's root, e.g. /api/reports, already escaped
	Body   []byte // nil: none
	// ContentType is sent when not "".
	ContentType string
	// Key is the Idempotency-Key, when not "".
	Key string
}

// Error is an answer that is not 2xx.
type Error struct {
	Method, Path string
	Code         int    // 503
	Status       string // "503 Service Unavailable"
	Text         string // the server's {"error"} message, or the start of the body
}

func (e *Error) Error() string {
	return e.Method + " " + e.Path + ": " + e.Status + ": " + e.Text
}

// URL is path on the server (Base joined with path).
func (c *Client) URL(path string) string { return strings.TrimRight(c.Base, "/") + path }

// JSON sends in as JSON (nil: no body) and decodes the answer into out
// (nil: the answer is dropped).
func (c *Client) JSON(ctx context.Context, method, path string, in, out any) error {
	call := Call{Method: method, Path: path}
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return fmt.Errorf("%s %s: %w", method, path, err)
		}
		call.Body, call.ContentType = b, "application/json"
	}
	return c.Send(ctx, call, out)
}

// Send makes one call and decodes a 2xx answer into out (nil: dropped; a
// *[]byte gets the bytes as they are). An answer that is not 2xx is an
// *Error.
func (c *Client) Send(ctx context.Context, call Call, out any) error {
	req, err := http.NewRequestWithContext(ctx, call.Method, c.URL(call.Path), bytes.NewReader(call.Body))
	if err != nil {
		return err
	}
	maps.Copy(req.Header, c.Header)
	if call.ContentType != "" {
		req.Header.Set("Content-Type", call.ContentType)
	}
	if call.Key != "" {
		req.Header.Set("Idempotency-Key", call.Key)
	}
	if c.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.Token)
	}
	var res *http.Response
	if c.HTTP != nil {
		res, err = c.HTTP.Do(req)
	} else {
		res, err = defaultDo(req)
	}
	if err != nil {
		return err
	}
	defer res.Body.Close()
	limit := c.MaxAnswer
	if limit <= 0 {
		limit = DefaultMaxAnswer
	}
	b, err := io.ReadAll(io.LimitReader(res.Body, limit+1))
	if res.StatusCode/100 != 2 {
		return &Error{Method: call.Method, Path: call.Path, Code: res.StatusCode, Status: res.Status, Text: errorText(b)}
	}
	if err == nil && int64(len(b)) > limit {
		err = errors.New("it is over " + strconv.FormatInt(limit, 10) + " bytes")
	}
	if raw, ok := out.(*[]byte); ok && err == nil {
		*raw = b
	} else if err == nil && out != nil {
		err = json.Unmarshal(b, out)
	}
	if err != nil {
		return fmt.Errorf("%s %s: reading the answer: %w", call.Method, call.Path, err)
	}
	return nil
}

// maxErrorText bounds the body text an *Error carries (a proxy's HTML page
// is not a message).
const maxErrorText = 512

// errorText is the message of an API error body ({"error": …}), or the
// start of the body itself when it is not one.
func errorText(body []byte) string {
	var e struct {
		Error string `json:"error"`
	}
	if json.Unmarshal(body, &e) == nil && e.Error != "" {
		return e.Error
	}
	s := strings.TrimSpace(string(body))
	if len(s) > maxErrorText {
		cut := maxErrorText
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

// KeyFor is the Idempotency-Key of a body its sender rebuilds byte for
// byte when it retries (the CLI's report.json, also after --resume):
// "run-" and 32 hex digits of its SHA-256.
func KeyFor(body []byte) string {
	h := sha256.Sum256(body)
	return "run-" + hex.EncodeToString(h[:16])
}

// NewKey is a fresh Idempotency-Key ("ds-" and 32 random hex digits) for an
// upload its sender keeps, key included, until it is delivered (the page's).
func NewKey() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return "ds-" + hex.EncodeToString(b[:])
}
