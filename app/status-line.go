package app

import (
	"fmt"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

// statusLine says what the session is doing, in words.
type statusLine struct {
	app.Compo
	Snap    liveSnapshot
	Pending string
}

func (s *statusLine) Render() app.UI {
	text := s.Snap.Status
	if text == "" {
		text = "Ready. Press Start, allow the microphone, and talk."
	}
	cls := "ds-status"
	if s.Snap.Phase == phaseFailed {
		cls += " ds-error"
	}
	detail := ""
	if s.Snap.SessionID != "" {
		detail = fmt.Sprintf("session %s · %.1f s of input sent · %d responses", s.Snap.SessionID, s.Snap.SentS, s.Snap.Responses)
	}
	return app.Div().Body(
		app.P().ID("status").Class(cls).Attr("data-phase", s.Snap.Phase).Text(text),
		app.If(s.Snap.Error != "" && s.Snap.Phase != phaseFailed, func() app.UI { return app.P().Class("ds-status ds-error").Text(s.Snap.Error) }),
		app.If(detail != "", func() app.UI { return app.P().Class("ds-hint").Text(detail) }),
		app.If(s.Pending != "", func() app.UI { return app.P().Class("ds-hint").Text(s.Pending) }),
	)
}
