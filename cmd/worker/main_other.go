//go:build !js

package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "worker: build with GOOS=js GOARCH=wasm (make wasm); it runs in the browser's session Worker")
	os.Exit(2)
}
