//go:build !dev && !(js && wasm)

package web

import (
	"embed"
	"io/fs"
)

// "app*" always matches app.css and picks up app.wasm(.gz/.br) when built;
// "session-worker*" matches session-worker.js and the worker's wasm when built.
//
//go:embed app* session-worker* *.js icons VERSIONS LICENSE NOTICE LICENSE-d3
var embedded embed.FS

// FS holds the static assets, paths relative to web/ ("app.css", "icons/icon.svg").
var FS fs.FS = embedded
