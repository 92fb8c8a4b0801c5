// playback-worklet.js — duplexscope's model-audio player (processor "duplexscope-playback").
//
// Runs in an AudioContext at 24 kHz (the protocol's output rate). The page
// posts decoded PCM16 per response; responses play one after another.
//
// Messages in:
//   {type:"push", id, pcm: Uint8Array (PCM16 LE mono at the context rate)}
//   {type:"done", id}   — no more audio for id (lets a short response start and drain)
//   {type:"clear", id}  — barge-in: drop id's queued audio now, ignore later pushes of id
// Messages out (ctxTime is the audio clock, seconds):
//   {type:"start", id, ctxTime}                 first sample of id rendered
//   {type:"progress", id, played, ctxTime}      every ~50 ms while id plays (played = samples)
//   {type:"drained", id, played, ctxTime}       id's queue emptied after "done"
//   {type:"cleared", id, played, dropped, ctxTime}
//   {type:"underrun", id, samples, count, ctxTime} playback starved mid-response (rebuffers)
//   {type:"level", rms, peak, ctxTime}           every ~50 ms
// Session worker: {type:"port", port} gives the worklet a MessagePort to the
// page's session Worker; push/done/clear are then accepted on it too, and
// every message out goes to both (the worker acks, the page draws).
// Jitter buffer: playback of a response starts when prebufferMs is queued or
// the response is done; after an underrun it rebuffers the same amount.
// 5 ms fades at start and on starvation avoid clicks.
class PlaybackProcessor extends AudioWorkletProcessor {
  constructor(options) {
    super();
    const o = (options && options.processorOptions) || {};
    this.prebuffer = Math.round((sampleRate * (o.prebufferMs == null ? 200 : o.prebufferMs)) / 1000);
    this.fade = Math.max(1, Math.round(sampleRate * 0.005));
    this.order = []; // response ids in play order
    this.resp = new Map(); // id -> {chunks: [Float32Array], off, queued, played, done, cleared, started}
    this.playing = false;
    this.underruns = 0;
    this.underrunSamples = 0;
    this.lastReport = 0;
    this.sumSq = 0;
    this.peak = 0;
    this.levelN = 0;
    this.worker = null;
    this.port.onmessage = (e) => this.onMessage(e.data);
  }

  // post sends m to the page and, when there is one, the session worker.
  post(m) {
    this.port.postMessage(m);
    if (this.worker) this.worker.postMessage(m);
  }

  get(id) {
    let r = this.resp.get(id);
    if (!r) {
      r = { chunks: [], off: 0, queued: 0, played: 0, done: false, cleared: false, started: false };
      this.resp.set(id, r);
      this.order.push(id);
    }
    return r;
  }

  onMessage(m) {
    if (m && m.type === "port") {
      this.worker = m.port;
      this.worker.onmessage = (e) => this.onMessage(e.data);
      return;
    }
    if (!m || !m.id) return;
    const r = this.get(m.id);
    if (m.type === "push") {
      if (r.cleared || r.done) return;
      const dv = new DataView(m.pcm.buffer, m.pcm.byteOffset, m.pcm.byteLength);
      const n = m.pcm.byteLength >> 1;
      const f = new Float32Array(n);
      for (let i = 0; i < n; i++) f[i] = dv.getInt16(i * 2, true) / 32768;
      r.chunks.push(f);
      r.queued += n;
    } else if (m.type === "done") {
      r.done = true;
    } else if (m.type === "clear") {
      const dropped = r.queued;
      r.chunks = [];
      r.off = 0;
      r.queued = 0;
      r.cleared = true;
      r.done = true;
      this.post({ type: "cleared", id: m.id, played: r.played, dropped: dropped, ctxTime: currentTime });
    }
  }

  // head returns the id now due to play, dropping finished ones.
  head(t) {
    while (this.order.length > 0) {
      const id = this.order[0];
      const r = this.resp.get(id);
      if (r.queued > 0 || !r.done) return id;
      if (!r.cleared) this.post({ type: "drained", id: id, played: r.played, ctxTime: t });
      this.order.shift();
      this.resp.delete(id);
      this.playing = false;
    }
    return null;
  }

  process(inputs, outputs) {
    const out = outputs[0];
    const ch = out[0];
    const n = ch.length;
    let i = 0;
    while (i < n) {
      const t = currentTime + i / sampleRate;
      const id = this.head(t);
      if (id === null) break;
      const r = this.resp.get(id);
      if (!this.playing) {
        if (r.queued >= this.prebuffer || (r.done && r.queued > 0)) {
          this.playing = true;
          this.fadeIn = 0;
        } else {
          if (r.started && !r.done) this.starve(id, r, n - i, t);
          break;
        }
      }
      if (r.queued === 0) {
        // Starved mid-response: rebuffer.
        this.playing = false;
        this.underruns++;
        this.post({ type: "underrun", id: id, samples: 0, count: this.underruns, ctxTime: t });
        continue;
      }
      if (!r.started) {
        r.started = true;
        this.post({ type: "start", id: id, ctxTime: t });
      }
      const c = r.chunks[0];
      const take = Math.min(n - i, c.length - r.off);
      for (let k = 0; k < take; k++) {
        let v = c[r.off + k];
        if (this.fadeIn < this.fade) v *= this.fadeIn++ / this.fade;
        const left = r.queued - k;
        if (!r.done && left <= this.fade) v *= left / this.fade;
        ch[i + k] = v;
        this.sumSq += v * v;
        const a = v < 0 ? -v : v;
        if (a > this.peak) this.peak = a;
      }
      this.levelN += take;
      r.off += take;
      r.queued -= take;
      r.played += take;
      i += take;
      if (r.off === c.length) {
        r.chunks.shift();
        r.off = 0;
      }
    }
    for (let c = 1; c < out.length; c++) out[c].set(ch);
    if (currentTime - this.lastReport >= 0.05) {
      this.lastReport = currentTime;
      const id = this.order.length ? this.order[0] : null;
      if (id !== null) {
        const r = this.resp.get(id);
        if (r && r.started) this.post({ type: "progress", id: id, played: r.played, ctxTime: currentTime });
      }
      const rms = this.levelN ? Math.sqrt(this.sumSq / this.levelN) : 0;
      this.post({ type: "level", rms: rms, peak: this.peak, ctxTime: currentTime, underrunSamples: this.underrunSamples });
      this.sumSq = 0;
      this.peak = 0;
      this.levelN = 0;
    }
    return true;
  }

  starve(id, r, samples, t) {
    this.underrunSamples += samples;
  }
}

registerProcessor("duplexscope-playback", PlaybackProcessor);
