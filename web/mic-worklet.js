// mic-worklet.js — duplexscope's input worklet (processor "duplexscope-input").
//
// It turns the audio clock into the session's frame clock: every frame_ms of
// captured (or clip) audio, resampled to 16 kHz mono PCM16, is posted to the
// page as {type:"frame", seq, pcm (Uint8Array, PCM16 LE), ctxTime, rms, peak}.
// Frames are produced by process(), which the audio thread runs every 128
// samples even when the tab is hidden, so pacing never rests on page timers.
//
// Modes (processorOptions.mode):
//   "mic"  — input 0 is the microphone; it is low-pass filtered (windowed
//            sinc, cut-off 0.46 × 16 kHz) and resampled to 16 kHz.
//   "clip" — the page posts {type:"clip", pcm: Int16Array at 16 kHz, audible};
//            the worklet streams it at 16 kHz per second of audio clock and,
//            if audible, plays it on output 0. The clip starts at the next
//            frame boundary, announced by {type:"clip-start", seq}: frame seq
//            begins with the clip's first sample, so a page that sends from
//            that frame on streams the clip on its own clock (labels in ms of
//            the clip are ms from the first append). When it runs out it
//            posts {type:"clip-end", seq} once and continues with silence.
//            With playOnly (the session worker cuts and paces the clip's
//            frames on its own clock) the clip is only played: no frames,
//            no clip-start or clip-end.
// Session worker: {type:"port", port} hands the worklet a MessagePort to the
// page's session Worker; from then on frames go only there (never through
// the main thread) and clip-start / clip-end go to both.
// Messages in: {type:"stop"} flushes a final partial frame ({final:true});
// {type:"inject", pcm: Int16Array at 16 kHz, id} mixes a probe clip (barge-in,
// backchannel…) into the outgoing stream from the next sample on and posts
// {type:"probe-onset", id, seq, sample} naming the frame and the sample index
// within it where the probe starts.
const OUT_RATE = 16000;

class InputProcessor extends AudioWorkletProcessor {
  constructor(options) {
    super();
    const o = (options && options.processorOptions) || {};
    this.mode = o.mode || "mic";
    this.frameSamples = Math.max(1, Math.round((OUT_RATE * (o.frameMs || 200)) / 1000));
    this.frame = new Int16Array(this.frameSamples);
    this.fill = 0;
    this.seq = 0;
    this.sumSq = 0;
    this.peak = 0;
    this.stopped = false;
    // Resampler (mic mode): absolute input index of buf[0] is bufStart.
    this.ratio = sampleRate / OUT_RATE;
    this.fc = Math.min(0.5, 0.5 / this.ratio) * 0.92; // cut-off, cycles per input sample
    this.half = Math.max(4, Math.ceil(8 * Math.max(1, this.ratio)));
    this.buf = new Float32Array(16384);
    this.bufLen = 0;
    this.bufStart = 0;
    this.nextOut = 0; // index of the next 16 kHz output sample
    // Clip mode.
    this.clip = null;
    this.clipPos = 0; // 16 kHz samples emitted from the clip (and silence after it)
    this.clipFrac = 0;
    this.audible = false;
    this.playOnly = false;
    this.clipEnded = false;
    this.pending = null;
    this.inj = null;
    this.injPos = 0;
    this.injID = "";
    this.worker = null; // MessagePort to the session worker, when it runs there
    this.port.onmessage = (e) => this.onMessage(e.data);
  }

  // toWorker posts to the session worker when there is one, else the page.
  toWorker(m, transfer) {
    (this.worker || this.port).postMessage(m, transfer || []);
  }

  // toBoth posts to the page and, when there is one, the session worker.
  toBoth(m) {
    this.port.postMessage(m);
    if (this.worker) this.worker.postMessage(m);
  }

  onMessage(m) {
    if (!m) return;
    if (m.type === "port") {
      this.worker = m.port;
    } else if (m.type === "clip") {
      this.pending = m.pcm; // started at the next frame boundary (process)
      this.audible = !!m.audible;
      this.playOnly = !!m.playOnly;
    } else if (m.type === "inject") {
      this.inj = m.pcm;
      this.injPos = 0;
      this.injID = m.id || "";
    } else if (m.type === "audible") {
      this.audible = !!m.audible;
    } else if (m.type === "stop") {
      this.flush(true);
      this.stopped = true;
    }
  }

  // kernel is the windowed-sinc low-pass at offset t input samples.
  kernel(t) {
    const a = Math.abs(t);
    if (a >= this.half) return 0;
    const x = 2 * this.fc * t;
    const sinc = x === 0 ? 1 : Math.sin(Math.PI * x) / (Math.PI * x);
    const w = 0.5 + 0.5 * Math.cos((Math.PI * t) / this.half); // Hann
    return 2 * this.fc * sinc * w;
  }

