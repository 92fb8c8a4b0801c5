package app

import (
	"sync"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

var routesOnce sync.Once

// Routes registers the wasm page's routes and action handlers (the server
// process needs the routes too, to prerender). Idempotent.
func Routes() {
	routesOnce.Do(func() {
		app.Route("/", func() app.Composer { return newDashboardPage() })
		app.Route("/load", func() app.Composer { return &loadPage{} })
		app.Handle(actionStart, handleStart)
		app.Handle(actionStop, handleStop)
		app.Handle(actionPlayMoment, handlePlayMoment)
		app.Handle(actionRetryPending, handleRetryPending)
		app.Handle(actionProbe, handleProbe)
		app.Handle(actionLoadStart, handleLoadStart)
		app.Handle(actionLoadStop, handleLoadStop)
	})
}

// Main is the wasm entry point (cmd/wasm): routes, then go-app's browser loop.
func Main() {
	Routes()
	app.RunWhenOnBrowser()
}
