package app

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/duplexscope/duplexscope/session"
)

// Kinds of a failure a person can act on (actionError.Kind; the status
// line's data-error attribute).
const (
	failRefused   = "refused"    // nothing listens at the target
	failWrongPath = "wrong-path" // something answers, but no websocket there
	failClosed    = "closed"     // the server closed with a code and reason
	failMicDenied = "mic-denied" // the browser or the person refused the mic
	failInsecure  = "insecure"   // the mic needs https or localhost
	failTimeout   = "timeout"    // nothing answered in time
)

// actionError is a failure in words: what failed and what to try.
type actionError struct {
	Kind string
	What string // what failed
	Try  string // what to try
	Err  error  // the underlying error (kept for errors.Is/As)
}

func (e *actionError) Error() string { return e.What + ". " + e.Try }
func (e *actionError) Unwrap() error { return e.Err }

// probeResult is what a plain HTTP request to the target's host and path
// found after a websocket closed before opening (browsers hide why).
type probeResult int

const (
	probeNone     probeResult = iota // not probed (through the proxy, or a code that says enough)
	probeNetError                    // the request failed: nothing listens
	probeAnswered                    // something answered over HTTP
)

// probeURL is the http(s) URL of a websocket target (what a no-cors fetch
// asks to tell "refused" from "wrong path").
func probeURL(target string) (string, bool) {
	u, err := url.Parse(target)
	if err != nil || u.Host == "" {
		return "", false
	}
	switch u.Scheme {
	case "ws", "http":
		u.Scheme = "http"
	case "wss", "https":
		u.Scheme = "https"
	default:
		return "", false
	}
	u.RawQuery, u.Fragment = "", ""
	return u.String(), true
}

// needsProbe reports whether err is a websocket that closed with 1006
// before it opened: the only case where the browser hides the cause.
func needsProbe(err error) bool {
	ce, ok := errors.AsType[*session.CloseError](err)
	return ok && !ce.Opened && ce.Code == 1006
}

// Close codes the server's /proxy sends when an allowed target cannot be
// dialled (server.CloseRefused, server.CloseDialTimeout, 4000 + HTTP status).
const (
	proxyCloseRefused = 4502
	proxyCloseTimeout = 4504
)

