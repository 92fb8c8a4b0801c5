//go:build !chartfloor

package main

import (
	"net/http"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

type hello struct{ app.Compo }

func newPage() app.Composer { return &hello{} }

// Render gives the heading the id "hello" only when rendered by the wasm
// (the server's prerendered HTML has "hello-static"), so the bench's mark
// is the app running, not the prerendered page.
func (*hello) Render() app.UI {
	id := "hello-static"
	if app.IsClient {
		id = "hello"
	}
	return app.H1().ID(id).Text("Hello, world!")
}

// handler is go-app's own: the hello world loads as go-app loads a page.
func handler(h *app.Handler) http.Handler { return h }
