//go:build !js

package bench

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/duplexscope/duplexscope/audio"
	"github.com/duplexscope/duplexscope/protocol"
	"github.com/duplexscope/duplexscope/trace"
)

// The browser's own floor: a WebSocket in a dedicated Worker of an empty
// page, no duplexscope code, stamping each message with performance.now()
// first thing in onmessage (as the page's socket worker does). What it
// measures against the simulator's truth is what Chrome's delivery path
// (network service → renderer → worker thread) costs on this machine, so
// the page's worker rows can be read against it as well as against the
// native runner.

// jsBarePage starts the worker and keeps its result for the harness.
const jsBarePage = `<!doctype html><meta charset="utf-8"><title>bare</title><script>
window.__bare = null;
const w = new Worker("/worker.js");
w.onmessage = (e) => { window.__bare = e.data; };
w.postMessage("go");
</script>`

// jsBareWorker follows plan.json: dial, session.update, the appends on a
// 200 ms schedule, the final commit; once every response is done and
// nothing arrived for settle_ms, session.close. It posts the stamps and the
// received frames' types (parsed after the run, never before a stamp).
const jsBareWorker = `self.onmessage = async () => {
  try {
    const plan = await (await fetch("/plan.json")).json();
    const at = [], data = [];
    let last = performance.now(), closed = false;
    const ws = new WebSocket(plan.url);
    ws.onmessage = (ev) => {
      const t = performance.now();
      at.push(t); data.push(ev.data); last = t;
      if (ev.data.indexOf('"session.closed"') >= 0) closed = true;
    };
    await new Promise((ok, fail) => { ws.onopen = ok; ws.onerror = () => fail(new Error("websocket error")); });
    const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
    ws.send(plan.update);
    const t0 = performance.now();
    for (let k = 0; k < plan.appends.length; k++) {
      const wait = t0 + k * plan.frame_ms - performance.now();
      if (wait > 0) await sleep(wait);
      ws.send(plan.appends[k]);
    }
    ws.send(plan.commit);
    const open = () => {
      const st = {};
      for (const d of data) {
        const m = JSON.parse(d), id = m.response && m.response.id || m.response_id;
        if (m.type === "response.created") st[id] = false;
        if (m.type === "response.done") st[id] = true;
      }
      return Object.values(st).some((done) => !done);
    };
    const deadline = performance.now() + 120000;
    while ((performance.now() - last < plan.settle_ms || open()) && performance.now() < deadline) await sleep(50);
    ws.send(plan.close);
    const end = performance.now() + 5000;
    while (!closed && performance.now() < end) await sleep(20);
    ws.close();
    const types = data.map((d) => JSON.parse(d).type);
    self.postMessage({ at: at, types: types, created: data[types.indexOf("session.created")] || "" });
  } catch (err) {
    self.postMessage({ error: String(err) });
  }
};`

// jsBarePlan is what the worker sends, prepared in Go so the worker does
// no encoding while it streams.
type jsBarePlan struct {
	URL     string   `json:"url"`
	Update  string   `json:"update"`
	Appends []string `json:"appends"`
	Commit  string   `json:"commit"`
	Close   string   `json:"close"`
	FrameMs int      `json:"frame_ms"`
	SettleM int      `json:"settle_ms"`
}

