// Command wasm is duplexscope's browser page, built to web/app.wasm with
// GOOS=js GOARCH=wasm (make wasm). It only calls app.Main.
package main

import "github.com/duplexscope/duplexscope/app"

func main() { app.Main() }
