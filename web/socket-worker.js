// socket-worker.js — owns the WebSocket of a page session for duplexscope's
// session worker (session.Config.SocketWorker). It does nothing else, so
// each message is stamped with performance.now() the moment it arrives,
// however busy the session worker is decoding the one before (an audio
// delta of a second of speech costs it several milliseconds); the stamp
// travels with the message, on this worker's clock (its timeOrigin is in
// "open").
//
// session worker → here: {type:"open", url} | {type:"send", data} | {type:"close", code, reason}
// here → session worker: {type:"open", origin} | {type:"message", data, at} |
//                        {type:"close", code, reason, opened}
let ws = null;
let opened = false;
self.onmessage = (e) => {
  const m = e.data;
  switch (m.type) {
    case "open":
      ws = new WebSocket(m.url);
      ws.binaryType = "arraybuffer";
      ws.onopen = () => {
        opened = true;
        self.postMessage({ type: "open", origin: performance.timeOrigin });
      };
      ws.onmessage = (ev) => {
        const at = performance.now();
        if (typeof ev.data === "string") self.postMessage({ type: "message", data: ev.data, at: at });
        else self.postMessage({ type: "message", data: ev.data, at: at }, [ev.data]);
      };
      ws.onerror = () => {}; // onclose follows with the details
      ws.onclose = (ev) => self.postMessage({ type: "close", code: ev.code, reason: ev.reason, opened: opened });
      break;
    case "send":
      if (ws && ws.readyState === 1) ws.send(m.data);
      break;
    case "close":
      try {
        if (ws) ws.close(m.code, m.reason);
      } catch (err) {
        if (ws) ws.close(); // an invalid code or reason: close all the same
      }
      break;
  }
};
