package app

import (
	"fmt"
	"strconv"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

// stallText is the words every place uses for an active debug stall, so
// nobody mistakes a stalled run for a real one.
func stallText(ms, every int) string {
	return fmt.Sprintf("debug: main-thread stall %d ms every %d ms is on", ms, every)
}

// stallBanner is the page's visible notice of an active debug stall
// (nothing when off).
func stallBanner(ms, every int) app.UI {
	return app.If(ms > 0, func() app.UI {
		return app.P().ID("stall-warning").Class("ds-status ds-error").Role("status").
			Attr("data-stall-ms", strconv.Itoa(ms)).Attr("data-stall-every-ms", strconv.Itoa(every)).
			Text(stallText(ms, every) + " (stall_ms, stall_every_ms in the link): this page's main thread is kept busy on purpose, so its numbers show what main-thread load does, not the server.")
	})
}