// classifyDial turns a failed connection to target into an actionError;
// viaProxy when the page dialled the server's /proxy, probe what an HTTP
// request to a direct target found. Other errors come back unchanged.
func classifyDial(err error, target string, viaProxy bool, probe probeResult) error {
	ce, ok := errors.AsType[*session.CloseError](err)
	if !ok {
		return err
	}
	where := target
	if u, perr := url.Parse(target); perr == nil && u.Host != "" {
		where = u.Host + u.EscapedPath()
	}
	via := ""
	if viaProxy {
		via = " (through this server's proxy)"
	}
	// The proxy's own verdicts on its dial start with "proxy: "; the same
	// codes from the upstream are passed on as the server's close.
	proxyReason, fromProxy := strings.CutPrefix(ce.Reason, "proxy: ")
	fromProxy = fromProxy && viaProxy
	switch {
	case fromProxy && ce.Code == proxyCloseRefused:
		return &actionError{Kind: failRefused, Err: err,
			What: fmt.Sprintf("Connection refused%s: %s", via, proxyReason),
			Try:  "Check that the speech server is running and the host and port are right"}
	case fromProxy && ce.Code == proxyCloseTimeout:
		return &actionError{Kind: failTimeout, Err: err,
			What: fmt.Sprintf("No answer%s: %s", via, proxyReason),
			Try:  "Check the host name and that a firewall lets this server reach it"}
	case fromProxy && ce.Code >= 4300 && ce.Code < 4600:
		return &actionError{Kind: failWrongPath, Err: err,
			What: fmt.Sprintf("Wrong path%s: the target answered HTTP %d instead of a websocket (%s)", via, ce.Code-4000, proxyReason),
			Try:  "Check the path in the server URL (a vLLM-Omni server listens at /v1/realtime)"}
	case ce.Code == 1006 && !ce.Opened && viaProxy:
		return &actionError{Kind: failRefused, Err: err,
			What: "Could not reach this server's proxy (websocket closed: 1006 before it opened)",
			Try:  "Reload the page; if it persists, the page's server is not reachable or refuses the proxy (an address not listed with --proxy-allow gets 403)"}
	case ce.Code == 1006 && !ce.Opened && probe == probeNetError:
		return &actionError{Kind: failRefused, Err: err,
			What: fmt.Sprintf("Connection refused: nothing answers at %s", where),
			Try:  "Check that the speech server is running and the host and port are right; or tick \u201cConnect through this server's proxy\u201d if only this server can reach it"}
	case ce.Code == 1006 && !ce.Opened && probe == probeAnswered:
		return &actionError{Kind: failWrongPath, Err: err,
			What: fmt.Sprintf("Wrong path: a server answers at %s, but not as a websocket (the upgrade failed, e.g. 404)", where),
			Try:  "Check the path in the server URL (a vLLM-Omni server listens at /v1/realtime)"}
	case ce.Code == 1006 && !ce.Opened:
		return &actionError{Kind: failRefused, Err: err,
			What: fmt.Sprintf("Could not open a websocket to %s (closed with 1006 before it opened: refused, wrong path or blocked)", where),
			Try:  "Check that the server runs and the URL's host, port and path (/v1/realtime)"}
	case ce.Code == 1006:
		return &actionError{Kind: failClosed, Err: err,
			What: "The connection dropped without a close code (1006)" + via,
			Try:  "The server or the network ended the connection; check the server's log"}
	}
	reason := ce.Reason
	if reason == "" {
		reason = "no reason given"
	}
	return &actionError{Kind: failClosed, Err: err,
		What: fmt.Sprintf("The server closed the connection%s with code %d: %s", via, ce.Code, reason),
		Try:  closeAdvice(ce.Code)}
}

// closeAdvice is what to try after a close code.
func closeAdvice(code int) string {
	switch {
	case code == 1008:
		return "The server refused this client by policy (origin, token or model): check its log"
	case code == 1009:
		return "A message was too big for the server: try a smaller frame size"
	case code == 1011 || code == 1014:
		return "The server hit an internal error: check its log, then try again"
	case code == 1001 || code == 1012:
		return "The server is restarting or going away: try again in a moment"
	case code >= 4000:
		return "The reason above is the server's own: check its documentation or log"
	}
	return "Check the server's log, then try again"
}

// classifyMic turns a failed microphone request into an actionError:
// insecure when the page has no mediaDevices (not https or localhost),
// denied for a NotAllowedError/SecurityError, otherwise unchanged.
func classifyMic(err error, secureContext bool) error {
	if err == nil {
		return nil
	}
	if !secureContext {
		return insecurePage(err)
	}
	s := err.Error()
	if strings.Contains(s, "NotAllowedError") || strings.Contains(s, "Permission denied") || strings.Contains(s, "SecurityError") {
		return &actionError{Kind: failMicDenied, Err: err,
			What: "The microphone was blocked (permission denied)",
			Try:  "Allow it in the browser's site settings and press Start again, or use the bundled clips instead"}
	}
	if strings.Contains(s, "NotFoundError") || strings.Contains(s, "NotReadableError") {
		return &actionError{Kind: failMicDenied, Err: err,
			What: "No usable microphone was found (" + s + ")",
			Try:  "Connect or free a microphone, or use the bundled clips instead"}
	}
	return err
}

// insecurePage is the error of a page that is not a secure context:
// browsers give the microphone and audio worklets (which pace every input,
// clips too) only to https pages and localhost.
func insecurePage(err error) error {
	return &actionError{Kind: failInsecure, Err: err,
		What: "The microphone needs a secure page: browsers allow it (and the audio worklets every run uses) only over https or on localhost",
		Try:  "Open this page at https://… or at http://localhost:PORT (or 127.0.0.1), e.g. through an ssh tunnel to the server's port"}
}
