// Command hello is the wasm size baseline of issue 9: a go-app v10 hello
// world built exactly like web/app.wasm (GOOS=js GOARCH=wasm, -trimpath
// -ldflags "-s -w"). It lives under testdata so `go build ./...` skips it.
package main

import "github.com/maxence-charriere/go-app/v10/pkg/app"

type hello struct{ app.Compo }

func (h *hello) Render() app.UI { return app.H1().Text("Hello, world") }

func main() {
	app.Route("/", func() app.Composer { return &hello{} })
	app.RunWhenOnBrowser()
}
