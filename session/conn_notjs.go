//go:build !js

package session

import (
	"context"
	"fmt"
)

// dial opens the transport named by name ("" = coder); socketWorker is
// for the browser only.
func dial(ctx context.Context, name, url, _ string, clock Clock) (Conn, error) {
	switch name {
	case "", TransportCoder:
		return dialCoder(ctx, url, clock)
	default:
		return nil, fmt.Errorf("transport %q is not available outside the browser (use %q)", name, TransportCoder)
	}
}

// defaultTransport is the transport used when Config.Transport is empty.
const defaultTransport = TransportCoder
