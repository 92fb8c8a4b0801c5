// Command hello is the go-app hello world that BENCHMARKS.md compares the
// duplexscope page against (wasm size, page load, frame rate). The bench
// harness builds it exactly like web/app.wasm (GOOS=js GOARCH=wasm
// -trimpath -ldflags "-s -w", then go run ./internal/compress) and serves it
// with the same pre-compressed /web/ file handler:
//
//	hello -dir DIR -addr 127.0.0.1:0   # serves DIR/app.wasm{,.gz,.br}; prints http://ADDR
//
// In the browser it renders one <h1 id="hello"> (the server's prerendered
// HTML has id "hello-static" instead).
//
// Built with -tags chartfloor it is the start-up floor instead: the hello
// world plus what the duplexscope page cannot start without — echarts
// (deferred, from DIR/echarts.min.js) and one chart whose option Go builds
// with package chart (#chart-ttfp, one point, data-drawn-points set on
// echarts' "finished") — loaded as the page loads (web.BootHeaders,
// web.EarlyAppJS; DIR/boot.js).
package main

import (
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"strconv"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/duplexscope/duplexscope/web"
)

func main() {
	app.Route("/", newPage)
	app.RunWhenOnBrowser()

	dir := flag.String("dir", ".", "directory holding app.wasm (+ .gz, .br)")
	addr := flag.String("addr", "127.0.0.1:0", "listen address")
	flag.Parse()
	raw, err := os.ReadFile(*dir + "/app.wasm")
	if err != nil {
		fmt.Fprintln(os.Stderr, "Error:", err)
		os.Exit(1)
	}
	h := &app.Handler{
		Name:              "hello",
		Title:             "hello",
		Resources:         web.Resources(os.DirFS(*dir)),
		WasmContentLength: strconv.Itoa(len(raw)),
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "Error:", err)
		os.Exit(1)
	}
	fmt.Println("http://" + ln.Addr().String())
	if err := http.Serve(ln, handler(h)); err != nil {
		fmt.Fprintln(os.Stderr, "Error:", err)
		os.Exit(1)
	}
}