  pushInput(ch) {
    if (this.bufLen + ch.length > this.buf.length) {
      // Drop what no future output needs, then grow if still short.
      const keepFrom = Math.max(0, Math.floor(this.nextOut * this.ratio) - this.half - 1 - this.bufStart);
      this.buf.copyWithin(0, keepFrom, this.bufLen);
      this.bufLen -= keepFrom;
      this.bufStart += keepFrom;
      if (this.bufLen + ch.length > this.buf.length) {
        const nb = new Float32Array((this.bufLen + ch.length) * 2);
        nb.set(this.buf.subarray(0, this.bufLen));
        this.buf = nb;
      }
    }
    this.buf.set(ch, this.bufLen);
    this.bufLen += ch.length;
    if (this.ratio === 1) {
      for (let i = 0; i < ch.length; i++) this.emit(ch[i]);
      this.nextOut += ch.length;
      return;
    }
    const end = this.bufStart + this.bufLen; // exclusive
    for (;;) {
      const p = this.nextOut * this.ratio;
      const c = Math.floor(p);
      if (c + this.half >= end) break;
      let s = 0;
      const k0 = Math.max(this.bufStart, c - this.half + 1);
      const k1 = c + this.half;
      for (let k = k0; k <= k1; k++) s += this.buf[k - this.bufStart] * this.kernel(p - k);
      this.emit(s);
      this.nextOut++;
    }
  }

  emit(v) {
    if (this.inj) {
      if (this.injPos === 0) this.port.postMessage({ type: "probe-onset", id: this.injID, seq: this.seq, sample: this.fill });
      v += this.inj[this.injPos++] / 32768;
      if (this.injPos >= this.inj.length) this.inj = null;
    }
    const s = v < -1 ? -1 : v > 1 ? 1 : v;
    const i = s < 0 ? Math.round(s * 32768) : Math.round(s * 32767);
    this.frame[this.fill++] = i;
    this.sumSq += s * s;
    const a = s < 0 ? -s : s;
    if (a > this.peak) this.peak = a;
    if (this.fill === this.frameSamples) this.flush(false);
  }

  flush(final) {
    if (this.fill === 0 && !final) return;
    const n = this.fill;
    const pcm = new Uint8Array(n * 2);
    const dv = new DataView(pcm.buffer);
    for (let i = 0; i < n; i++) dv.setInt16(i * 2, this.frame[i], true);
    this.toWorker(
      {
        type: "frame",
        seq: this.seq++,
        pcm: pcm,
        samples: n,
        ctxTime: currentTime,
        rms: n ? Math.sqrt(this.sumSq / n) : 0,
        peak: this.peak,
        final: final,
      },
      [pcm.buffer],
    );
    this.fill = 0;
    this.sumSq = 0;
    this.peak = 0;
  }

  process(inputs, outputs) {
    if (this.stopped) return false;
    const out = outputs[0];
    if (this.mode === "mic") {
      const input = inputs[0];
      if (input && input.length > 0 && input[0].length > 0) {
        let ch = input[0];
        if (input.length > 1) {
          // Down-mix to mono.
          const m = new Float32Array(ch.length);
          for (let c = 0; c < input.length; c++) for (let i = 0; i < m.length; i++) m[i] += input[c][i] / input.length;
          ch = m;
        }
        this.pushInput(ch);
      }
      return true;
    }
    // Clip mode: 128 context samples = 128/ratio 16 kHz samples.
    const quantum = out && out[0] ? out[0].length : 128;
    this.clipFrac += quantum / this.ratio;
    const n = Math.floor(this.clipFrac);
    this.clipFrac -= n;
    let start = this.clipPos;
    for (let i = 0; i < n; i++) {
      if (this.pending && (this.fill === 0 || this.playOnly)) {
        this.clip = this.pending;
        this.pending = null;
        this.clipPos = 0;
        this.clipEnded = false;
        start = -i; // clip position at this quantum's first sample
        if (!this.playOnly) this.toBoth({ type: "clip-start", seq: this.seq });
      }
      const j = this.clipPos++;
      if (this.playOnly) continue;
      const v = this.clip && j < this.clip.length ? this.clip[j] / 32768 : 0;
      this.emit(v);
    }
    if (this.clip && !this.clipEnded && this.clipPos >= this.clip.length) {
      this.clipEnded = true;
      if (!this.playOnly) this.toBoth({ type: "clip-end", seq: this.seq, ctxTime: currentTime });
    }
    if (this.audible && this.clip && out) {
      for (let c = 0; c < out.length; c++) {
        const o = out[c];
        for (let i = 0; i < o.length; i++) {
          const pos = start + (i * n) / o.length;
          const j = Math.floor(pos);
          const f = pos - j;
          const a = j >= 0 && j < this.clip.length ? this.clip[j] : 0;
          const b = j + 1 >= 0 && j + 1 < this.clip.length ? this.clip[j + 1] : 0;
          o[i] = (a + (b - a) * f) / 32768;
        }
      }
    }
    return true;
  }
}

registerProcessor("duplexscope-input", InputProcessor);
