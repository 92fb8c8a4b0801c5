// boot.js — starts compiling /web/app.wasm while the page's head is parsed.
//
// go-app's app.js is a deferred script: it runs (and used to start the
// compile) only after the whole document is parsed, 150–350 ms after
// navigation on a 2-core machine, while the preloaded wasm bytes waited.
// app.js (as served by app/handler.go) instantiates the module compiled
// here, or compiles it itself when this script has not run.
(function () {
  var q = new URLSearchParams(location.search);
  if (q.get("wasm") === "false" || /bot|googlebot|crawler|spider|robot|crawling/i.test(navigator.userAgent) || !WebAssembly.compileStreaming) {
    return; // app.js does not load the wasm either (go-app's own checks)
  }
  if (!self.dsAppWasm) {
    self.dsAppWasm = WebAssembly.compileStreaming(fetch("/web/app.wasm"));
    self.dsAppWasm.catch(function () {}); // app.js shows the failure when it awaits it
  }
})();
