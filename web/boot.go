package web

import "bytes"

// BootHeaders are the page head's lines that start app.wasm's download and
// compile while the head is parsed: the preload starts the download with
// the HTML (as=fetch + crossorigin=anonymous match the fetch), and boot.js
// (a parser-blocking script of 1 kB, so it runs before the body is parsed)
// starts the streaming compile. Serve go-app's app.js through EarlyAppJS
// so it instantiates that compile.
func BootHeaders() []string {
	return []string{
		`<link rel="preload" href="/web/app.wasm" as="fetch" crossorigin="anonymous">`,
		`<script src="/web/boot.js"></script>`,
	}
}

// appJSInstantiate is go-app v10.1.11's app.js wasm download and compile
// (the call's second argument, the imports, follows); EarlyAppJS puts
// appJSEarly in its place and defines dsInstantiate (appJSPrelude).
const (
	appJSInstantiate = "instantiateStreaming(\n      fetchWithProgress(\"/web/app.wasm\", showProgress),"
	appJSEarly       = "dsInstantiate("
	appJSPrelude     = `// duplexscope: app.wasm is compiled from the fetch web/boot.js started
// while the head was parsed (self.dsAppWasm), or from one started here.
async function dsInstantiate(imports) {
  if (!self.dsAppWasm) self.dsAppWasm = WebAssembly.compileStreaming(fetch("/web/app.wasm"));
  const module = await self.dsAppWasm;
  return { module, instance: await WebAssembly.instantiate(module, imports) };
}
`
)

// EarlyAppJS returns go-app's app.js with the wasm fetched straight into
// the streaming compiler, and instantiated from the compile boot.js
// started (BootHeaders).
//
// Why the early start: app.js is deferred, so it called
// instantiateStreaming 150–350 ms after navigation, once the document was
// parsed, while the preloaded wasm bytes waited.
//
// Why not go-app's fetch: go-app relays the download through a JavaScript
// ReadableStream to count its bytes for the loading label, so the
// streaming compiler gets each chunk only when the main thread has run the
// relay for it. On a fast link (the usual `duplexscope serve` on
// localhost) the relay, not the network, set the pace: cold loads of
// ?demo=1 reached the first chart point about 150 ms later with it on the
// bench machine (medians of 12 cold loads: 1.99× the hello world's first
// render with it, 1.82× without). A page served this way should not show
// a {progress} percentage in its loading label.
func EarlyAppJS(js []byte) []byte {
	js = bytes.Replace(js, []byte(appJSInstantiate), []byte(appJSEarly), 1)
	return append([]byte(appJSPrelude), js...)
}
