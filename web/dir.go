//go:build dev && !(js && wasm)

package web

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
)

// FS reads web/ from disk (development builds, -tags dev).
var FS fs.FS = os.DirFS(sourceDir())

func sourceDir() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "web"
	}
	return filepath.Dir(file)
}
