package app

import (
	"context"
	"fmt"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

// probeTimeout bounds the HTTP probe of a target that refused a websocket.
const probeTimeout = 5 * time.Second

// probeTarget asks u with a no-cors fetch (the page reads nothing of the
// answer, only whether one came): a network error means nothing listens
// there, an answer means a server is there but did not upgrade.
func probeTarget(ctx context.Context, u string) probeResult {
	w := app.Window()
	opts := map[string]any{"mode": "no-cors", "cache": "no-store", "credentials": "omit"}
	if as := w.Get("AbortSignal"); !as.IsUndefined() && !as.Get("timeout").IsUndefined() {
		opts["signal"] = as.Call("timeout", int(probeTimeout/time.Millisecond))
	}
	if ctx.Err() != nil {
		return probeNone
	}
	if _, err := await(w.Call("fetch", u, jsObject(opts))); err != nil {
		return probeNetError
	}
	return probeAnswered
}

// dialFailure explains a failed session.Dial of s (dialled at dialURL):
// what failed and what to try.
func dialFailure(ctx context.Context, s Settings, dialURL string, err error) error {
	target, terr := s.TargetURL()
	if terr != nil {
		return fmt.Errorf("could not start a session at %s: %w", dialURL, err)
	}
	probe := probeNone
	if !s.Proxy && needsProbe(err) {
		if u, ok := probeURL(target); ok {
			probe = probeTarget(ctx, u)
		}
	}
	if ae := classifyDial(err, target, s.Proxy, probe); ae != err {
		return ae
	}
	return fmt.Errorf("could not start a session at %s: %w", dialURL, err)
}

// secureContext reports window.isSecureContext (https, localhost).
func secureContext() bool {
	v := app.Window().Get("isSecureContext")
	return v.IsUndefined() || v.Bool()
}
