//go:build js && wasm

package web

import (
	"embed"
	"io/fs"
)

// FS is empty in the browser build: the page never serves its own assets,
// and embedding them would put app.wasm inside app.wasm.
var FS fs.FS = embed.FS{}
