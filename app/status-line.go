package app

import (
	"fmt"
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

// statusLine says what the session is doing, in words.
type statusLine struct {
	app.Compo
	Snap    liveSnapshot
	Pending string
	Source  string // the form's input source: a dataset needs no microphone
	// Actions.useClips switches the input to the bundled clips and starts
	// (the one-click way out of a refused or unavailable microphone).
	Actions *panelActions
}

func (s *statusLine) Render() app.UI {
	text := s.Snap.Status
	if text == "" {
		text = "Ready. Press Start, allow the microphone, and talk."
		if name, ok := strings.CutPrefix(s.Source, SourceDataset+":"); ok {
			text = "Ready. Press Start to stream the clips of dataset " + name + " (no microphone needed)."
		}
	}
	cls := "ds-status"
	if s.Snap.Phase == phaseFailed {
		cls += " ds-error"
	}
	detail := ""
	if s.Snap.SessionID != "" {
		detail = fmt.Sprintf("session %s · %.1f s of input sent · %d responses", s.Snap.SessionID, s.Snap.SentS, s.Snap.Responses)
	}
	// (Not on an insecure page: clips need the audio worklets it lacks.)
	micFix := s.Snap.Phase == phaseFailed && s.Snap.ErrorKind == failMicDenied && s.Actions != nil && s.Actions.useClips != nil
	// One polite live region announces each change of phase and status;
	// a failure is an alert (read at once).
	line := app.P().ID("status").Class(cls).Attr("data-phase", s.Snap.Phase).Attr("data-error", s.Snap.ErrorKind).Text(text)
	if s.Snap.Phase == phaseFailed {
		line = line.Attr("role", "alert")
	}
	return app.Div().ID("status-region").Attr("role", "status").Attr("aria-live", "polite").Body(
		line,
		app.If(micFix, func() app.UI {
			return app.P().Body(app.Elem("button").ID("btn-use-clips").Class("ds-btn").Text("Use the bundled clips instead").
				OnClick(func(ctx app.Context, e app.Event) { s.Actions.useClips(ctx) }))
		}),
		app.If(s.Snap.Error != "" && s.Snap.Phase != phaseFailed, func() app.UI {
			return app.P().ID("status-error").Class("ds-status ds-error").Attr("role", "alert").Text(s.Snap.Error)
		}),
		app.If(detail != "", func() app.UI { return app.P().Class("ds-hint").Text(detail) }),
		app.If(s.Pending != "", func() app.UI { return app.P().ID("pending-uploads").Class("ds-hint").Text(s.Pending) }),
	)
}
