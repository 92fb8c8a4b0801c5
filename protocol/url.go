package protocol

import (
	"fmt"
	"net/url"
)

// RealtimePath is the endpoint path used when a base URL has none.
const RealtimePath = "/v1/realtime"

// BuildRealtimeURL turns a base URL into the duplex websocket URL (docs/protocol.md#endpoint):
// http → ws, https → wss (ws/wss kept); an empty or "/" path becomes
// /v1/realtime; each key of defaults is set only when the URL lacks it
// (setdefault, e.g. model); duplex=1 and autostart=0 are always forced.
func BuildRealtimeURL(base string, defaults url.Values) (string, error) {
	u, err := url.Parse(base)
	if err != nil {
		return "", fmt.Errorf("protocol: realtime url %q: %w", base, err)
	}
	switch u.Scheme {
	case "http":
		u.Scheme = "ws"
	case "https":
		u.Scheme = "wss"
	case "ws", "wss":
	default:
		return "", fmt.Errorf("protocol: realtime url %q: scheme must be http, https, ws or wss", base)
	}
	if u.Host == "" {
		return "", fmt.Errorf("protocol: realtime url %q: no host", base)
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = RealtimePath
		u.RawPath = ""
	}
	q := u.Query()
	for k, vs := range defaults {
		if _, ok := q[k]; !ok && len(vs) > 0 {
			q[k] = append([]string(nil), vs...)
		}
	}
	q.Set("duplex", "1")
	q.Set("autostart", "0")
	u.RawQuery = q.Encode()
	return u.String(), nil
}
