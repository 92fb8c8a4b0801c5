// session-worker.js — starts duplexscope's session worker (web/session-worker.wasm,
// built from cmd/worker) in a dedicated Worker, so the WebSocket, the send
// schedule, receive stamps and playback acks never wait for the page's main
// thread. Messages that arrive while the wasm compiles are queued for it.
importScripts("/wasm_exec.js");
self.__dsQueue = [];
self.onmessage = (e) => self.__dsQueue.push(e);
const go = new Go();
WebAssembly.instantiateStreaming(fetch("/web/session-worker.wasm"), go.importObject)
  .then((r) => go.run(r.instance))
  .catch((err) => self.postMessage({ type: "fatal", text: "loading /web/session-worker.wasm: " + err }));
