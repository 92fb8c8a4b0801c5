// Package web holds the page's static assets: app.css, the audio worklets,
// the vendored echarts runtime (with its licence and VERSIONS), the icons, and
// the built app.wasm with its pre-compressed app.wasm.gz / app.wasm.br.
//
// FS is embedded by default (empty under GOOS=js, so app.wasm never embeds
// itself); build with -tags dev to read web/ from disk so
// edits to CSS and worklets show up without rebuilding the server. The built
// wasm files may be absent (a clean clone): FS then simply lacks app.wasm and
// the page handler says so.
//
// Handler serves FS and answers /app.wasm with the pre-compressed variant the
// client accepts (Content-Encoding br or gzip), never compressing at run time.
// BootHeaders and EarlyAppJS start app.wasm's compile from the page's head
// (boot.js) and make go-app's app.js instantiate it.
package web