// jsBareRun streams pcm from a bare JS WebSocket client in a dedicated
// Worker (see jsBareWorker) to wsURL and returns the received frames with
// their worker-clock stamps (recv trace events) and the session id.
func jsBareRun(ctx context.Context, chromium, wsURL string, pcm []byte) (string, []trace.Event, error) {
	plan, err := newJSBarePlan(wsURL, pcm)
	if err != nil {
		return "", nil, err
	}
	planJSON, err := json.Marshal(plan)
	if err != nil {
		return "", nil, err
	}
	srv := httptest.NewServer(jsBareHandler(planJSON))
	defer srv.Close()
	b, err := newBrowser(chromium)
	if err != nil {
		return "", nil, err
	}
	defer b.cancel()
	if err := chromedp.Do(b.ctx, chromedp.Navigate(srv.URL+"/")); err != nil {
		return "", nil, fmt.Errorf("bench: bare JS page: %w", err)
	}
	d := audio.BytesToDuration(len(pcm), audio.InputRate)
	deadline := time.Now().Add(d + 3*time.Minute)
	for {
		var res *struct {
			At      []float64 `json:"at"`
			Types   []string  `json:"types"`
			Created string    `json:"created"`
			Error   string    `json:"error"`
		}
		if err := b.eval(`window.__bare`, &res); err != nil {
			return "", nil, err
		}
		if res != nil {
			if res.Error != "" {
				return "", nil, fmt.Errorf("bench: bare JS client: %s", res.Error)
			}
			ev, err := jsBareEvents(res.At, res.Types)
			if err != nil {
				return "", nil, err
			}
			sc, ok := decodeFrame(res.Created).(*protocol.SessionCreated)
			if !ok || sc.Session == nil || sc.Session.SessionIdentity() == "" {
				return "", nil, fmt.Errorf("bench: bare JS client: no session.created with a session id")
			}
			return sc.Session.SessionIdentity(), ev, nil
		}
		if time.Now().After(deadline) {
			return "", nil, fmt.Errorf("bench: bare JS client: no result after %v", d+3*time.Minute)
		}
		select {
		case <-ctx.Done():
			return "", nil, ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
}

func newJSBarePlan(wsURL string, pcm []byte) (*jsBarePlan, error) {
	u, err := protocol.BuildRealtimeURL(wsURL, map[string][]string{"model": {"sim"}})
	if err != nil {
		return nil, err
	}
	upd, err := protocol.Marshal(protocol.NewBenchmarkSessionUpdate(protocol.BenchmarkSession{Model: "sim"}))
	if err != nil {
		return nil, err
	}
	p := &jsBarePlan{URL: u, Update: string(upd), FrameMs: 200, SettleM: 2000,
		Commit: `{"type":"input_audio_buffer.commit","final":true}`, Close: `{"type":"session.close"}`}
	frame := audio.FrameBytes(audio.InputRate, p.FrameMs)
	for off := 0; off < len(pcm); off += frame {
		b, err := json.Marshal(map[string]string{"type": protocol.TypeInputAudioBufferAppend, "audio": base64.StdEncoding.EncodeToString(pcm[off:min(off+frame, len(pcm))])})
		if err != nil {
			return nil, err
		}
		p.Appends = append(p.Appends, string(b))
	}
	return p, nil
}

func jsBareHandler(plan []byte) http.Handler {
	mux := http.NewServeMux()
	serve := func(ctype, body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", ctype)
			w.Write([]byte(body))
		}
	}
	mux.Handle("GET /{$}", serve("text/html; charset=utf-8", jsBarePage))
	mux.Handle("GET /worker.js", serve("text/javascript", jsBareWorker))
	mux.Handle("GET /plan.json", serve("application/json", string(plan)))
	return mux
}

// decodeFrame decodes a server frame, nil when it is not one.
func decodeFrame(s string) protocol.Event {
	ev, err := protocol.Decode([]byte(s))
	if err != nil {
		return nil
	}
	return ev
}

// jsBareEvents turns the worker's stamps and types into recv trace events:
// the shape FrameErrors pairs with the truth.
func jsBareEvents(at []float64, types []string) ([]trace.Event, error) {
	if len(at) != len(types) {
		return nil, fmt.Errorf("bench: bare JS client: %d stamps for %d frames", len(at), len(types))
	}
	ev := make([]trace.Event, len(at))
	for i := range at {
		b, err := json.Marshal(map[string]string{"type": types[i]})
		if err != nil {
			return nil, err
		}
		ev[i] = trace.Event{TMs: at[i], Dir: trace.DirRecv, Event: b}
	}
	return ev, nil
}
